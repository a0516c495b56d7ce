"""Deals read against the state and the speech around them (issue 34 §1, the
unregistered-deal rule): what is no new deal, and the deals no verb event carries.

No new deal: a debt the state already holds, recalled ("Greta reminds you that you still owe
her twelve silver", "钱掌柜提醒你还欠他十二文"): the state has a debt between the character
and the person the sentence names (or any, when it names nobody), a word of recall stands in
the sentence (``deal_recall``: "still", "aún", "还欠") and no word of a new sum (``deal_new``:
"more", "más", "再"); a deal only wished or weighed (``place_modals``: "you think about
pawning", "你真想付了钱").

New deals: a sum owed said aloud with a word of more ("you owe me three more"); something
that passes to a new owner for money (``deal_owned_by``: "the dagger belongs to Greta now");
a bargain closed in one word of speech with its terms said (``deal_agreed``, ``deal_schedule``:
"—Hecho —dice Inés—. Dos ahora y tres más…"). The words are data in the closure lexicon.
"""

from __future__ import annotations

import re

from engine.gm.closure_rules.entities import YOU
from engine.gm.closure_rules.events import Event, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.mentions import fold

_QUOTE_MARKS = '"“”«»「」『』‘’—– '
_TERMS = ("amounts", "money_nouns", "debt_nouns", "deal_schedule")
_FIRST_WORDS = re.compile(r"[.,!?;:。，！？；：—–]")


def recalled(event: Event, reading: Reading) -> bool:
    """The debt the event tells is one the state already has, told again."""
    me = reading.facts.character_id
    debts = [d for d in reading.scene.state.debts if d.amount > 0 and me in (d.debtor, d.creditor)]
    if not debts or not _in_sentence(event, reading, "deal_recall"):
        return False
    if _in_sentence(event, reading, "deal_new"):
        return False
    others = {d.creditor if d.debtor == me else d.debtor for d in debts}
    named = _people(event, reading)
    return not named or bool(named & others)


def wished(event: Event, reading: Reading) -> bool:
    """A wish or a plan before the deal in its clause ("you'd like to pay", "你真想付了钱")."""
    clause = event.clause
    return any(
        clause.start <= h.start < event.start for h in reading.doc.hits.get("place_modals", ())
    )


def spoken_debt(event: Event, reading: Reading, kind: str) -> bool:
    """A new debt said aloud: a sum with a word of more, and no recall ("Two now, and you
    owe me three more by market day", "y me debes tres más")."""
    if kind not in ("owe", "lend") or _in_sentence(event, reading, "deal_recall"):
        return False
    return _in_sentence(event, reading, "deal_new") and _in_sentence(event, reading, "amounts")


def sold_over(reading: Reading) -> list[str]:
    """Something passes to someone else for money, told by its new owner ("Three silver, and
    the dagger belongs to Greta now", "Por tres monedas, la daga pasa a ser de Inés"): a
    sale. ``deal_owned_by`` says the owner changed; the sentence must name a person other
    than the character and a sum, outside speech and not denied."""
    doc = reading.doc
    for hit in doc.hits.get("deal_owned_by", ()):
        clause = doc.clause_at(hit.start)
        if clause.quoted or clause.question or negated(doc, clause, hit.start, hit.first, hit.last):
            continue
        sentence = clause.sentence
        if any(
            doc.clause_at(h.start).sentence == sentence and h.start < hit.start
            for k in ("reported", "past_refs", "place_unreal", "place_modals")
            for h in doc.hits.get(k, ())
        ):
            continue  # remembered, told as a story, wished
        near = [
            h
            for k in ("amounts", "money_nouns")
            for h in doc.hits.get(k, ())
            if doc.clause_at(h.start).sentence == sentence
        ]
        people = {
            m.ref
            for m in reading.mentions
            if m.ref.person and m.ref != YOU and doc.clause_at(m.start).sentence == sentence
        }
        if near and people:
            return ["sell"]
    return []


def agreed_aloud(reading: Reading) -> list[str]:
    """A bargain closed in one word of speech, with the sums named ("—Hecho —dice Inés—.
    Dos ahora y tres más…", "\"Done,\" says Greta. \"Two now…\"", "“成交，”钱掌柜说，“两两…”"):
    a quote whose first words are only a word of agreement (``deal_agreed``), and a sum said
    aloud."""
    doc = reading.doc
    said = [h for k in _TERMS for h in doc.hits.get(k, ()) if doc.in_quotes(h.start)]
    if not any(h.key == "amounts" for h in said) or all(h.key == "amounts" for h in said):
        return []  # sums said with money or a term: "Two now, and three more by market day"
    agreed = {fold(w) for w in doc.words.list("deal_agreed")}
    for start, end in doc.quotes:
        first = _FIRST_WORDS.split(doc.text[start:end].strip(_QUOTE_MARKS))[0]
        if fold(first.strip()) in agreed:
            return ["deal"]
    return []


def _people(event: Event, reading: Reading) -> set[str]:
    """The ids of the people the event's sentence names, the character left out."""
    doc, sentence = reading.doc, event.clause.sentence
    return {
        m.ref.id
        for m in reading.mentions
        if m.ref.person
        and m.ref != YOU
        and m.ref.id
        and doc.clause_at(m.start).sentence == sentence
    }


def _in_sentence(event: Event, reading: Reading, key: str) -> bool:
    doc, sentence = reading.doc, event.clause.sentence
    return any(doc.clause_at(h.start).sentence == sentence for h in doc.hits.get(key, ()))
