"""Suggested actions and what a character has heard of (seed 001 "Acciones sugeridas": "No
adelantan lo que el jugador no sabe … A quien tiene sitio fijo y no conoce, por su oficio";
decision 17: "a character knows a name once it was delivered to him … a name just delivered
counts as known").

``filter_suggestions`` is the leak filter, applied to the live master's buttons and to the
offline ones: a button naming someone the player has never heard of and who has no fixed place
is dropped, even if the master knows the name; a name just said to him stays verbatim; someone
with a fixed place he does not know is named by trade ("Ask the innkeeper"). A hidden point he
has not found, or a place he does not know, is never named either. Issue 34 §4 adds, through the
language layer (``engine.gm.language``): a plan is dropped (``engine.gm.tense``: "Mañana iré al
templo", "Tomorrow I'll…", "明天我去…"); a button that says what an unknown NPC is ("Buscar al
perro" when the dog is Ceniza and he never saw nor read of a dog: ``engine.gm.referents``) is
dropped; near-duplicates are merged ("Buscar al perro" next to "Buscar a Ceniza", "Ask about the
chalice" next to "Ask about the missing chalice": the same things referred to, at most one other
word), the one that names kept. ``offline_suggestions`` draws 2–3 buttons from the character
(class, traits, what is in his hand) and from what just happened, never plans.
``learn_names`` records the names a narration delivers.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from engine.gm.acquaintance import learn, said_names
from engine.gm.language import content, grammar
from engine.gm.mentions import fold, mentions, spans
from engine.gm.phrasebook import Phrasebook, phrasebook
from engine.gm.referents import (
    Entity,
    described,
    descriptors,
    entities,
    kind_leaks,
    names,
    refers,
)
from engine.gm.scene import Scene
from engine.gm.tense import plan_marker
from engine.gm.words import LANGUAGES
from engine.gm.world import Npc

MAX_SUGGESTIONS = 4
MAX_CHARS = 120


def _names(npc: Npc) -> list[str]:
    return [npc.name, *(a for a in npc.aliases if len(a) >= 3)]


def names_in(scene: Scene, text: str) -> list[str]:
    """The NPCs whose name ``text`` says: the full name anywhere, an alias as a capitalised word
    (a proper name, not the common word an alias may also be)."""
    spaced = scene.world_lex.spaced and scene.lex.spaced  # names may be in either (localize)
    out = []
    for npc in scene.gm.npcs:
        if mentions(text, npc.name, spaced) or any(
            _capitalised(text, alias, spaced) for alias in npc.aliases if len(alias) >= 3
        ):
            out.append(npc.id)
    return out


def _capitalised(text: str, alias: str, spaced: bool) -> bool:
    if not spaced:
        return mentions(text, alias, spaced)
    return any(text[start].isupper() for start, _ in spans(text, alias, spaced))


def learn_names(
    scene: Scene,
    text: str,
    characters: Iterable[str],
    *,
    only: Collection[str] | None = None,
) -> dict[str, list[str]]:
    """Add the NPC names ``text`` delivers to each of ``characters`` (the player characters
    who perceived it); returns what each learnt. ``only``: the NPC ids whose names it can
    deliver (a player's words: the names his character knows; a guess teaches nobody). A
    player character's name said there is learnt too (issue 33 §5, ``engine.gm.acquaintance``)."""
    said = [n for n in names_in(scene, text) if only is None or n in only]
    pcs = said_names(scene.gm, text, scene.world_lex.language)
    learnt: dict[str, list[str]] = {}
    for who in characters:
        sheet = scene.state.characters.get(who)
        if sheet is None:
            continue
        for other in pcs if only is None else [p for p in pcs if p in only]:
            learn(scene.state, who, other)
        new = [n for n in said if n not in sheet.known_names]
        sheet.known_names.extend(new)
        if new:
            learnt[who] = new
    return learnt


def filter_suggestions(
    suggestions: Sequence[str], scene: Scene, just_named: Collection[str], *, heard: str = ""
) -> list[str]:
    """The suggestions that leak nothing and plan nothing, NPCs without a known name named by
    trade; at most four, near-duplicates merged. ``just_named`` holds names (or NPC ids) said to
    him this turn; ``heard`` is the text he was just told (a kind word it says is no leak)."""
    words = phrasebook(scene.lex.language)
    fresh = {fold(n) for n in just_named}
    world, keep = entities(scene.gm, scene.lex.language), names(scene.gm)
    kept: list[tuple[str, _Key]] = []
    for raw in suggestions:
        text = " ".join(str(raw).split())[:MAX_CHARS]
        if not text or plan_marker(text, scene.lex.language):
            continue
        if _names_hidden_place(scene, world, keep, text):
            continue
        if kind_leaks(scene, text, heard):
            continue
        shown = _without_unknown_names(scene, words, text, fresh)
        if shown:
            _merge(kept, shown, _key(scene, world, keep, shown))
    return [text for text, _ in kept][:MAX_SUGGESTIONS]


@dataclass(frozen=True)
class _Key:
    """What a button is about: the things it refers to and its other words' stems."""

    refs: frozenset[str]
    rest: frozenset[str]
    by_kind: bool  # someone referred to by what it is, not by name


def _key(scene: Scene, world: list[Entity], keep: Sequence[str], text: str) -> _Key:
    lang = scene.lex.language
    words = content(text, lang, keep)
    refs = refers(words, world)
    named = {w for e in world if e.ref in refs for name in e.names for w in name}
    kinds: set[str] = set()
    for npc in scene.gm.npcs:
        marks = described(text, descriptors(npc, lang), lang, keep)
        if marks and f"npc:{npc.id}" not in refs:
            refs.add(f"npc:{npc.id}")
            kinds.update(w for m in marks for w in (m.head, *m.whole))
    rest = frozenset(w for w in words if w not in named and w not in kinds)
    return _Key(frozenset(refs), rest, bool(kinds))


def _merge(kept: list[tuple[str, _Key]], text: str, key: _Key) -> None:
    """Add ``text`` unless it repeats one kept: the same things, at most one other word. Of two
    repeats the one that names stays, in the first one's place."""
    for index, (_, other) in enumerate(kept):
        if key.refs != other.refs or not _close(key.rest, other.rest):
            continue
        if not (key.rest & other.rest or key.refs):
            continue
        if other.by_kind and not key.by_kind:
            kept[index] = (text, key)
        return
    kept.append((text, key))


def _close(one: frozenset[str], other: frozenset[str]) -> bool:
    """One word apart, or one inside the other with at most two more ("Ask for a room" and
    "Ask for a room to spend the night")."""
    small, large = sorted((one, other), key=len)
    return len(one ^ other) <= 1 or (small <= large and len(large - small) <= 2)


def _without_unknown_names(scene: Scene, words: Phrasebook, text: str, fresh: set[str]) -> str:
    """``text`` with unknown fixed-place NPCs named by trade, or "" when it must go."""
    spaced = scene.lex.spaced
    for npc in scene.gm.npcs:
        found = [n for n in _names(npc) if mentions(text, n, spaced)]
        if not found or npc.id in scene.me.known_names:
            continue
        if npc.id in fresh or any(fold(n) in fresh for n in [npc.name, *npc.aliases]):
            continue
        if npc.fixed_place is None or not npc.trade:
            return ""
        text = _by_trade(words, text, found, npc.trade, spaced)
    return text


def _by_trade(words: Phrasebook, text: str, names: list[str], trade: str, spaced: bool) -> str:
    phrase = words.trade_name(trade)
    articles = grammar(words.language).words("articles")
    for name in sorted(names, key=len, reverse=True):
        for start, end in reversed(spans(text, name, spaced)):
            before = text[:start].split()[-1:]
            said = trade if before and fold(before[0]) in articles else phrase  # "al Padre X"
            text = text[:start] + said + text[end:]
    return words.tidy(text)


def _names_hidden_place(scene: Scene, world: list[Entity], keep: Sequence[str], text: str) -> bool:
    """Whether ``text`` names a hidden point he has not found (by name or alias, in any
    inflection), or a place he does not know (by its name)."""
    spaced, here, found = scene.lex.spaced, scene.location, set(scene.me.discovered)
    near = {e.to for e in scene.exits()} | set(scene.me.known_places) | {here.id}
    hidden = {f"{p.id}:{h.id}" for p in scene.gm.locations for h in p.hidden_points}
    words = content(text, scene.lex.language, keep)
    for ref in refers(words, world):
        if ref.partition(":")[2] in hidden and ref.partition(":")[2] not in found:
            return True
    return any(  # a place by its name (an alias such as "the road" may be any road)
        mentions(text, place.name, spaced) or _said(content(place.name, scene.lex.language), words)
        for place in scene.gm.locations
        if place.id not in near
    )


def _said(name: list[str], words: list[str]) -> bool:
    return bool(name) and set(name) <= set(words)


# --- offline ------------------------------------------------------------------------------------


def offline_suggestions(scene: Scene, last_action: str, rng: random.Random) -> list[str]:
    """Two or three suggestions without a model: a reaction to what just happened first, then
    what the character's class, traits or hand suggest, then a way on; leak-filtered."""
    words = phrasebook(scene.lex.language)
    reactions = _reactions(scene, words, last_action)
    own = _from_character(scene, words)
    rng.shuffle(own)
    ways = [
        scene.lex.t("suggest_go", direction=scene.lex.name("directions", e.direction))
        for e in scene.exits()
        if not e.locked
    ]
    pool = [*reactions[:1], *own[:1], *reactions[1:2], *own[1:2], *ways[:1]]
    wanted = 3 if rng.random() < 0.5 else 2
    picked = filter_suggestions(pool, scene, ())[:wanted]
    for filler in (scene.lex.t("suggest_look"), scene.lex.t("suggest_wait")):
        if len(picked) < 2 and filler.casefold() not in (p.casefold() for p in picked):
            picked.append(filler)
    return picked


def _label(scene: Scene, npc: Npc) -> str:
    if npc.id in scene.me.known_names or not npc.trade:
        return npc.name
    return phrasebook(scene.lex.language).trade_name(npc.trade)


def _reactions(scene: Scene, words: Phrasebook, last_action: str) -> list[str]:
    """Reactions to what just happened: someone down, someone he spoke to, someone here."""
    out: list[str] = []
    people = scene.npcs()
    down = [n for n in people if scene.state.npc_hp.get(n.id, n.hp) <= 0]
    traits = _keys(scene)
    if down:
        order = ["search_body", "tend_body"] if {"rogue", "greedy"} & traits else []
        order = order or (["pray_for", "tend_body"] if {"cleric", "devout"} & traits else [])
        for key in order or ["tend_body", "search_body"]:
            out.append(words.tidy(words.t(key, npc=_label(scene, down[0]))))
    spoken = [
        n
        for n in people
        if any(
            mentions(last_action, x, scene.lex.spaced)
            for x in [n.name, *n.aliases, *([n.trade] if n.trade else [])]
        )
    ]
    for npc in spoken[:1]:
        out.append(words.tidy(words.t("keep_talking", npc=_label(scene, npc))))
    awake = [n for n in people if n not in down and n not in spoken]
    if awake and not spoken:
        out.append(words.tidy(words.t("talk_to", npc=_label(scene, awake[0]))))
    return out


def _keys(scene: Scene) -> set[str]:
    """The character's class and traits, read through the phrasebook's synonyms."""
    sheet = scene.gm.characters_by_id[scene.character_id].full
    synonyms: dict[str, object] = {}
    for code in LANGUAGES:
        synonyms.update(phrasebook(code).table("synonyms"))
    keys = set()
    for word in [sheet.character_class, *sheet.traits]:
        folded = fold(word.strip())
        keys.add(str(synonyms.get(folded, folded)))
    return keys


def _from_character(scene: Scene, words: Phrasebook) -> list[str]:
    out: list[str] = []
    table = words.table("by_key")
    for key in sorted(_keys(scene)):
        out += [str(x) for x in table.get(key, [])]
    hand = scene.gm.items_by_id.get(scene.me.in_hand or "")
    if hand is not None:
        out.append(words.t("use_hand", item=hand.name))
    return out
