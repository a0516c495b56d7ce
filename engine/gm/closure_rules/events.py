"""What a narration claims happened (issue 34 §1: "judge claims by entity and effect").

Each verb of a class (``acquire``, ``give``, ``die``, ``enter``…) found in the narration is an
``Event``: who does it (the mention just before it, past adverbs and clitics; in Spanish a verb
in the second person is "you"; a verb without a subject continues the one before it, "Abres la
puerta, coges la gema y huyes"), what it is done to (the mentions after it in its clause, a
Spanish object clitic before it, a Chinese "把" object), and whether it is claimed at all: a
negation a few words before it, a modal or a condition ("would", "intentas", "如果"), a
future form ("cogerás") or a question turn it into something that did not happen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from engine.gm.closure_rules.entities import YOU, Mention, Ref
from engine.gm.closure_rules.subjects import (
    THING,
    before_verb,
    inherit,
    subject,
    topic,
)
from engine.gm.closure_rules.text import Clause, Doc
from engine.gm.closure_rules.tokens import Token

_VERBS_TEXT = (
    "acquire give own drop buy sell pay owe lend pawn settle deal accept offer learn tell "
    "find perceive go enter arrive leave flee climb open close search hide attack consume "
    "rest gather light talk speech gesture posture volition act die kill revive complete "
    "heal hurt stabilise hold spend confess"
)
VERBS = tuple(_VERBS_TEXT.split())
IDIOMS = ("light_verbs", "deal_idioms")  # set phrases: a deed, but no transfer nor move
NOT_VERBS = ("not_verbs",)  # words that look like verbs and are none here: "junto a"
_FUTURE = re.compile(r"(?:rás|rá|rán|ría|rías|rían|remos|ríamos)$")
_LIST_GAP = re.compile(r"^(?:(?:[ \t]*\w+){0,2}[ \t]*,)?[ \t]*(?:(?:and|or|y|e|o|ni)[ \t]+)?$")
_ARTICLE_OR_CLITIC = frozenset(["la", "las", "los"])
_POTENTIAL = re.compile(r"^[^不，。！？]?不[起了到动开下上出来去住成着完]")
_WINDOW = {"en": 4, "es": 3, "zh": 3}
_INFINITIVES = ("ar", "er", "ir", "arse", "erse", "irse", "arte", "erte", "irte")


@dataclass(frozen=True, slots=True)
class Event:
    key: str
    start: int
    end: int
    clause: Clause
    actor: Ref | None  # None: nobody said; THING: something that is not a person
    objects: tuple[Ref, ...]
    recipient: Ref | None
    negated: bool
    modal: bool

    @property
    def asserted(self) -> bool:
        """Told as done: not negated, not wished, tried, conditional, future or asked."""
        return not (self.negated or self.modal or self.clause.question)

    @property
    def quoted(self) -> bool:
        return self.clause.quoted

    @property
    def by_you(self) -> bool:
        return self.actor == YOU


Span = tuple[int, int, int, int]  # start, end, first token, last token


def extract(doc: Doc, mentions: list[Mention]) -> list[Event]:
    """Every verb-class event of the narration, in order."""
    spans, idioms = _spans(doc)
    verbs: dict[int, Ref | None] = {}  # token index → the actor of the verb there
    out: list[Event] = []
    previous: tuple[Ref | None, int] = (None, -1)  # the last subject and its sentence
    for start, end, first, last in spans:
        clause = doc.clause_at(start)
        actor = _who(doc, mentions, clause, (start, first, last), verbs, previous)
        verbs.update(dict.fromkeys(range(first, last), actor))
        if actor is not None and actor != THING:
            previous = (actor, clause.sentence)
        flags = negated(doc, clause, start, first, last), modal(doc, clause, start, first, last)
        if _adjunct(doc, start, first) and out and out[-1].clause.index == clause.index:
            flags = flags[0] or out[-1].negated, flags[1] or out[-1].modal
        elif out and _listed(doc, out[-1], start, actor):
            flags = flags[0], flags[1] or out[-1].modal
        head = doc.tokens[first].end
        objects = _objects(doc, mentions, clause, start, head)
        recipient = _recipient(doc, mentions, clause, start, end, head)
        keys = ["act"] if (start, end, first, last) in idioms else _keys(doc, start, first, last)
        out += [Event(k, start, end, clause, actor, objects, recipient, *flags) for k in keys]
    return _lead_in(out)


def _listed(doc: Doc, before: Event, start: int, actor: Ref | None) -> bool:
    """The next verb of a list under one wish ("you'd like to pay, eat, and leave", "quieres
    pagar, cenar y marcharte"): it is wished too. Only bare lists: a
    comma and at most an object and an "and" between them, the same doer."""
    if not doc.spaced or not before.modal or before.negated or before.actor != actor:
        return False  # Chinese lists with "、" inside one clause, already under its wish
    if before.clause.sentence != doc.clause_at(start).sentence:
        return False
    return bool(_LIST_GAP.match(doc.text[before.end : start]))


def _spans(doc: Doc) -> tuple[list[Span], set[Span]]:
    """Where the verbs are: the longest phrase at each place, set phrases ("takes a sip")
    apart, look-alikes ("junto a") and verbs used as nouns ("a loan") left out; a death said
    with a noun ("el cadáver", "a corpse") stays."""
    idioms = {(h.start, h.end, h.first, h.last) for h in doc.of(*IDIOMS) if h.last - h.first > 1}
    blanks = {(h.start, h.end, h.first, h.last) for h in doc.of(*NOT_VERBS)}
    spans = {(h.start, h.end, h.first, h.last) for k in VERBS for h in doc.of(k)}
    found = sorted({*spans, *idioms, *blanks})
    found = [s for s in found if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in found)]
    deaths = {h.start for k in ("die", "revive") for h in doc.hits.get(k, ())}
    coins = {(h.start, h.end) for h in doc.hits.get("money_nouns", ())}  # "tres cobres"
    kept = [
        s
        for s in found
        if s not in blanks
        and (s[0], s[1]) not in coins
        and (s[0] in deaths or not _noun_use(doc, s[2], s[3]))
    ]
    return kept, idioms


def _who(
    doc: Doc,
    mentions: list[Mention],
    clause: Clause,
    span: tuple[int, int, int],
    verbs: dict[int, Ref | None],
    previous: tuple[Ref | None, int],
) -> Ref | None:
    """The verb's subject, else the verb's before it in the clause, else the last subject,
    else the person its sentence is about."""
    start, first, _ = span
    actor = subject(doc, mentions, clause, span, verbs)
    before = clause.first + before_verb(doc, clause, first)
    if actor is None and before in verbs:
        actor = verbs[before]
    if actor is None:
        actor = inherit(doc, clause, previous[0], previous[1], first)
    if actor is None:
        actor = topic(doc, mentions, clause, start, first)
    return actor


def _keys(doc: Doc, start: int, first: int, last: int) -> list[str]:
    """The classes of the verb at ``start``: a phrase's, not a shorter word's inside it."""
    return [
        key
        for key in VERBS
        for hit in doc.hits.get(key, ())
        if hit.start == start and (hit.last - hit.first > 1 or last - first == 1)
    ]


def _lead_in(events: list[Event]) -> list[Event]:
    """A clause with no subject that opens its sentence before the one with it ("After
    paying for your ale, you head out", "Tras pagar, sales", "付完酒钱，你就走了") is that
    subject's deed."""
    out = list(events)
    for n, event in enumerate(out):
        if event.actor is not None:
            continue
        later = [
            e
            for e in out[n + 1 :]
            if e.clause.sentence == event.clause.sentence and e.actor is not None
        ]
        if later and later[0].clause.index != event.clause.index:
            out[n] = replace(event, actor=later[0].actor)
    return out


def _adjunct(doc: Doc, start: int, first: int) -> bool:
    """A phrase that is no verb of its own ("on credit", "en prenda", "作为抵押"): it says how
    the verb before it was done, and is negated or wished with it."""
    if doc.language == "zh":
        return doc.text.startswith(("作为", "作", "当作", "留作", "在"), start)
    return doc.words.has(doc.tokens[first], "object_preps")


def _noun_use(doc: Doc, first: int, last: int) -> bool:
    """A one-word verb used as a noun after a determiner ("a loan", "el pago", "一次攻击")."""
    if _article_after_verb(doc, first):
        return True
    if last - first > 1 or first == 0:
        return False
    before = doc.tokens[first - 1]
    same = doc.clause_at(before.start).index == doc.clause_at(doc.tokens[first].start).index
    return same and (doc.words.has(before, "determiners") or _after_prep(doc, before, first))


def _after_prep(doc: Doc, before: Token, first: int) -> bool:
    """A finite verb never follows a preposition: "un par de pasos", "a cup of drinks" are
    nouns; only an infinitive or a gerund does ("de pagar", "after paying")."""
    word = doc.tokens[first].fold
    if before.fold not in doc.words.list("noun_preps"):
        return False
    if doc.language == "es":
        return not word.endswith((*_INFINITIVES, "ando", "iendo", "yendo"))
    return not word.endswith("ing")


def _article_after_verb(doc: Doc, first: int) -> bool:
    """In Spanish "la", "las", "los" right after a verb are an article, since a clitic never
    stands after a finite verb: what follows is a noun ("Recorres la sala": a room, no
    "salir")."""
    if first < 2 or doc.language != "es" or doc.tokens[first - 1].fold not in _ARTICLE_OR_CLITIC:
        return False
    return any(h.first <= first - 2 < h.last for k in VERBS for h in doc.hits.get(k, ()))


# --- who ----------------------------------------------------------------------------------


def negated(
    doc: Doc, clause: Clause, start: int, first: int, last: int, *, own: bool = True
) -> bool:
    """A negation a few words before ``start`` in its clause, or "nobody" or a negative
    determiner just after ("he sells no chalice")."""
    if doc.language == "zh" and _cannot(doc, start, last):
        return True
    window = _WINDOW.get(doc.language, 4)
    fixed = doc.hits.get("not_negations", ()) if doc.spaced else ()
    for hit in doc.hits.get("negations", ()):
        if hit.start < clause.start or hit.end > start:
            continue
        if any(f.start <= hit.start < f.end for f in fixed):
            continue  # "en nada", "in no time": no negation
        if own and _verb_between(doc, hit.end, start):
            continue  # "还没走出三步就被发现": the negation is the first verb's
        if doc.language == "zh" and any(c in doc.text[hit.end : start] for c in "就才便却"):
            continue  # "还没倒地就已经…": the negation stops at 就
        if first - hit.last <= window or (doc.language == "zh" and start - hit.end <= 6):
            return True
    after = doc.tokens[last : last + 1]
    nobody = doc.words.stems("nobody") | doc.words.stems("no_object")
    return any(t.fold in nobody and t.start < clause.end for t in after)


def _cannot(doc: Doc, start: int, last: int) -> bool:
    """Chinese "V不起", "V不了", "V不到": the verb cannot be done ("你付不起", "拿不动")."""
    end = doc.tokens[last - 1].end if 0 < last <= len(doc.tokens) else start
    return bool(_POTENTIAL.match(doc.text[start:end][1:] + doc.text[end : end + 3]))


def _verb_between(doc: Doc, start: int, end: int) -> bool:
    return any(
        start <= h.start and h.end <= end
        for k in ("go", "enter", "acquire", "give", "act", "find", "leave", "climb")
        for h in doc.hits.get(k, ())
    )


def modal(
    doc: Doc, clause: Clause, start: int, first: int, last: int, *, form: bool = True
) -> bool:
    """Wished, tried, conditional or future, not done (``form``: the verb's own conditional
    or future form counts too)."""
    if any(clause.start <= h.start and h.end <= start for h in doc.hits.get("modals", ())):
        return True
    sentence = [c for c in doc.clauses if c.sentence == clause.sentence]
    opening = sentence[0].start if sentence else clause.start
    if any(opening <= h.start < start for h in doc.hits.get("conditionals", ())):
        return True
    if doc.language == "zh":  # "付不付钱", "要不要": asked, not done
        verb = doc.text[start : doc.tokens[first].end] if first < len(doc.tokens) else ""
        head = verb[:1]
        return bool(head) and doc.text[start + 1 : start + 3] == "不" + head
    if doc.language == "es":  # a conditional or future before it, or it: "aceptaría", "dará"
        words = doc.tokens[clause.first : min(last if form else first, clause.last)]
        return any(len(t.text) > 4 and _FUTURE.search(t.text.lower()) for t in words)
    return False


# --- what ---------------------------------------------------------------------------------


def _objects(
    doc: Doc, mentions: list[Mention], clause: Clause, start: int, end: int
) -> tuple[Ref, ...]:
    """The mentions after the verb up to the next clause that has a verb of its own, an
    object clitic just before it ("te lo da"), a Chinese "把" object."""
    limit = clause.end
    for later in doc.clauses[clause.index + 1 :]:
        if later.sentence != clause.sentence or _has_verb(doc, later):
            break
        limit = later.end
    found = [m.ref for m in mentions if end <= m.start < limit]
    found += [m.ref for m in mentions if m.pronoun == "obj" and clause.start <= m.start < start]
    if doc.language == "zh":
        ba = [h for h in doc.hits.get("ba", ()) if clause.start <= h.start < start]
        if ba or "把" in doc.text[clause.start : start]:
            found += [m.ref for m in mentions if clause.start <= m.start < start and m.ref != YOU]
    return tuple(dict.fromkeys(r for r in found if r != THING))


def _has_verb(doc: Doc, clause: Clause) -> bool:
    return any(
        clause.start <= h.start < clause.end
        for k in ("acquire", "give", "go", "enter", "act", "speech", "perceive", "posture")
        for h in doc.hits.get(k, ())
    )


def _recipient(
    doc: Doc, mentions: list[Mention], clause: Clause, start: int, end: int, head: int
) -> Ref | None:
    """To whom: "hands you", "to Hilda", "te da", "a Hilda", "给你", "递给Hilda", "presses it
    into your hands" (a phrase that names "you")."""
    if any(m.ref == YOU and head <= m.start < end for m in mentions):
        return YOU
    if doc.language == "es":
        at = _first_at(doc, start)
        clitics = doc.tokens[max(clause.first, at - 3) : at + 1]  # "te deja el farol"
        verb = doc.tokens[at].fold if at < len(doc.tokens) else ""
        attached = len(verb) > 5 and verb.endswith(("te", "telo", "tela", "telos", "telas"))
        if attached or any(t.fold in ("te", "ti") for t in clitics):
            return YOU
    if doc.language == "zh" and "给你" in doc.text[start : end + 1]:
        return YOU
    after = [m for m in mentions if end <= m.start < min(clause.end, end + 24)]
    if after and doc.language == "en" and doc.text[end : after[0].start].strip() in ("", "to"):
        return after[0].ref
    if after and doc.language == "es" and doc.text[end : after[0].start].strip() in ("a", "al"):
        return after[0].ref
    if after and doc.language == "zh" and doc.text[end : after[0].start].strip() in ("", "给"):
        return after[0].ref
    return None


def _first_at(doc: Doc, start: int) -> int:
    return next((n for n, t in enumerate(doc.tokens) if t.start >= start), len(doc.tokens))
