"""Another player's character named by what she looks like (issue 34 §1: "resolve … definite
descriptions within the narration to the entities in the scene").

A narrator often leaves a player character's name out: "the priestess in the grey cloak", "el
hombre alto de la capa gris", "那个披灰斗篷的高挑女子". Such a phrase is a person word (a
person noun, a woman or man word, the character's class) with modifiers around it, and it
stands for the character whose public sheet (appearance, reputation, class, in every language
the sheet has) holds the head and most of those words, when no NPC's description holds as many.
A bare head counts only when it is in that one sheet and in no NPC's ("the priestess").
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from engine.gm.characters import Character
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.lexicon import words as lexicon
from engine.gm.closure_rules.text import Doc
from engine.gm.closure_rules.tokens import tokenize
from engine.gm.world import GameMaster, Npc

Described = tuple[int, int, str]  # start, end, the player character's id
Fit = tuple[int, int, set[str]]  # start, end, the sheet's words found
_HEADS = ("person_nouns", "female_words", "male_words", "companion_nouns", "acts_class_nouns")
_CLOSED = ("articles", "object_preps", "determiners", "conjunctions", "coordinators", "joiners")
_BEFORE, _AFTER = 3, 7  # tokens of modifiers around the head ("tall woman with the … sigil")
_CACHE: OrderedDict[tuple[int, str], tuple[GameMaster, tuple[Sheet, ...]]] = OrderedDict()


@dataclass(frozen=True)
class Sheet:
    """What anyone sees of someone, as comparable word forms (stems; Chinese: bigrams)."""

    kind: str  # "pc" or "npc"
    ident: str
    forms: frozenset[str]
    text: str


def describe(doc: Doc, gm: GameMaster) -> list[Described]:
    """The phrases of ``doc`` that describe a player character, with whose sheet they fit."""
    sheets = _sheets(gm, doc.language)
    if not any(s.kind == "pc" for s in sheets):
        return []
    out: list[Described] = []
    for head in [*doc.of(*_HEADS), *_gendered(doc)]:
        if doc.clause_at(head.start).quoted:
            continue
        found = _best(doc, head, sheets)
        if found is not None:
            out.append(found)
    return out


def _gendered(doc: Doc) -> list[Hit]:
    """Chinese person words built on a woman or man word ("女子", "男子", "妇人")."""
    if doc.spaced:
        return []
    marks = [w for w in (*doc.words.list("female_words"), *doc.words.list("male_words")) if w]
    return [
        Hit("gendered", t.start, t.end, n, n + 1)
        for n, t in enumerate(doc.tokens)
        if 1 < len(t.text) <= 3 and any(m in t.text for m in marks)
    ]


def _companion(doc: Doc, head: Hit) -> bool:
    """A word for a fellow traveller ("companion", "compañera", "同伴"): everyone's."""
    last = {w.split()[-1] for w in doc.words.list("companion_nouns")}
    last |= {w[-2:] for w in doc.words.list("companion_nouns") if not doc.spaced}
    return (
        head.key == "companion_nouns"
        or doc.text[head.start : head.end].lower() in last
        or doc.text[head.start : head.end].lower() in last
    )


def _best(doc: Doc, head: Hit, sheets: tuple[Sheet, ...]) -> Described | None:
    fits = [(_fit(doc, head, s), s) for s in sheets]
    scored = [(f, s) for f, s in fits if f is not None]
    if not scored:
        return None
    scored.sort(key=lambda fs: -len(fs[0][2]))
    (start, end, matched), sheet = scored[0]
    rivals = [len(f[2]) for f, s in scored[1:]]
    if sheet.kind != "pc" or (rivals and rivals[0] >= len(matched)):
        return None  # an NPC fits as well: "the woman" may be the innkeeper
    if not matched and (rivals or _companion(doc, head)):
        return None  # a bare head fits this sheet only when it fits no other
    return (start, end, sheet.ident)


def _fit(doc: Doc, head: Hit, sheet: Sheet) -> Fit | None:
    """Where the description around ``head`` runs and which of its words the sheet holds;
    None when the head itself is not in the sheet (a companion word is in every one)."""
    word = doc.text[head.start : head.end]
    if doc.spaced:
        heads = {t.stem for t in doc.tokens[head.first : head.last]}
        if not heads <= sheet.forms and not _companion(doc, head):
            return None
        return _around(doc, head, sheet)
    if word not in sheet.text and not _companion(doc, head):
        return None
    return _before_de(doc, head, sheet)


def _around(doc: Doc, head: Hit, sheet: Sheet) -> Fit:
    clause = doc.clause_at(head.start)
    closed = set().union(*(doc.words.stems(k) for k in _CLOSED))
    start, end, matched = head.start, head.end, set[str]()
    low = max(clause.first, head.first - _BEFORE)
    for token in doc.tokens[low : head.first]:
        if token.stem in sheet.forms and token.stem not in closed and len(token.fold) > 2:
            start = min(start, token.start)
            matched.add(token.stem)
    verbs = {h.first for k in doc.words.verb_keys for h in doc.hits.get(k, ())}
    for n in range(head.last, min(clause.last, head.last + _AFTER)):
        token = doc.tokens[n]
        if n in verbs:
            break  # the description ends where its clause's verb begins
        if token.stem in sheet.forms and token.stem not in closed and len(token.fold) > 2:
            end = max(end, token.end)
            matched.add(token.stem)
    return start, end, matched


def _before_de(doc: Doc, head: Hit, sheet: Sheet) -> Fit:
    """Chinese modifiers come before the head ("披灰斗篷的高挑女子"): the pairs of characters
    between the clause's start and the head that the sheet holds too."""
    clause = doc.clause_at(head.start)
    span = doc.text[clause.start : head.start]
    matched = {span[n : n + 2] for n in range(len(span) - 1) if span[n : n + 2] in sheet.forms}
    if not matched:
        return head.start, head.end, set()
    first = min(span.find(m) for m in matched)
    return clause.start + first, head.end, matched


def _sheets(gm: GameMaster, language: str) -> tuple[Sheet, ...]:
    key = (id(gm), language)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is gm:
        return cached[1]
    built = tuple(
        [
            _sheet("pc", c.id, [*_pc_texts(c), *_class_words(c, language)], language)
            for c in gm.characters
        ]
        + [_sheet("npc", n.id, _npc_texts(n), language) for n in gm.npcs]
    )
    _CACHE[key] = (gm, built)
    while len(_CACHE) > 16:
        _CACHE.popitem(last=False)
    return built


def _pc_texts(pc: Character) -> list[str]:
    """The public sheet in every language it has, and the class (what the party knows)."""
    public, full = pc.public, pc.full
    texts = [public.appearance, public.reputation, full.character_class]
    for words in public.translations.values():
        texts += [words.appearance or "", words.reputation or ""]
    texts += [w.character_class or "" for w in full.translations.values()]
    return texts


def _class_words(pc: Character, language: str) -> list[str]:
    """The class in the narration's language ("fighter": "el guerrero", "战士"), from
    ``acts_class_names`` ("fighter: guerrero guerrera luchador")."""
    own = pc.full.character_class.strip().casefold()
    for entry in lexicon(language).list("acts_class_names"):
        name, _, said = entry.partition(":")
        if own and name.strip() == own:
            return [said]
    return []


def _npc_texts(npc: Npc) -> list[str]:
    return [npc.description, npc.public_description, npc.trade]


def _sheet(kind: str, ident: str, texts: list[str], language: str) -> Sheet:
    text = " ".join(t for t in texts if t)
    if language == "zh":
        pairs = {text[n : n + 2] for n in range(len(text) - 1)}
        return Sheet(kind, ident, frozenset(p for p in pairs if p.isalpha()), text)
    return Sheet(kind, ident, frozenset(t.stem for t in tokenize(text, language)), text)
