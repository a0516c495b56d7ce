"""Scenes of a game-master session and what they leave behind (seed 003 "al final de la escena,
las escenas se convierten en recuerdos de los PNJ", "Al final de las sesiones, las hojas de PNJ
se actualizan"; GAME_MASTER.md SW-4, SW-19; issue 13 §1).

A scene is a run of logged events one character perceived in one place at one time of day: it
ends when he leaves the place or the game clock moves on (``ended_scenes``), and the session's
end closes the one in progress. At a scene's end each NPC that perceived some of it remembers
it (``engine.gm.memory``, so the forgetting and the caps of seed 001 hold): one sentence about
the character made only of the events that NPC perceived, so no NPC remembers a scene, or a part
of one, it was not in. The scene's recap for the session memory (``engine.memory``) is made of
what the character perceived. Both read each event as that witness perceived it
(``engine.gm.seen``): another player's typed input never, an NPC by the name he knows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.gm.acquaintance import names_known
from engine.gm.memory import remember
from engine.gm.seen import witnessed
from engine.gm.state import GMEvent, GMState
from engine.gm.words import lexicon
from engine.gm.world import GameMaster
from engine.session import Message

SCENE_IMPORTANCE = 1  # a scene's memory is "minor": forgotten three game days on (seed 001)
MEMORY_CHARS = 200  # the log_event tool's limit for one memory sentence
DAY_WORDS = {"en": "day {n}", "es": "día {n}", "zh": "第{n}天"}


@dataclass(frozen=True)
class SceneRecord:
    """The events of one scene, oldest first, and where and when it took place."""

    location: str
    day: int
    time_of_day: str
    events: tuple[GMEvent, ...]
    known: tuple[str, ...] = ()  # the NPCs whose names the character knows (as it is recapped)
    places: tuple[str, ...] = ()  # and the places he knows

    @property
    def last_event(self) -> int:
        return self.events[-1].id

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.location, self.day, self.time_of_day)


def perceived(event: GMEvent, who: str) -> bool:
    """Whether ``who`` (a character or an NPC id) did, saw or heard ``event``."""
    return who == event.actor or who in event.seen_by or who in event.heard_by


def scenes_since(state: GMState, character_id: str, after_event: int = 0) -> list[SceneRecord]:
    """The scenes of the events after ``after_event`` that ``character_id`` perceived."""
    scenes: list[SceneRecord] = []
    run: list[GMEvent] = []
    me = state.characters.get(character_id)
    knew = (tuple(names_known(me)), tuple(me.known_places)) if me is not None else ((), ())
    for event in state.events:
        if event.id <= after_event or not perceived(event, character_id):
            continue
        key = (event.location, event.day, event.time_of_day)
        if run and (run[0].location, run[0].day, run[0].time_of_day) != key:
            scenes.append(_record(run, *knew))
            run = []
        run.append(event)
    if run:
        scenes.append(_record(run, *knew))
    return scenes


def _record(run: list[GMEvent], known: tuple[str, ...], places: tuple[str, ...]) -> SceneRecord:
    first = run[0]
    return SceneRecord(first.location, first.day, first.time_of_day, tuple(run), known, places)


def ended_scenes(state: GMState, character_id: str, after_event: int = 0) -> list[SceneRecord]:
    """The scenes since ``after_event`` that are over: all but the one the character is in now
    (same place, same day and time of day). An unknown character has none."""
    me = state.characters.get(character_id)
    scenes = scenes_since(state, character_id, after_event)
    if me is None or not scenes:
        return []
    now = (me.location, state.clock.day, state.clock.time_of_day)
    return scenes if scenes[-1].key != now else scenes[:-1]


def scene_heading(gm: GameMaster, scene: SceneRecord, language: str | None = None) -> str:
    """Where and when, in the world's language: "The Wayfarer's Rest · morning, day 1"."""
    lex = lexicon(language or "en")
    place = gm.locations_by_id.get(scene.location)
    name = place.name if place is not None else scene.location
    day = DAY_WORDS.get(lex.language, DAY_WORDS["en"]).format(n=scene.day)
    return f"{name} · {lex.name('times', scene.time_of_day)}, {day}"


def scene_passages(
    gm: GameMaster, scene: SceneRecord, who: str, language: str | None = None
) -> list[Message]:
    """What the character ``who`` perceived of the scene, one narration per event, for a
    summary."""
    out = []
    for event in scene.events:
        lines = witnessed(gm, who, event, language or "en", known=scene.known, places=scene.places)
        if lines:
            out.append(Message("assistant", "\n".join(lines)))
    return out


def npcs_in(gm: GameMaster, scene: SceneRecord) -> list[str]:
    """The NPCs that perceived part of the scene, in the order they first did."""
    found: dict[str, None] = {}
    for event in scene.events:
        for who in (event.actor, *event.seen_by, *event.heard_by):
            if who in gm.npcs_by_id:
                found.setdefault(who, None)
    return list(found)


def recollection(gm: GameMaster, scene: SceneRecord, npc_id: str, language: str | None) -> str:
    """The sentence ``npc_id`` keeps of the scene: its place and time, then what it perceived
    (at most ``MEMORY_CHARS`` characters)."""
    lang = language or "en"
    seen = [
        " ".join(" ".join(witnessed(gm, npc_id, e, lang)).split())
        for e in scene.events
        if perceived(e, npc_id)
    ]
    seen = [line for line in seen if line]
    text = f"{scene_heading(gm, scene, language)}: {' '.join(seen)}"
    return text if len(text) <= MEMORY_CHARS else text[: MEMORY_CHARS - 1].rstrip() + "…"


def remember_scenes(
    gm: GameMaster,
    state: GMState,
    character_id: str,
    scenes: Sequence[SceneRecord],
    language: str | None = None,
) -> dict[str, int]:
    """Write each NPC's memory of each scene, about ``character_id``; how many per NPC."""
    written: dict[str, int] = {}
    for scene in scenes:
        for npc_id in npcs_in(gm, scene):
            text = recollection(gm, scene, npc_id, language)
            remember(gm, state, npc_id, character_id, text, SCENE_IMPORTANCE)
            written[npc_id] = written.get(npc_id, 0) + 1
    return written
