"""Rule: a deal is closed that no deal tool registered (seed 001 "cierra un trato sin
registrarlo"; GAME_MASTER.md K-3).

A deal is an effect, told by the narrator or agreed aloud ("«Trato hecho», dice Greta"):
something bought or sold, money changing hands, a debt or a loan, a pledge ("El herrero acepta
tu anillo como prenda"), a debt settled, terms agreed. Each kind needs its tool among the
turn's successful calls: a purchase ``buy_item``, a pledge ``pawn_item``, a debt ``set_debt``
(or the pawn that makes one)…; a narration that claims a kind of deal the tools did not make
is rejected, even when another deal tool ran. Offers, haggling, questions and refusals are
not deals.
"""

from __future__ import annotations

from engine.gm.closure_rules.deal_coins import coins_put_down
from engine.gm.closure_rules.deal_declined import closes_on_terms, declined
from engine.gm.closure_rules.deal_state import (
    agreed_aloud,
    recalled,
    sold_over,
    spoken_debt,
    wished,
)
from engine.gm.closure_rules.death import reported
from engine.gm.closure_rules.entities import YOU, Ref
from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.possessor import owner
from engine.gm.mentions import fold

MONEY = ("buy_item", "sell_item", "settle_debt", "set_debt", "pawn_item", "complete_errand")
NEEDS: dict[str, tuple[str, ...]] = {
    "buy": ("buy_item",),
    "sell": ("sell_item",),
    "pay": MONEY,
    "owe": ("set_debt", "pawn_item"),
    "lend": ("set_debt", "pawn_item"),
    "pawn": ("pawn_item",),
    "settle": ("settle_debt",),
    "deal": (*MONEY, "offer_quest", "transfer_item"),
}
_THEIR = frozenset(["su", "sus"])  # Spanish: the subject's own, unless it's "you"


def unregistered_deal(reading: Reading) -> bool:
    done = {c.name for c, _ in reading.ok_calls()}
    return any(not (set(NEEDS[kind]) & done) for kind in deal_claims(reading))


def deal_claims(reading: Reading) -> list[str]:
    """The kinds of deal the narration claims, in order."""
    kinds: list[str] = []
    idioms = reading.doc.of("deal_idioms")
    for event in reading.events:
        if not (event.asserted or closes_on_terms(event, reading)):
            continue
        if any(i.start <= event.start < i.end for i in idioms):
            continue
        if reported(reading, event) or wished(event, reading) or not _yours(event, reading):
            continue
        if declined(event, reading):
            continue  # "refuses to take it as a pledge", "…, but she shakes her head"
        kind = _kind(event, reading)
        if kind in ("owe", "lend") and recalled(event, reading):
            continue  # a debt the state already holds, told again
        if kind and (not event.quoted or kind == "deal" or spoken_debt(event, reading, kind)):
            kinds.append(kind)
    return [*kinds, *sold_over(reading), *agreed_aloud(reading), *coins_put_down(reading)]


def _yours(event: Event, reading: Reading) -> bool:
    """A deal the character may be party to: not one whose both sides are other people
    ("the last lodger left owing her a week's rent", "Greta lends Jory a coin"). Who is
    left unsaid is the character ("The moneylender takes the ring as collateral")."""
    actor, me = event.actor, Ref("pc", reading.facts.character_id)  # "Ren", "the rogue"
    if actor is None or actor in (YOU, me) or not actor.person:
        return True
    others = [r for r in (event.recipient, *event.objects) if r is not None and r.person]
    return not others or YOU in others or me in others or any(r == actor and r.id for r in others)


def _kind(event: Event, reading: Reading) -> str:
    key = event.key
    if key == "sell" and (event.recipient == YOU or YOU in event.objects):
        return "buy"  # "Osric sells you the loaf": the character buys
    if key == "buy" and event.actor is not None and event.actor.person and event.actor != YOU:
        return "sell"  # "Greta buys your dagger": the character sells
    if key in ("buy", "sell", "pawn", "settle", "deal", "lend"):
        return key
    if key == "owe":  # a set phrase of credit ("on tick", "赊") needs no sum beside it
        credit = _credit_phrase(event, reading)
        return (
            "owe" if credit or _near(event, reading, "money_nouns", "debt_nouns", "amounts") else ""
        )
    if key == "pay":
        return "pay" if _pays(event, reading) else ""
    things = [r for r in (event.actor, *event.objects) if r is not None and r.kind == "item"]
    if key == "own" and _near(event, reading, "debt_nouns") and not things:
        return "lend"  # "the loan is yours", "el préstamo es tuyo"
    if key == "own" and things and _near(event, reading, "money_nouns", "amounts"):
        return "buy"  # "A few coins later, the rope is yours"
    if key in ("accept", "acquire", "give", "drop"):
        if _near(event, reading, "pledge_nouns"):
            return "pawn"
        if _near(event, reading, "money_nouns", "amounts") and _between(event, reading):
            return "" if _own_money(event, reading) else "pay"
    return ""


def _credit_phrase(event: Event, reading: Reading) -> bool:
    """The debt is told by a phrase of credit, not the bare verb "owe", "deber", "欠" (which
    also owes thanks or an answer): "on tick", "a crédito", "赊着"."""
    doc = reading.doc
    said = doc.text[event.start : event.end]
    bare = {fold(w) for w in doc.words.list("deal_bare_owe")}
    first = said.split()[0] if doc.spaced and said.split() else said[:1]
    return fold(said) not in bare and fold(first) not in bare


def _pays(event: Event, reading: Reading) -> bool:
    """Money moves: someone pays someone ("you pay Hilda", "te paga cinco monedas", "Pagas
    una ronda")."""
    people = [r for r in (event.actor, *event.objects, event.recipient) if r and r.person]
    return bool(people) or _near(event, reading, "money_nouns", "amounts")


def _between(event: Event, reading: Reading) -> bool:
    """Between the character and someone else (coins he pockets himself are no deal)."""
    people = {r for r in (event.actor, event.recipient, *event.objects) if r and r.person}
    clause = event.clause
    people |= {
        m.ref for m in reading.mentions if clause.start <= m.start < clause.end and m.ref.person
    }
    me = Ref("pc", reading.facts.character_id)  # "the rogue" when he is the rogue
    return bool(people - {YOU, me, Ref("nobody")})


def _own_money(event: Event, reading: Reading) -> bool:
    """Someone handling coins that are hers ("Greta counts her coins and pockets them", "Inés
    se guarda sus monedas", "小梅把她的铜钱收好"): no money changes hands."""
    doc, actor = reading.doc, event.actor
    if actor is None or actor == YOU or not actor.person:
        return False
    sentence = event.clause.sentence
    coins = [h for h in doc.of("money_nouns") if doc.clause_at(h.start).sentence == sentence]
    return bool(coins) and all(_theirs(reading, h, actor) for h in coins)


def _theirs(reading: Reading, hit: Hit, actor: Ref) -> bool:
    """The coins at ``hit`` are the actor's: owned by a mention of her, or by "su", "sus"."""
    doc = reading.doc
    who = owner(doc, reading.mentions, hit)
    if who is not None:
        return who.ref == actor
    before = doc.tokens[hit.first - 1 : hit.first] if hit.first else []
    return any(t.fold in _THEIR for t in before)


def _near(event: Event, reading: Reading, *keys: str) -> bool:
    """A word of these kinds in the event's sentence."""
    clause = event.clause
    sentence = [c for c in reading.doc.clauses if c.sentence == clause.sentence]
    start, end = (sentence[0].start, sentence[-1].end) if sentence else (clause.start, clause.end)
    return any(start <= h.start < end for k in keys for h in reading.doc.hits.get(k, ()))
