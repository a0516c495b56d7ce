"""Effects a failed tool would have had, told without a verb of its class (issue 34 §1: "judge
claims by entity and effect"; seed 001 "narra como hecho una tool que falló").

``closure_rules.failed_tool`` judges the narration's events (who gives what to whom). Some
effects are told as a state or a scene instead, and are read here by effect class, with the
vocabulary as data (``ft_*`` keys of ``engine/gm/lexicon/closure.<lang>.json``):

- possession: the thing is where the player holds or is served it ("a bowl of stew sits in
  front of you", "el farol colgando del cinto", "交到了你手上"), or an NPC serves it ("Hilda
  ladles out the stew"); the thing by name, alias or pronoun, or by what it is for (the
  item's kind: stew is food, so "your supper" is it);
- arrival: the player is in the place ("Down in the cellar now, you…", "Ya en la bodega,
  esperas…") or goes down into a place below, up into one above ("you feel your way down the
  steps" when the cellar was the goal), unless the way is told barred.

Negated, wished, asked and quoted effects do not count, nor a thing told empty or served to
someone else.
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import YOU, Ref
from engine.gm.closure_rules.events import modal, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.failed_carried import carried_hits, someone_elses
from engine.gm.closure_rules.lexicon import Hit, words
from engine.gm.closure_rules.text import Clause
from engine.gm.closure_rules.tokens import Token, tokenize

PLACE_DEEDS = ("posture", "rest", "consume", "wait", "light", "search", "gather", "hide", "act")


def kind_nouns(reading: Reading, items: set[Ref]) -> list[Hit]:
    """The words for what the items are ("supper" for a food, "bebida" for a drink)."""
    gm = reading.scene.gm
    kinds = {gm.items_by_id[r.id].kind for r in items if r.id in gm.items_by_id}
    return [h for k in kinds if k for h in reading.doc.hits.get(f"ft_kind_{k}_nouns", ())]


def possession_told(reading: Reading, items: set[Ref], nouns: tuple[str, ...] = ()) -> bool:
    """The player holds, has before him or is served one of ``items`` (or a thing of the
    ``nouns`` classes: "这下你手里有线索了")."""
    doc = reading.doc
    for hit in [*doc.of("ft_have", "ft_serve"), *carried_hits(reading)]:
        clause = doc.clause_at(hit.start)
        if not _told_here(reading, hit, clause) or _said_in(reading, clause, "ft_empty"):
            continue
        if not _names_item(reading, items, clause, nouns) or someone_elses(reading, hit):
            continue
        if hit.key == "ft_have" or _served_to_you(reading, clause, hit):
            return True
    return False


def _told_here(reading: Reading, hit: Hit, clause: Clause) -> bool:
    doc = reading.doc
    if clause.quoted or clause.question:
        return False
    return not (
        negated(doc, clause, hit.start, hit.first, hit.last)
        or modal(doc, clause, hit.start, hit.first, hit.last)
    )


def _said_in(reading: Reading, clause: Clause, key: str) -> bool:
    """A word of ``key`` in the clause's sentence."""
    sentence = [c for c in reading.doc.clauses if c.sentence == clause.sentence]
    start, end = sentence[0].start, sentence[-1].end
    return any(start <= h.start < end for h in reading.doc.hits.get(key, ()))


def _names_item(reading: Reading, items: set[Ref], clause: Clause, nouns: tuple[str, ...]) -> bool:
    """One of the items (or a word for what it is) in the sentence, up to the end of the
    effect's clause: "从腰间解下铁钥匙，交到了你手上", "a bowl of stew sits in front of you"."""
    sentence = min(c.start for c in reading.doc.clauses if c.sentence == clause.sentence)
    named = [m.start for m in reading.mentions if m.ref in items]
    named += [h.start for h in kind_nouns(reading, items)]
    named += [h.start for h in reading.doc.of(*nouns)] if nouns else []
    return any(sentence <= at < clause.end for at in named)


def _served_to_you(reading: Reading, clause: Clause, hit: Hit) -> bool:
    """Served by someone, not the player, and to nobody else ("Hilda serves the carter")."""
    people = [m for m in reading.mentions if clause.start <= m.start < clause.end and m.ref.person]
    clitics = {"te", "ti", "os"}  # "Marta te sirve": to you, not by you
    before = [
        m.ref
        for m in people
        if m.end <= hit.start and reading.doc.text[m.start : m.end].lower() not in clitics
    ]
    after = [m.ref for m in people if m.start >= hit.end]
    if before and before[-1] == YOU:
        return False
    return all(r == YOU for r in after) and not other_receiver(reading, hit.end)


def other_receiver(reading: Reading, end: int) -> bool:
    """What is handed over at ``end`` goes to someone who is not the player: "to the carter",
    "serves the carter the stew", "al arriero", "给了车夫"."""
    doc = reading.doc
    clause = doc.clause_at(max(0, end - 1))
    after = doc.text[end : clause.end]
    if doc.language == "zh":
        taker = after.lstrip("了")
        given = doc.text[max(0, end - 1) : end] == "给"
        return given and bool(taker) and not taker.startswith("你")
    skip = doc.words.stems("articles") | doc.words.stems("determiners")
    tokens = doc.between(end, clause.end)
    for n, token in enumerate(tokens):
        rest = [t for t in tokens[n + 1 :] if t.fold not in skip]
        if token.fold in _TO[doc.language] and rest and not _yours_at(reading, rest[0].start):
            return True
    return doc.language == "en" and _two_objects(reading, tokens, skip)


def _two_objects(reading: Reading, tokens: list[Token], skip: frozenset[str]) -> bool:
    """ "serves the carter the stew": a noun that is no thing, then an article, then the
    thing: the first is whom it is given to."""
    words_in = [t for t in tokens if t.fold not in skip]
    if not words_in or _thing_at(reading, words_in[0].start):
        return False
    things = [t for t in tokens if _thing_at(reading, t.start)]
    if not things:
        return False
    between = [t for t in tokens if words_in[0].end <= t.start < things[0].start]
    return any(t.fold in skip for t in between)


_TO = {"en": frozenset(("to",)), "es": frozenset(("a", "al"))}


def _yours_at(reading: Reading, position: int) -> bool:
    return any(m.start <= position < m.end and m.ref == YOU for m in reading.mentions)


def _thing_at(reading: Reading, position: int) -> bool:
    """A thing is named at ``position`` (an item, a clue, a word for food…), or "you"."""
    things = [m for m in reading.mentions if m.ref.kind in ("item", "clue", "you")]
    spans = [(m.start, m.end) for m in things]
    spans += [
        (h.start, h.end)
        for k, hs in reading.doc.hits.items()
        if k.startswith("ft_kind_")
        for h in hs
    ]
    return any(start <= position < end for start, end in spans)


def clue_named(reading: Reading, clues: set[Ref]) -> bool:
    """The clue by its name in a sentence that is about the player, told as fact ("It jumps
    out at you now: wet footprints…"): what it names is in front of him."""
    doc = reading.doc
    yours = {doc.clause_at(m.start).sentence for m in reading.mentions if m.ref == YOU}
    for mention in (m for m in reading.mentions if m.ref in clues and not m.pronoun):
        clause = doc.clause_at(mention.start)
        if clause.quoted or clause.question or clause.sentence not in yours:
            continue
        sentence = [c for c in doc.clauses if c.sentence == clause.sentence]
        if any(c.quoted or c.question for c in sentence):
            continue
        start, end = sentence[0].start, clause.end  # what follows is about others
        doubt = doc.of("negations", "modals", "conditionals", "nothing_found", "ft_seek")
        if not any(start <= h.start < end for h in doubt):
            return True
    return False


# --- arrival ----------------------------------------------------------------------------------


def arrival_told(reading: Reading, places: set[Ref]) -> bool:
    """The player is told in one of ``places``, or going down (up) into it."""
    return _inside(reading, places) or _towards(reading, places)


def _inside(reading: Reading, places: set[Ref]) -> bool:
    """ "Down in the cellar now, you…", "Ya en la bodega, esperas…", "你已经在地窖里了": a place
    said with a word for "in" just before (Chinese: or "里" just after), in a clause that is
    the player's or opens a sentence of his."""
    doc = reading.doc
    for mention in (m for m in reading.mentions if m.ref in places):
        clause = doc.clause_at(mention.start)
        if clause.quoted or clause.question or not _locative(reading, mention.start, mention.end):
            continue
        if negated(
            doc, clause, mention.start, _token(reading, mention.start), _token(reading, mention.end)
        ):
            continue
        if _players_clause(reading, clause):
            return True
    return False


def _locative(reading: Reading, start: int, end: int) -> bool:
    doc = reading.doc
    gap = doc.words.stems("articles") | doc.words.stems("determiners")
    for hit in doc.hits.get("ft_inside_before", ()):
        between = [t for t in doc.between(hit.end, start) if t.fold not in gap]
        if (
            hit.end <= start
            and not between
            and doc.clause_at(hit.start).index == doc.clause_at(start).index
        ):
            return True
    return any(h.start == end for h in doc.hits.get("ft_inside_after", ()))


def _players_clause(reading: Reading, clause: Clause) -> bool:
    """The clause is the player's: its deeds are his, or it has none and a later clause of its
    sentence is his ("Down in the cellar now, you breathe…")."""
    mine = [e for e in reading.events if e.clause.index == clause.index and e.asserted]
    if mine:
        return all(e.actor in (YOU, None) and e.key in PLACE_DEEDS for e in mine)
    named = [m.ref for m in reading.mentions if clause.start <= m.start < clause.end]
    if named and named[0] == YOU:
        return True  # "You're finally in the cellar", "你已经在地窖里了"
    later = [
        e
        for e in reading.events
        if e.clause.sentence == clause.sentence and e.clause.index > clause.index
    ]
    if later:
        return later[0].actor == YOU and later[0].asserted
    end = max(c.end for c in reading.doc.clauses if c.sentence == clause.sentence)
    following = reading.doc.between(clause.end, end)
    if reading.doc.language == "es" and following and _second_person(following[0]):
        return True  # "Ya en la bodega, tanteas los toneles"
    after = [m.ref for m in reading.mentions if clause.end <= m.start < end]
    return bool(after) and after[0] == YOU  # "Por fin en la bodega, te orientas…"


def _second_person(token: Token) -> bool:
    """A Spanish verb in the second person opening its clause ("…, tanteas los toneles")."""
    word = token.fold
    return len(word) > 4 and word.endswith(("as", "es", "aste", "iste"))


def _towards(reading: Reading, places: set[Ref]) -> bool:
    """Going down into a place below (up into one above) that the narration names, told as the
    player's, the way not told barred."""
    doc = reading.doc
    if not any(m.ref in places for m in reading.mentions) or doc.hits.get("ft_barred"):
        return False
    keys = [
        k
        for k, ws in (("ft_descend", "ft_below_nouns"), ("ft_ascend", "ft_above_nouns"))
        if _named_as(reading, places, ws)
    ]
    for hit in doc.of(*keys):
        clause = doc.clause_at(hit.start)
        if _told_here(reading, hit, clause) and _players(reading, clause, hit):
            return True
    return False


def _named_as(reading: Reading, places: set[Ref], key: str) -> bool:
    """A place's own names say what it is (a cellar is below, a loft above)."""
    gm, language = reading.scene.gm, reading.doc.language
    book = words(language)
    for ref in places:
        place = gm.locations_by_id.get(ref.id)
        if place is None:
            continue
        for name in (place.name, *place.aliases):
            if book.scan(name, tokenize(name, language)).get(key):
                return True
    return False


def _players(reading: Reading, clause: Clause, hit: Hit) -> bool:
    """Told of the player: his deed in the clause, else the sentence opens with him."""
    actors = [
        e.actor for e in reading.events if e.clause.index == clause.index and e.start <= hit.start
    ]
    if actors:
        return actors[-1] in (YOU, None)
    opening = [
        m for m in reading.mentions if reading.doc.clause_at(m.start).sentence == clause.sentence
    ]
    return bool(opening) and opening[0].ref == YOU and opening[0].start <= hit.start


def place_there(
    reading: Reading, places: set[Ref], clause: Clause, *, owned_too: bool = True
) -> bool:
    """One of ``places`` is said from the clause on, in its sentence, as where one is, not as
    what a thing belongs to ("the top of the cellar steps", "la puerta de la bodega")."""
    doc = reading.doc
    skip = doc.words.stems("articles") | doc.words.stems("determiners")
    end = max(c.end for c in doc.clauses if c.sentence == clause.sentence)
    for mention in (m for m in reading.mentions if m.ref in places):
        if not clause.start <= mention.start < end:
            continue
        before = [t for t in doc.between(clause.start, mention.start) if t.fold not in skip]
        owned = not owned_too and bool(before) and before[-1].fold in ("of", "de", "del")
        modifier = any(
            h.start >= mention.end and not doc.text[mention.end : h.start].strip()
            for h in doc.of("place_nouns", "exit_nouns", "ft_door_nouns")
        )
        if not owned and not modifier:
            return True
    return False


def _token(reading: Reading, position: int) -> int:
    tokens = reading.doc.tokens
    return next((n for n, t in enumerate(tokens) if t.start >= position), len(tokens))
