"""Who does what a narration tells (issue 34 §1: "a character acts"): the subject of each verb.

The mention just before a verb is its subject, past adverbs, clitics and negations ("Osric te
lo da", "Ada, smiling, hands…"), unless it is some verb's object or follows a preposition
("Hilda asks Ada", "a Ada", "向Ada"). A Spanish verb in the second person is "you"; "your
fingers" are yours; "te deja llevarte", "让你…" make the character the doer; a speech tag names
its speaker after the verb ("—dice Ada"); a verb with no subject continues the one before it,
or the person its sentence is about ("Marta se inclina y te confiesa…").
"""

from __future__ import annotations

import re

from engine.gm.closure_rules.entities import YOU, Mention, Ref
from engine.gm.closure_rules.text import Clause, Doc
from engine.gm.closure_rules.tokens import Token

THING = Ref("thing")
SOMEONE = Ref("person")  # a third person nobody named: not you
_SECOND = re.compile(r"(?:as|es|ás|és|aste|iste|abas|ías|aras|ieras|ste)$")
_POSSESSIVE = frozenset(("your", "tu", "tus", "vuestra", "vuestro"))
_NOT_VERBS = frozenset(
    ["las", "les", "los", "mas", "mes", "tras", "tres", "dos", "tus", "mis", "sus", "nos", "vos"]
)
_ZH_PREPOSITIONS = frozenset(
    ["把", "将", "在", "从", "往", "朝", "向", "对", "跟", "和", "给", "与", "替", "为", "冲"]
)

_TAG_AFTER = "\"'”’»—–-:."  # a speech tag follows the words said: "'Well?' asks Hilda"


def subject(
    doc: Doc,
    mentions: list[Mention],
    clause: Clause,
    span: tuple[int, int, int],
    verbs: dict[int, Ref | None],
) -> Ref | None:
    """Who does the verb at ``span`` (start, first token, last token); None when its clause
    does not say (the caller then looks to the verbs and sentences around it)."""
    start, first, last = span
    if doc.language == "en" and doc.tokens[first].fold == "you" and last - first > 1:
        return YOU  # a phrase that opens with its subject: "you are below", "you now have"
    if doc.language == "zh" and doc.text[max(0, start - 2) : start] == "被你":
        return YOU  # the passive's agent: "泥印子被你发现了"
    before = _before(doc, clause, first)
    n = _skip_adverbs(doc, before)
    if _caused(doc, start):
        return YOU  # "te deja llevarte…", "lets you take…", "让你把绳子带走"
    second = any(_second_person(t) for t in doc.tokens[first:last])
    if doc.language == "es" and second and (n < 0 or _unnamed_or_you(mentions, before[n])):
        return YOU
    if n < 0:
        return _inverted(doc, mentions, clause, first, last)
    if clause.first + n in verbs:
        return None  # another verb before it, with its subject: "碰都不碰", "se vuelve y…"
    found = _mention_at(mentions, before[n].start, before[n].end)
    if found is not None:
        return _named(doc, mentions, clause, before, n, found, verbs)
    return _unnamed(doc, mentions, before, n, first)


def _unnamed_or_you(mentions: list[Mention], word: Token) -> bool:
    return _mention_at(mentions, word.start) in (None, YOU)


def _before(doc: Doc, clause: Clause, first: int) -> list[Token]:
    """The words of the clause before the verb; in Chinese only those before a preposition
    ("Osric把提灯递给你", "老道士在椅子上…": the subject comes first)."""
    before = doc.tokens[clause.first : first]
    if doc.language == "zh":
        cut = [n for n, t in enumerate(before) if t.text in _ZH_PREPOSITIONS]
        before = before[: cut[0]] if cut else before
    return before


def _skip_adverbs(doc: Doc, before: list[Token]) -> int:
    joiners = doc.words.stems("joiners") | doc.words.stems("negations")
    n = len(before) - 1
    while n >= 0 and (before[n].fold in joiners or _adverb(doc, before[n])):
        n -= 1
    return n


def _named(
    doc: Doc,
    mentions: list[Mention],
    clause: Clause,
    before: list[Token],
    n: int,
    found: Ref,
    verbs: dict[int, Ref | None],
) -> Ref | None:
    """The verb follows a mention: its subject, unless the mention is some verb's object."""
    word = before[n]
    if not found.person and _has_verb_before(verbs, clause, n):
        return None  # "林岚指着火塘皱了皱眉": 火塘 is what she points at
    if _object_of_verb(doc, mentions, verbs, clause, word):
        return _first_person(mentions, before[:n])  # "你拽着林岚往门口走": whom you pull
    if not found.person and doc.language == "zh":
        found = _first_person(mentions, before[:n]) or found  # "你一刀捅进去": not the knife
    ahead = doc.tokens[clause.first : clause.first + n]
    if _after_preposition(doc, mentions, ahead, word):
        head = [t for t in ahead if not _closed_word(doc, t)]
        if head and doc.spaced:  # "El hermano de Marta muere", "las monedas de Inés"
            return _mention_at(mentions, head[0].start) or THING
        return None
    return None if doc.words.has(word, "nobody") else found


def _unnamed(
    doc: Doc, mentions: list[Mention], before: list[Token], n: int, first: int
) -> Ref | None:
    """The word before the verb names nobody the world knows: nobody, a thing, or you."""
    word = before[n]
    if doc.words.has(word, "nobody"):
        return Ref("nobody")
    if doc.words.has(word, "subordinators") or doc.words.has(word, "object_preps"):
        return None  # "After paying…", "Tras pagar…": no subject of its own
    if _yours(doc, mentions, before, n):  # "Your fingers find…", "Tus dedos dan con…"
        return YOU
    if doc.language == "zh":
        opening = _mention_at(mentions, before[0].start)
        if opening is not None:
            return opening
        if not any(_mention_at(mentions, t.start, t.end) for t in before):
            return None  # "大步走到集市上": the subject left out, as Chinese does
    return THING if doc.language != "es" or not _second_person(doc.tokens[first]) else YOU


def _first_person(mentions: list[Mention], tokens: list[Token]) -> Ref | None:
    for token in tokens:
        ref = _mention_at(mentions, token.start, token.end)
        if ref is not None and ref.person:
            return ref
    return None


def _object_of_verb(
    doc: Doc, mentions: list[Mention], verbs: dict[int, Ref | None], clause: Clause, word: Token
) -> bool:
    """The mention just follows a verb of the clause: it is that verb's object."""
    start = next((m.start for m in mentions if m.start <= word.start < m.end), word.start)
    ahead = [n for n, t in enumerate(doc.tokens) if clause.start <= t.start and t.end <= start]
    return bool(ahead) and ahead[-1] in verbs and doc.language == "zh"


def _has_verb_before(verbs: dict[int, Ref | None], clause: Clause, n: int) -> bool:
    return any(clause.first <= k < clause.first + n for k in verbs)


def before_verb(doc: Doc, clause: Clause, first: int) -> int:
    """The index in its clause of the word before a verb, past adverbs (-1: none)."""
    joiners = doc.words.stems("joiners") | doc.words.stems("negations")  # light forms
    n = first - clause.first - 1
    while n >= 0 and (doc.tokens[clause.first + n].fold in joiners):
        n -= 1
    return n if n >= 0 else -(10**6)


def _yours(doc: Doc, mentions: list[Mention], before: list[Token], n: int) -> bool:
    """The subject is a thing of yours: "your" / "tus" / "你的" just before its noun."""
    if doc.language == "zh":
        return doc.text[before[n].start - 2 : before[n].start] == "你的" if n >= 0 else False
    for k in range(max(0, n - 2), n):
        if _mention_at(mentions, before[k].start) == YOU and before[k].fold in _POSSESSIVE:
            return True
    return False


def _closed_word(doc: Doc, token: Token) -> bool:
    keys = ("object_preps", "articles", "determiners", "joiners", "conjunctions")
    return any(doc.words.has(token, k) for k in keys)


def _caused(doc: Doc, start: int) -> bool:
    """The verb follows "lets you", "te deja", "让你…" in its clause: the character does it."""
    clause = doc.clause_at(start)
    return any(
        clause.start <= h.start and h.end <= start and start - h.end <= 12
        for h in doc.hits.get("causatives", ())
    )


def _adverb(doc: Doc, token: Token) -> bool:
    if doc.language == "en":
        return token.fold.endswith("ly") and len(token.fold) > 4
    if doc.language == "es":
        return token.fold.endswith("mente")
    return token.text.endswith("地") and len(token.text) <= 4


def _second_person(token: Token) -> bool:
    word = token.fold
    return bool(_SECOND.search(word)) and len(word) >= 3 and word not in _NOT_VERBS


def _mention_at(mentions: list[Mention], position: int, end: int | None = None) -> Ref | None:
    """The mention at ``position`` (with ``end``: the last one overlapping that span, for a
    Chinese word that swallowed a name's neighbour: "可小梅")."""
    found = None
    for m in mentions:
        if m.start <= position < m.end or (end is not None and m.start < end and position < m.end):
            found = m.ref
    return found


def _after_preposition(doc: Doc, mentions: list[Mention], ahead: list[Token], word: Token) -> bool:
    """The mention ending at ``word`` is an object ("a Ada", "to Ada", "向Ada")."""
    start = next((m.start for m in mentions if m.start <= word.start < m.end), word.start)
    if doc.language == "zh":
        text = doc.text[:start].rstrip()
        return any(text.endswith(p) for p in doc.words.list("object_preps"))
    previous = [t for t in ahead if t.end <= start]
    return bool(previous) and doc.words.has(previous[-1], "object_preps")


def _inverted(
    doc: Doc, mentions: list[Mention], clause: Clause, first: int, last: int
) -> Ref | None:
    """A speech tag with its subject after the verb: "'We should go,' says Ada", "—dice Ada"
    (Chinese never inverts it: in "问她怎么想" she is asked)."""
    if doc.language == "zh" or not any(h.first == first for h in doc.hits.get("speech", ())):
        return None
    said = doc.text[: doc.tokens[first].start].rstrip(" \t,")
    if said and said[-1] not in _TAG_AFTER:
        return None  # "you cross to the bar and ask Hilda": Hilda is asked
    after = doc.tokens[last : min(last + 3, clause.last)]
    joiners = doc.words.stems("joiners") | doc.words.stems("articles")
    for token in after:
        ref = _mention_at(mentions, token.start)
        if ref is not None:
            return ref
        if token.fold not in joiners:
            return None
    return None


def topic(doc: Doc, mentions: list[Mention], clause: Clause, start: int, first: int) -> Ref | None:
    """A subjectless verb in a pro-drop language: the person its sentence is about (the first
    named in it, not after a preposition); in Spanish someone, never "you", when the verb is
    not in the second person ("Marta se inclina y te confiesa…")."""
    opening = min(c.start for c in doc.clauses if c.sentence == clause.sentence)
    first_word = next((t for t in doc.tokens if t.start >= opening), None)
    opens = first_word is not None and first_word.start < start and doc.language != "es"
    if opens and first_word is not None and _mention_at(mentions, first_word.start) == YOU:
        return YOU  # "You slam the tankard down, stride to the door…"
    people = [m for m in mentions if opening <= m.start < start and m.ref.person and m.ref != YOU]
    for n, m in enumerate(people):
        ahead = [t for t in doc.tokens if opening <= t.start < m.start]
        if _after_preposition(doc, mentions, ahead, _at(doc, m.start)):
            continue
        named = people[n + 1 : n + 2]
        if m.ref.kind == "person" and named and not doc.text[m.end : named[0].start].strip(" ,"):
            return named[0].ref  # "The priestess, Ada, steps forward": Ada
        return m.ref
    verb = doc.tokens[first].fold
    finite = not verb.endswith(("ar", "er", "ir", "ando", "iendo", "ado", "ido", "ada", "ida"))
    if doc.language == "es" and finite and not _second_person(doc.tokens[first]):
        return SOMEONE
    return None


def _at(doc: Doc, position: int) -> Token:
    return next(t for t in doc.tokens if t.start <= position < t.end or t.start >= position)


def inherit(
    doc: Doc, clause: Clause, previous: Ref | None, sentence: int, first: int
) -> Ref | None:
    """A verb with no subject continues the last one: in its sentence always, from the
    sentence before in the pro-drop languages (not a second-person subject for a Spanish verb
    in the third person)."""
    if previous is None:
        return None
    near = sentence == clause.sentence or (
        doc.language in ("es", "zh") and sentence == clause.sentence - 1
    )
    if not near:
        return None
    if doc.language == "es" and previous == YOU and not _second_person(doc.tokens[first]):
        return None
    return previous


# --- whether ------------------------------------------------------------------------------
