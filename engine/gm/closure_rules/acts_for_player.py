"""Rule: another player's character acts, speaks or wants (seed 001 "hace actuar, hablar o
querer algo a otro jugador"; GAME_MASTER.md K-5).

Another player's character is named (full name, first name), described, or stood for by a
pronoun ("she", "ella", "她") resolved to her; the rule fires when that character is the
subject of a verb of doing, saying, gesturing or wanting ("Ada draws her mace", "—Deberíamos
irnos —dice Ada", "Ada决定跟你下去", "She decides to follow you"). Being looked at, spoken to or
standing somewhere is not acting; neither is what the narrator asks or negates.
"""

from __future__ import annotations

import re

from engine.gm.closure_rules.acts_deeds import unclassed_deed
from engine.gm.closure_rules.acts_scope import left_to_her
from engine.gm.closure_rules.acts_speech import speaks, tag_speaker
from engine.gm.closure_rules.entities import COMPANION, Ref
from engine.gm.closure_rules.events import Event, modal
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.possessor import opens_clause, owner

_ACTING_TEXT = (
    "acquire give drop buy sell pay lend pawn settle accept offer tell go enter arrive "
    "leave flee climb open close search hide attack consume rest gather light talk speech "
    "gesture volition act kill hold spend confess deal"
)
ACTING = tuple(_ACTING_TEXT.split())
_ES_FUTURE = re.compile(r"(?:rá|rán)$")  # "acompañará", not the conditional "acompañaría"
_WEARING = frozenset(["acquire", "go", "hold", "act"])  # "lleva una capa", "穿着", "wears"


def _own_wish(reading: Reading, event: Event) -> bool:
    """A want in the conditional is still a want: "Bruno preferiría irse"."""
    doc, clause = reading.doc, event.clause
    first = next((n for n, t in enumerate(doc.tokens) if t.start >= event.start), 0)
    return event.key == "volition" and not modal(
        doc, clause, event.start, first, first + 1, form=False
    )


def _agent(reading: Reading, event: Event) -> Ref | None:
    """Who the event is about: its actor, or the one a Spanish "a Bruno le parece…" names
    before the clitic (the one who thinks, likes or wants)."""
    doc = reading.doc
    if doc.language != "es" or event.key != "volition":
        return event.actor
    clause = event.clause
    for mention in reading.mentions:
        if not (clause.start <= mention.start < event.start) or mention.ref.kind != "pc":
            continue
        before = doc.text[clause.start : mention.start].lower().split()[-1:]
        after = doc.text[mention.end : event.end].lower().split()[:1]
        if before in (["a"], ["al"]) and after in (["le"], ["les"]):
            return mention.ref
    return event.actor


def _foretold(reading: Reading, event: Event) -> bool:
    """The narrator tells what she will do as settled ("she'll march into the chapel",
    "Bruno te acompañará", "林岚会跟你去"): her deed decided for her. Only a plain future
    counts, never "would", "might", "if" nor a question."""
    doc, clause = reading.doc, event.clause
    if clause.question or any(
        c.sentence == clause.sentence and h.start < event.start
        for h in doc.of("conditionals")
        for c in [doc.clause_at(h.start)]
    ):
        return False
    before = [h for h in doc.of("modals") if clause.start <= h.start and h.end <= event.start]
    future = doc.of("acts_future")
    plain = all(any(f.start <= h.start < f.end for f in future) for h in before)
    if doc.language == "es" and not before:
        word = doc.text[event.start : event.end].lower().split()[0]
        return bool(_ES_FUTURE.search(word))
    return bool(before) and plain


def _asked_either_way(reading: Reading, event: Event) -> bool:
    """Chinese A-not-A ("愿不愿意", "去不去"): a question about her, whatever she does."""
    text, start = reading.doc.text, event.start
    return reading.doc.language == "zh" and text[max(0, start - 2) : start] == text[start] + "不"


def _nobody_does(reading: Reading, event: Event) -> bool:
    """ "Nobody has asked Ada anything", "Nadie le pregunta nada a Bruno", "没人问林岚": the one
    who does it is nobody, whoever the verb's reach found."""
    clause = event.clause
    return any(
        clause.start <= h.start < event.start
        and not any(h.end <= m.start < event.start and m.ref.person for m in reading.mentions)
        for h in reading.doc.of("nobody")
    )  # "Nobody answers, so Ada shrugs": Ada, after it, is who shrugs


def _worn(reading: Reading, event: Event) -> bool:
    """ "Bruno lleva una capa gris", "Ada has her hood up": what she wears is a description,
    not a deed (a garment within the next words of the verb)."""
    doc = reading.doc
    if not any(h.start < event.end and event.start < h.end for h in doc.of("wear_verbs")):
        return False
    garments = doc.hits.get("garment_nouns", ())
    return any(event.end <= h.start and h.start - event.end <= 16 for h in garments)


def acts_for_player(reading: Reading) -> bool:
    others = {
        Ref("pc", ident)
        for ident in reading.facts.player_character_ids
        if ident != reading.facts.character_id
    }
    if not others:
        return False
    others.add(COMPANION)
    if _deed_as_noun(reading, others) or unclassed_deed(reading, others):
        return True
    if speaks(reading, others):
        return True  # "—No le hagas caso —interrumpe Bruno—": her line, by its tag
    for event in reading.events:
        agent = tag_speaker(reading, event.start, event.end) or _agent(reading, event)
        if event.key not in ACTING or agent not in others:
            continue
        if event.clause.question or event.quoted or _nobody_does(reading, event):
            continue
        if left_to_her(reading, event):
            continue  # "Ada is close", "she has not said", "…, if she cares to"
        if event.key in _WEARING and _worn(reading, event):
            continue  # a refusal is his decision too: "Ada refuses", "Bruno no quiere"
        if _asked_either_way(reading, event):
            continue  # "林岚愿不愿意…": whether she will, asked
        if event.modal and not _own_wish(reading, event) and not _foretold(reading, event):
            continue  # "whatever she decides", "怎么做由她决定": hers to decide
        return True
    return False


def _deed_as_noun(reading: Reading, others: set[Ref]) -> bool:
    """An answer or a decision told as the player character's noun, as what the clause is
    about ("Ada's answer is a flat no", "La decisión de Bruno está tomada", "林岚的回答是…"),
    or her hand, her eyes, her blade doing something ("La mano de Bruno vuela a la espada")."""
    doc = reading.doc
    deeds = [e for e in reading.events if e.key in ACTING and e.key != "act" and e.asserted]
    for hit in doc.of("deed_nouns", "body_nouns"):
        clause = doc.clause_at(hit.start)
        if clause.quoted or clause.question or modal(doc, clause, hit.start, hit.first, hit.last):
            continue
        who = owner(doc, reading.mentions, hit)
        if who is None or who.ref not in others or not opens_clause(doc, hit, who):
            continue
        if hit.key == "deed_nouns" or any(  # "Ada's hand goes to her mace": she reaches
            e.clause.index == clause.index and e.start >= hit.end for e in deeds
        ):
            return True
    return False
