"""Who and what a short text refers to, by name or by what it is (seed 001 "Acciones sugeridas":
"cambiarlo por lo que es («el perro») contaría lo que no sabe"; issue 34 §4).

Words are compared through ``engine.gm.language`` (Snowball stems in English and Spanish, jieba
words in Chinese), so "the dogs", "la perra" and "那条狗" all reach the NPC whose trade is "stray
dog", "perro callejero" or "流浪狗". What an NPC is, without its name, is said by its
**descriptors**: the head of its trade ("dog" of "stray dog", "perro" of "perro callejero", 狗 of
流浪狗) after an article or a demonstrative, the whole trade anywhere, the everyday synonyms the
grammar lists for a head ("mutt", "chucho", 狗狗) and, for an animal, the words of its kind
("animal", "bestia", 动物).

A descriptor tells the player something only when he could not know it: ``kind_leaks`` names the
NPCs a text describes whom the character has not seen here, who keep no fixed place (those go by
trade, seed 001), whom he did not know before play, and whose descriptor he never read in what
he perceived (this turn's narration, the events he saw or heard, his journal). A descriptor any
other NPC he does know shares is no leak: "the dog" may be the one in front of him.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.gm.language import code, content, grammar, is_word_zh, stem, stems, tokens
from engine.gm.mentions import fold
from engine.gm.scene import Scene
from engine.gm.world import GameMaster, Npc

_DIMINUTIVES = ("it", "ill", "ic", "cit", "ecit", "in")  # Spanish: perrito, perrillo
_HAN = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Entity:
    """Something of the world a text can name: ``ref`` is "npc:ash", "item:rope"…"""

    ref: str
    names: tuple[tuple[str, ...], ...]  # each name's content stems


def names(gm: GameMaster) -> tuple[str, ...]:
    """The NPCs' names and aliases: what Chinese segmentation keeps whole (jieba's dictionary
    does not hold 米莎; it does hold 木板 and 灯塔, so things and places are left to it)."""
    return tuple(dict.fromkeys(w for n in gm.npcs for w in [n.name, *n.aliases] if w.strip()))


def entities(gm: GameMaster, language: str | None) -> list[Entity]:
    """The world's NPCs, items, places and points with their names' stems in ``language``."""
    lang = code(language)
    keep = names(gm)
    found: list[tuple[str, Sequence[str]]] = [
        *((f"npc:{n.id}", [n.name, *n.aliases]) for n in gm.npcs),
        *((f"item:{i.id}", [i.name, *i.aliases]) for i in gm.items),
        *((f"place:{p.id}", [p.name, *p.aliases]) for p in gm.locations),
    ]
    for place in gm.locations:
        for point in [*place.points, *place.hidden_points]:
            known_as = [point.name, _head_phrase(point.name, lang), *point.aliases]
            found.append((f"point:{place.id}:{point.id}", known_as))
    out = []
    for ref, called in found:
        said = [n for n in called if len(n.strip()) >= (2 if _HAN.search(n) else 3)]
        stemmed = tuple(t for t in (tuple(content(n, lang, keep)) for n in said) if t)
        out.append(Entity(ref, stemmed))
    return out


def _head_phrase(name: str, lang: str) -> str:
    """A descriptive name's own thing, before what places it: "a trapdoor under the rug" →
    "a trapdoor", "una piedra bajo el altar" → "una piedra", 一块松动的木板 → 木板."""
    words = tokens(name, lang)
    if lang == "zh":
        return words[-1] if words else ""
    places = grammar(lang).words("prepositions")
    cut = next((i for i, w in enumerate(words) if i > 0 and w in places), len(words))
    return " ".join(words[:cut])


def refers(words: Iterable[str], known: Sequence[Entity]) -> set[str]:
    """The refs of ``known`` one of whose names has all its stems among ``words``."""
    have = set(words)
    return {e.ref for e in known if any(all(w in have for w in name) for name in e.names)}


@dataclass(frozen=True)
class Mark:
    """One way to say what an NPC is: a head word (a stem), said after an article or a
    demonstrative ("the dog", "al perro"; in Chinese anywhere: 那条狗, 小狗), or the whole trade
    anywhere ("stray dog"). "Warm your hands" does not describe the stable hand."""

    head: str
    whole: tuple[str, ...] = ()


def descriptors(npc: Npc, language: str | None) -> tuple[Mark, ...]:
    """What ``npc`` is: its trade (whole, and its head) and, for an animal, its kind's words."""
    lang = code(language)
    kinds = grammar(lang).table("kinds") or {}
    out = [Mark(stem(w, lang)) for w in kinds.get(npc.kind, [])]
    trade = tuple(content(npc.trade, lang))
    heads = _heads(npc, trade, lang)
    out += [Mark(head, trade) for head in heads]
    out += [Mark(stem(w, lang)) for w in _synonyms(heads, lang)]
    return tuple(out)


def _synonyms(heads: Sequence[str], lang: str) -> list[str]:
    """The grammar's everyday synonyms of a trade's head ("mutt", "chucho", 狗狗 for a dog)."""
    table = grammar(lang).table("synonyms") or {}
    return [w for key, words in table.items() if stem(key, lang) in heads for w in words]


def _heads(npc: Npc, trade: tuple[str, ...], lang: str) -> list[str]:
    """The trade's head: English's last word ("stray dog"); Spanish's first, or its last too
    when no preposition binds them ("viejo marinero", but not "capitana del puerto"); the
    Chinese last word, and its own head (狗 of 流浪狗, 水手 of 老水手; an animal's species is
    its last character: 猫 of 船猫)."""
    if not trade:
        return []
    if lang == "en":
        return [trade[-1]]
    if lang == "es":
        bound = set(tokens(npc.trade, lang)) & grammar(lang).words("genitives")
        return [trade[0]] if bound or len(trade) == 1 else [trade[0], trade[-1]]
    last = trade[-1]
    heads = [last]
    for cut in range(len(last) - 1, 0, -1):
        if len(last) > 2 and is_word_zh(last[:cut]) and is_word_zh(last[cut:]):
            heads.append(last[cut:])
            break
    if npc.kind == "animal" and len(last) >= 2:
        heads.append(last[-1])
    return list(dict.fromkeys(heads))


def described(
    text: str, marks: Sequence[Mark], language: str | None, keep: Sequence[str] = ()
) -> list[Mark]:
    """The marks ``text`` uses to say what someone is (``keep``: the world's ``names``)."""
    lang = code(language)
    words = tokens(text, lang, keep)
    roots = [stem(w, lang) for w in words]
    return [mark for mark in marks if _uses(words, roots, mark, lang)]


def _uses(words: Sequence[str], roots: Sequence[str], mark: Mark, lang: str) -> bool:
    if len(mark.whole) > 1 and all(w in roots for w in mark.whole):
        return True
    return any(
        _same(r, mark.head, lang) and _determined(words, i, lang) for i, r in enumerate(roots)
    )


def mentioned(
    text: str, marks: Sequence[Mark], language: str | None, keep: Sequence[str] = ()
) -> bool:
    """Whether ``text`` says any mark's head at all (what he read: "a grey dog watches")."""
    lang = code(language)
    roots = stems(text, lang, keep)
    return any(_same(r, m.head, lang) for m in marks for r in roots)


def _determined(words: Sequence[str], index: int, lang: str) -> bool:
    """An article or a demonstrative within the two words before (Chinese: always)."""
    if lang == "zh":
        return True
    before = grammar(lang).words("articles")
    return any(w in before for w in words[max(0, index - 3) : index])


def _same(word: str, mark: str, lang: str) -> bool:
    if word == mark:
        return True
    if lang == "es" and len(mark) >= 3 and word.startswith(mark):
        return word[len(mark) :] in _DIMINUTIVES
    if lang == "zh" and len(mark) == 1 and len(word) == 2:
        return word.endswith(mark)  # 小狗, 狗狗, 黑狗
    return False


def kind_leaks(scene: Scene, text: str, heard: str = "") -> list[str]:
    """The NPCs ``text`` describes that the character cannot know to be that ("Buscar al perro"
    when Ceniza is a dog he never saw nor read of); ``heard`` is what he was just told."""
    lang, keep = scene.lex.language, names(scene.gm)
    used: dict[str, list[tuple[str, Mark]]] = {}
    for npc in scene.gm.npcs:
        for mark in described(text, descriptors(npc, lang), lang, keep):
            used.setdefault(mark.head, []).append((npc.id, mark))
    leaks: list[str] = []
    if not used:
        return leaks
    read = _Read(scene, heard, keep)  # the log is read only when a kind word was used
    for pairs in used.values():
        npcs = [scene.gm.npcs_by_id[i] for i, _ in pairs]
        if any(_kind_known(scene, n) for n in npcs) or read.has(pairs[0][1], lang):
            continue
        leaks += [i for i, _ in pairs if i not in leaks]
    return leaks


def _kind_known(scene: Scene, npc: Npc) -> bool:
    """He sees it here, it keeps a fixed place, or he knew it before play."""
    if npc.fixed_place is not None or any(n.id == npc.id for n in scene.npcs()):
        return True
    sheet = scene.gm.characters_by_id.get(scene.character_id)
    return sheet is not None and npc.id in sheet.known_names


class _Read:
    """What the character has read: ``heard``, the events he perceived, his journal. Folded
    once; stemmed only where a descriptor's letters occur (a long log is not re-stemmed)."""

    def __init__(self, scene: Scene, heard: str, keep: Sequence[str]) -> None:
        self.keep = keep
        me = scene.character_id
        texts = [heard]
        texts += [e.text for e in scene.state.events if me in e.seen_by or me in e.heard_by]
        texts += [f"{j.title} {j.text}" for j in scene.me.journal]
        self.texts = [t for t in texts if t]
        self.folded = [fold(t) for t in self.texts]

    def has(self, mark: Mark, lang: str) -> bool:
        probe = mark.head if lang == "zh" else mark.head[: max(3, len(mark.head) - 1)]
        for text, folded in zip(self.texts, self.folded, strict=True):
            if probe in folded and mentioned(text, [mark], lang, self.keep):
                return True
        return False
