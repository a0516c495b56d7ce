"""What a narration refers to (issue 34 §1: "resolve pronouns and definite descriptions within
the narration to the entities in the scene").

The world's lexicon is indexed once per world and language: places and points, items, NPCs
(name, first name, aliases, trade and the trade's words in the narration's language, "the dog"
for an animal), the player characters, clues and quests, each by its names and aliases with a
leading article dropped. A narration's mentions are those names found by their stems, plus its
pronouns, each resolved to the person or thing it most likely stands for: "she" to the last
woman named (a woman by the world's own words about her), an object pronoun never to the
subject of its own clause, "it" to the last item.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from engine.gm.closure_rules.acts_describe import describe
from engine.gm.closure_rules.lexicon import Hit, Words, matcher, words
from engine.gm.closure_rules.text import Doc
from engine.gm.mentions import fold
from engine.gm.world import GameMaster, Npc

PEOPLE = ("npc", "pc", "person", "you")
_HAN = re.compile(r"[\u3400-\u9fff]")
_CACHE: OrderedDict[tuple[int, str], tuple[GameMaster, EntityIndex]] = OrderedDict()


@dataclass(frozen=True, slots=True)
class Ref:
    """An entity: ``kind`` npc, pc, item, place, point, hidden, clue, quest, person (someone
    unnamed), animal, you; ``id`` its id in the world ("" when unnamed)."""

    kind: str
    id: str = ""

    @property
    def person(self) -> bool:
        return self.kind in PEOPLE or self.kind == "animal"


YOU = Ref("you")
COMPANION = Ref("pc", "*")  # "your companion": another player's character, whichever


@dataclass(frozen=True, slots=True)
class Mention:
    start: int
    end: int
    ref: Ref
    pronoun: str = ""  # "he", "she", "it", "they", "obj" (a clitic) when it is one


@dataclass(frozen=True)
class EntityIndex:
    """The world's names as a matcher: key ``kind:id`` → its phrases; genders by the world's
    own words ("A broad woman in a flour-dusted apron")."""

    matcher: Words
    genders: dict[str, str]
    han: tuple[str, ...] = ()  # the Chinese names, for the segmenter to keep whole


def index(gm: GameMaster, language: str) -> EntityIndex:
    key = (id(gm), language)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is gm:
        _CACHE.move_to_end(key)
        return cached[1]
    built = _build(gm, language)
    _CACHE[key] = (gm, built)
    while len(_CACHE) > 16:
        _CACHE.popitem(last=False)
    return built


def _build(gm: GameMaster, language: str) -> EntityIndex:
    book = words(language)
    lists: dict[str, list[str]] = {}

    def add(key: str, names: Iterable[str]) -> None:
        lists.setdefault(key, []).extend(_bare(n, book) for n in names if n and n.strip())

    for place in gm.locations:
        add(f"place:{place.id}", [place.name, *place.aliases])
        for point in place.points:
            add(f"point:{place.id}:{point.id}", [point.name, *point.aliases])
        for hidden in place.hidden_points:
            names = [hidden.name, _head(hidden.name, book), *hidden.aliases]
            add(f"hidden:{place.id}:{hidden.id}", names)
    for item in gm.items:
        add(f"item:{item.id}", [item.name, *item.aliases, *_heads(item.name, book)])
    for npc in gm.npcs:
        add(f"npc:{npc.id}", _npc_names(npc, book))
    for pc in gm.characters:
        parts = [p for p in pc.name.split() if len(p) > 2]  # "Ada", "Thorne": any part
        add(f"pc:{pc.id}", [pc.name, *(parts if len(parts) > 1 else [])])
    for clue in gm.clues:
        add(f"clue:{clue.id}", [clue.name])
    for quest in gm.quests:
        add(f"quest:{quest.id}", [quest.title])
    clean = {k: tuple(dict.fromkeys(v for v in vs if v)) for k, vs in lists.items()}
    known = matcher(book.language, clean)
    genders = {f"npc:{n.id}": _gender(book, n.description, n.public_description) for n in gm.npcs}
    genders |= {
        f"pc:{c.id}": _gender(book, c.public.appearance, c.full.background) for c in gm.characters
    }
    han = tuple(sorted({n for v in clean.values() for n in v if _HAN.search(n)}, key=len))
    return EntityIndex(known, genders, han[::-1])


def _npc_names(npc: Npc, book: Words) -> list[str]:
    first = npc.name.split()[0]
    names = [npc.name, *npc.aliases, *([first] if len(first) > 2 else [])]
    if npc.trade:
        names += [npc.trade, *book.trades.get(fold(npc.trade), ())]
        names += [w for t in npc.trade.split() for w in book.trades.get(fold(t), ())]
    if npc.kind == "animal":  # "the dog", "the beast": not any animal ("un gato")
        names += list(book.list("generic_animals"))
    return names


def _bare(name: str, book: Words) -> str:
    """A name without its leading article ("the old well" → "old well")."""
    parts = name.strip().split()
    if len(parts) > 1 and fold(parts[0]) in book.list("articles"):
        parts = parts[1:]
    return " ".join(parts)


def _head(name: str, book: Words) -> str:
    """A name up to its first preposition ("a loose stone in the niche" → "loose stone")."""
    words_in = _bare(name, book).split()
    cut = next((n for n, w in enumerate(words_in) if fold(w) in book.list("object_preps")), None)
    return " ".join(words_in[:cut]) if cut else ""


def _heads(name: str, book: Words) -> list[str]:
    """The words a thing goes by when its full name is not said: "coil of rope" → coil,
    "anillo de plata" → anillo, "hooded lantern" → lantern."""
    words_in = _bare(name, book).split()
    if len(words_in) < 2 or not book.spaced:
        return []
    out = [_head(name, book)]
    if book.language == "en" and not _head(name, book):
        out.append(words_in[-1])
    return [w for w in out if len(w) > 3]


def _gender(book: Words, *texts: str) -> str:
    said = fold(" ".join(texts))
    seen = re.findall(r"\w+", said) if book.spaced else list(said)
    she = sum(seen.count(fold(w)) for w in book.list("female_words"))
    he = sum(seen.count(fold(w)) for w in book.list("male_words"))
    return "f" if she > he else "m" if he > she else ""


# --- a narration's mentions -------------------------------------------------------------------


def find_mentions(doc: Doc, gm: GameMaster) -> list[Mention]:
    """Names, descriptions and resolved pronouns in order; overlaps keep the longest."""
    entities = index(gm, doc.language)
    found = [_named(h) for hs in entities.matcher.scan(doc.text, doc.tokens).values() for h in hs]
    found += [Mention(a, b, Ref("pc", ident)) for a, b, ident in describe(doc, gm)]
    found += [Mention(h.start, h.end, Ref("person")) for h in doc.of("person_nouns")]
    found += [Mention(h.start, h.end, Ref("animal")) for h in doc.of("animal_nouns")]
    found += [Mention(h.start, h.end, YOU) for h in doc.of("you")]
    found += [Mention(h.start, h.end, COMPANION) for h in doc.of("companion_nouns")]
    kept = _longest(found)
    pronouns = [
        (h, kind)
        for kind in ("he", "she", "it", "they", "obj")
        for h in doc.hits.get(f"pron_{kind}", ())
        if not any(m.start <= h.start < m.end for m in kept) and not _article(doc, h)
    ]
    return _resolve(doc, kept, sorted(pronouns, key=lambda p: p[0].start), entities)


def _article(doc: Doc, hit: Hit) -> bool:
    """Spanish "el" folds to "él", and "la", "los", "las" before a noun are articles: a
    clitic is followed by its verb ("la coges", "te lo da")."""
    if doc.language != "es":
        return False
    word = doc.text[hit.start : hit.end].lower()
    if word == "el":
        return True
    if word not in ("la", "lo", "las", "los"):
        return False
    after = hit.last
    while after < len(doc.tokens) and doc.tokens[after].fold in ("te", "me", "se", "le", "nos"):
        after += 1
    return not any(h.first == after for k in doc.words.verb_keys for h in doc.hits.get(k, ()))


def _named(hit: Hit) -> Mention:
    kind, _, ident = hit.key.partition(":")
    return Mention(hit.start, hit.end, Ref(kind, ident))


def _longest(found: list[Mention]) -> list[Mention]:
    kept: list[Mention] = []
    for m in sorted(found, key=lambda m: (-(m.end - m.start), m.start)):
        if not any(k.start < m.end and m.start < k.end for k in kept):
            kept.append(m)
    return sorted(kept, key=lambda m: m.start)


def _resolve(
    doc: Doc, named: list[Mention], pronouns: list[tuple[Hit, str]], entities: EntityIndex
) -> list[Mention]:
    out = list(named)
    for hit, kind in pronouns:
        before = [m for m in out if m.end <= hit.start]
        ref = _antecedent(doc, hit, kind, before, entities)
        if ref is None and kind in ("he", "she"):
            ref = _cataphor(doc, hit, kind, named, entities)
        if ref is None and kind in ("he", "she"):
            ref = Ref("person")  # "Él esquiva…": someone, whoever he is
        if ref is not None:
            out.append(Mention(hit.start, hit.end, ref, kind))
            out.sort(key=lambda m: m.start)
    return out


def _cataphor(
    doc: Doc, hit: Hit, kind: str, named: list[Mention], entities: EntityIndex
) -> Ref | None:
    """A pronoun with nobody before it names who comes after it in its sentence: "She
    nods, Ada does", "Before he leaves, Bruno…", "她冲你点点头——林岚…"."""
    sentence = doc.clause_at(hit.start).sentence
    want = "f" if kind == "she" else "m"
    later = [
        m.ref
        for m in named
        if m.start >= hit.end
        and m.ref.kind in ("pc", "npc")
        and doc.clause_at(m.start).sentence == sentence
        and entities.genders.get(_key(m.ref), "") in ("", want)
    ]
    return later[0] if later else None


def _antecedent(
    doc: Doc, hit: Hit, kind: str, before: list[Mention], entities: EntityIndex
) -> Ref | None:
    clause = doc.clause_at(hit.start)
    recent = [m for m in before if doc.clause_at(m.start).sentence >= clause.sentence - 2]
    if kind == "it":
        things = [m.ref for m in recent if m.ref.kind in ("item", "animal", "clue", "hidden")]
        return things[-1] if things else None
    people = [m for m in recent if m.ref.person and m.ref != YOU]
    if kind in ("he", "she"):
        want = "f" if kind == "she" else "m"
        people = [m for m in people if entities.genders.get(_key(m.ref), "") in ("", want)]
    if kind == "obj":  # a clitic ("lo", "la"): the last thing, else the last person
        things = [m.ref for m in recent if m.ref.kind in ("item", "clue", "hidden", "point")]
        if things:
            return things[-1]
    if kind == "obj":  # an object clitic is never its own clause's subject
        people = [m for m in people if doc.clause_at(m.start).index != clause.index]
    same = [m for m in people if doc.clause_at(m.start).sentence == clause.sentence]
    if same:
        return same[-1].ref
    previous = [m for m in people if doc.clause_at(m.start).sentence == clause.sentence - 1]
    pick = previous[:1] or people
    return pick[-1].ref if pick else None


def _key(ref: Ref) -> str:
    return f"{ref.kind}:{ref.id}"
