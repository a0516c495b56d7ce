"""What a line said to an NPC is about, and what the NPC says of it offline (seed 001 "NPC que
conversan": slot C answers "preguntas públicas o delicadas"; "Trato": a stranger "habla de su
trabajo y de lo que sabe todo el mundo; lo delicado lo esquiva"; "El secreto, no"; issue 33 §3).

``topic_of`` finds the world's thing the line names, as the character can name it: a person (an
NPC by a name he knows or by its trade, another player's character by name), a place he knows,
a thing of the world. Names are found whole first ("the old mill", "Greta's"); else the words
are compared through ``engine.gm.language`` (stems without function words, Chinese segmented),
so "the mills", "los molinos" and "磨坊" reach one place. No phrase list: the world's own names.

``answer`` is what the NPC has for the line at its trust level, in this order: the disclosure
it tells at that level sharing most words with the line and its topic; a concern of its own
that does; then what everyone knows of the topic: the way there from here, what a person is
and where he keeps, a thing it sells or needs. Never its secret (not among its data) nor a
disclosure above the level; ``more`` says it keeps something back, for its tone to hint at it.
A hostile NPC tells nothing. People it names are named as the character knows them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache

from engine.gm.language import content, grammar
from engine.gm.memory import memories
from engine.gm.mentions import fold, mentions, spans
from engine.gm.nouns import definite
from engine.gm.phrasebook import Phrasebook, phrasebook
from engine.gm.scene import Scene
from engine.gm.talkbook import talkbook
from engine.gm.trust import rank
from engine.gm.words import LANGUAGES
from engine.gm.world import TRUST_LEVELS, Location, Npc, TrustLevel

MAX_STEPS = 4  # a longer way is "a fair way from here"
WHOLE, ALL_WORDS, SOME_WORDS = 3, 2, 1  # how a name is found in the line


@dataclass(frozen=True)
class Topic:
    kind: str  # "npc", "character", "place" or "item"
    ident: str
    label: str  # as the character calls it
    words: frozenset[str]  # its names' stems


@dataclass(frozen=True)
class Told:
    text: str  # what the NPC says of it; "" when it has nothing
    more: bool  # it keeps more back at this level


@lru_cache(maxsize=1)
def _function_words() -> frozenset[str]:
    """Every language's function words: a world's names mix languages ("capilla", "the")."""
    return frozenset(fold(w) for code in LANGUAGES for w in grammar(code).words("function"))


def _stems(text: str, language: str) -> frozenset[str]:
    """The stems that say what ``text`` is about, in ``language``, no function word of any."""
    return frozenset(content(text, language)) - _function_words()


def _found(text: str, said: frozenset[str], names: list[str], language: str) -> int:
    spaced = language != "zh"
    if any(mentions(text, name, spaced) for name in names if name.strip()):
        return WHOLE
    best = 0
    for name in names:
        words = _stems(name, language)
        if words and words <= said:
            best = max(best, ALL_WORDS)
        elif words and len(words & said) * 2 >= len(words) and words & said:
            best = max(best, SOME_WORDS)
    return best


def _candidates(scene: Scene, npc: Npc, text: str) -> list[tuple[str, str, list[str], str]]:
    """(kind, id, names, label) of everything the character could ask this NPC about. A thing
    or another character is called back by the name the line used ("the ring", "Ada"), so the
    answer never adds what the world calls it ("the silver signet ring", "Ada Thorne")."""
    out: list[tuple[str, str, list[str], str]] = []
    language = scene.lex.language
    book, said = phrasebook(language), _stems(text, language)
    for other in scene.gm.npcs:
        if other.id != npc.id:
            out.append(("npc", other.id, scene.npc_names_known(other), _who(scene, other, book)))
    for sheet in scene.gm.characters:
        names = [sheet.name, sheet.name.split()[0]]
        if sheet.id != scene.character_id:
            out.append(("character", sheet.id, names, _said_name(text, said, names, language)))
    for place in scene.gm.locations:
        if public_place(scene, place.id):
            out.append(("place", place.id, [place.name, *place.aliases], place.name))
    for item in scene.gm.items:
        names = [item.name, *item.aliases]
        named = _said_name(text, said, names, language)
        label = definite(named, language, scene.noun_language(named))
        out.append(("item", item.id, names, label))
    return out


def _said_name(text: str, said: frozenset[str], names: list[str], language: str) -> str:
    """The name the line uses: the longest found whole, else the shortest whose words it has."""
    whole = [n for n in names if n.strip() and mentions(text, n, language != "zh")]
    if whole:
        return max(whole, key=len)
    held = [n for n in names if _stems(n, language) and _stems(n, language) <= said]
    return min(held, key=len) if held else names[0]


def _who(scene: Scene, npc: Npc, book: Phrasebook) -> str:
    """An NPC as the character calls it: its name once known, else "the innkeeper"."""
    if npc.id in scene.me.known_names or not npc.trade:
        return npc.name
    return book.trade_name(npc.trade)


def topic_of(scene: Scene, npc: Npc, text: str) -> Topic | None:
    """The world's thing ``text`` (said to ``npc``) is about; None when it names none."""
    language = scene.lex.language
    for name in sorted(scene.npc_names_known(npc), key=len, reverse=True):
        for start, end in reversed(spans(text, name, language != "zh")):
            text = f"{text[:start]} {text[end:]}"  # "客栈老板娘" names her, not the inn
    said = _stems(text, language)
    best: tuple[int, Topic] | None = None
    for kind, ident, names, label in _candidates(scene, npc, text):
        score = _found(text, said, names, language)
        if score and (best is None or score > best[0]):
            words = frozenset().union(*(_stems(n, language) for n in names))
            best = (score, Topic(kind, ident, label, words))
    return best[1] if best else None


def _asked(scene: Scene, npc: Npc, text: str) -> frozenset[str]:
    """The stems of what was asked: not the NPC's own names, nor asking words ("know")."""
    language, book = scene.lex.language, talkbook(scene.lex.language)
    asking = _stems(" ".join([*book.list("speech"), *book.list("question")]), language)
    own = frozenset().union(*(_stems(n, language) for n in scene.npc_names_known(npc)))
    return _stems(text, language) - asking - own


def answer(scene: Scene, npc: Npc, level: TrustLevel, text: str, topic: Topic | None) -> Told:
    """What ``npc`` says at ``level`` of what ``text`` asks (see the module); ``more`` when it
    answered from what it tells and tells more at a higher level (never a hint of its secret)."""
    if level == "hostile":
        return Told("", False)
    language = scene.lex.language
    asked = _asked(scene, npc, text) | (topic.words if topic else frozenset())
    above = any(rank(t) > rank(level) for t in npc.disclosures)
    told = [npc.disclosures[t] for t in TRUST_LEVELS if t in npc.disclosures and t_ok(t, level)]
    fact = _fact(scene, npc, topic) if topic else ""
    for pool, more in ((list(reversed(told)), above), (npc.concerns, False)):
        shared = [(len(asked & _stems(said, language)), said) for said in pool]
        hits = [hit for hit in shared if hit[0]]
        if hits:
            said = max(hits, key=lambda hit: hit[0])[1]
            way = fact if topic is not None and topic.kind == "place" else ""
            return Told(_joined(talkbook(language), [way, said]), more)  # the way, then news
    return Told(fact, False)


def t_ok(level: TrustLevel, at: TrustLevel) -> bool:
    return rank(level) <= rank(at)


def gossip(npc: Npc, level: TrustLevel) -> str:
    """What it passes on when asked for news: the most trusted thing it tells, or a concern."""
    if level == "hostile":
        return ""
    told = [npc.disclosures[t] for t in TRUST_LEVELS if t in npc.disclosures and t_ok(t, level)]
    return told[-1] if told else (npc.concerns[0] if npc.concerns else "")


# --- what everyone knows ------------------------------------------------------------------------


def _fact(scene: Scene, npc: Npc, topic: Topic) -> str:
    book = talkbook(scene.lex.language)
    if topic.kind == "place":
        return _way(scene, topic.ident, book)
    if topic.kind == "npc":
        return _person(scene, npc, scene.gm.npcs_by_id[topic.ident], book)
    if topic.kind == "character":
        return _character(scene, npc, topic.ident, book)
    return _thing(scene, npc, topic.ident, book)


def _way(scene: Scene, place: str, book: Phrasebook) -> str:
    """The way from here to ``place`` by ways anyone sees (a hidden way stays hidden)."""
    here = scene.location.id
    if place == here:
        return book.t("fact_place_here")
    steps = _route(scene.gm.locations_by_id, here, place)
    if steps is None or len(steps) > MAX_STEPS:
        return book.t("fact_place_far")
    ways = [book.t(f"way_{d}") if book.has(f"way_{d}") else d for d in steps]
    return book.t("fact_place_route", steps=book.t("route_join").join(ways))


def _paths(places: dict[str, Location], start: str) -> dict[str, tuple[str, str] | None]:
    """Every place a way anyone sees leads to from ``start``, with the step that reached it
    first (a breadth-first walk: the shortest ways)."""
    came: dict[str, tuple[str, str] | None] = {start: None}
    queue = deque([start])
    while queue:
        at = queue.popleft()
        for way in places[at].exits if at in places else []:
            if not way.hidden and way.to not in came:
                came[way.to] = (at, way.direction)
                queue.append(way.to)
    return came


def public_place(scene: Scene, place: str) -> bool:
    """A place anyone here could name: one the character knows, or one reached from here by
    ways that are not hidden (a place behind a hidden way is never named)."""
    return scene.knows_place(place) or place in _paths(scene.gm.locations_by_id, scene.location.id)


def _route(places: dict[str, Location], start: str, goal: str) -> list[str] | None:
    """The directions of a shortest way from ``start`` to ``goal``; None when there is none."""
    came = _paths(places, start)
    if goal not in came:
        return None
    steps, at = [], goal
    while (step := came[at]) is not None:
        at, direction = step
        steps.append(direction)
    return steps[::-1]


def _person(scene: Scene, npc: Npc, other: Npc, book: Phrasebook) -> str:
    """What anyone knows of another NPC: one of its own, what he looks like, where he keeps."""
    lines = [book.t("fact_kin")] if other.id in npc.people else []
    if other.public_description:
        lines.append(other.public_description)
    elif other.trade:
        lines.append(book.t("fact_trade", trade=phrasebook(book.language).trade_name(other.trade)))
    fixed = other.fixed_place
    if fixed is not None and public_place(scene, fixed.location):
        lines.append(book.t("fact_keeps_at", place=scene.place_name(fixed.location)))
    return _joined(book, lines)


def _character(scene: Scene, npc: Npc, ident: str, book: Phrasebook) -> str:
    sheet = scene.gm.characters_by_id[ident]
    knows = ident in npc.knows or bool(memories(scene.gm, scene.state, npc.id, about=ident))
    if not knows:
        return book.t("fact_pc_unknown")
    return sheet.public.reputation or book.t("fact_pc_known")


def _thing(scene: Scene, npc: Npc, item: str, book: Phrasebook) -> str:
    """A thing it sells or needs; where a thing is, it does not say (that may be a secret)."""
    if any(s.npc == npc.id and any(e.item == item for e in s.stock) for s in scene.gm.shops):
        return book.t("fact_item_sold")
    if item in npc.needs:
        return book.t("fact_item_needed")
    return ""


def _joined(book: Phrasebook, lines: list[str]) -> str:
    gap = "" if book.language == "zh" else " "
    return gap.join(line.strip() for line in lines if line.strip())


def echo(topic: Topic, language: str) -> str:
    """The topic said back as a question ("The old mill?", "¿El molino?", "磨坊？")."""
    return talkbook(language).t("echo", topic=topic.label[:1].upper() + topic.label[1:])
