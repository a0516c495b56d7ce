"""From the full world to what the Scene Director may know (seed 003 "El Director de Escena ve:
archivos de campaña parciales sin las notas del GM, la versión pública de la hoja de personaje
jugador, resúmenes de las últimas escenas en las que los PNJs estuvieron realmente, detalles de
ubicación, los últimos recuerdos que cada PNJ podría tener, la sinopsis"; "Filtrando recuerdos
por escena"; GAME_MASTER.md SW-13, SW-16–SW-18).

``project_scene`` is the one function that reads the full block for the Scene Director. It
copies into the types of ``engine.gm.directors.public`` only what they have room for: the
perceived scene of ``engine.gm.perception`` (which never holds a secret: each NPC tells what it
would at its trust, and only *that* it keeps something back), the public sheets, each NPC's
latest memories and older ones found by the ``MemorySearch`` among its own, the scenes it
perceived (only the events it perceived in them), what it witnessed being revealed, and the
turn's engine lines that the people here perceived.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.gm.directors.knowledge import npc_knows
from engine.gm.directors.public import (
    PublicCampaign,
    PublicCharacterSheet,
    PublicLocation,
    PublicMemory,
    PublicNpcSheet,
    PublicSceneSummary,
    PublicSynopsis,
    PublicTurn,
    PublicTurnLine,
    SceneDirectorInput,
)
from engine.gm.directors.records import SceneTrack, Synopsis
from engine.gm.directors.search import MemorySearch, ranked
from engine.gm.memory import memories
from engine.gm.perception import perceive
from engine.gm.recaps import SceneRecord, perceived, scene_heading
from engine.gm.secrets import revealed_to
from engine.gm.seen import witnessed
from engine.gm.state import GMEvent, GMState
from engine.gm.views import NpcView, SceneView
from engine.gm.world import GameMaster

LATEST_MEMORIES = 6
SCENES_PER_NPC = 3
SCENE_CHARS = 600  # of one scene's summary, the newest lines kept
LINE_CHARS = 300
QUIET = ("action", "master")  # the player's words come apart; the Game Director's account never


def project_scene(
    gm: GameMaster,
    state: GMState,
    character_id: str,
    *,
    synopsis: Synopsis,
    action: str,
    events: Sequence[GMEvent],
    title: str,
    language: str,
    search: MemorySearch,
    values: Mapping[str, Any] | None = None,
) -> SceneDirectorInput:
    """Project the scene in progress for the Scene Director. ``synopsis`` is the settled one
    (its NPCs present), ``events`` this turn's, ``action`` the player's words. KeyError for an
    unknown character."""
    view = perceive(gm, state, character_id, values=values)
    track = state.directors.tracks.get(character_id)
    cast = [n for i in synopsis.npcs for n in view.npcs if n.id == i]
    before = track.first_event if track is not None else state.next_event
    query = f"{action} {synopsis.prose}"
    npcs = tuple(
        _npc(gm, state, track, n, character_id, query, search, before, language) for n in cast
    )
    witnesses = {character_id, *(n.id for n in cast)}
    return SceneDirectorInput(
        language=language,
        day=state.clock.day,
        time_of_day=state.clock.time_of_day,
        campaign=PublicCampaign(title=title, notes=gm.campaign.notes),
        character=_character(gm, state, character_id),
        others=tuple(_character(gm, state, p.id) for p in view.people),
        location=_location(view),
        npcs=npcs,
        synopsis=_synopsis(synopsis, cast),
        history=_history(track),
        turn=PublicTurn(action=action, mechanics=turn_lines(events, witnesses)),
    )


def _synopsis(synopsis: Synopsis, cast: Sequence[NpcView]) -> PublicSynopsis:
    ids = tuple(n.id for n in cast)
    return PublicSynopsis(synopsis.prose, ids, synopsis.location, synopsis.new_scene)


def turn_lines(events: Sequence[GMEvent], witnesses: set[str]) -> tuple[str, ...]:
    """The engine's lines of this turn that someone in ``witnesses`` perceived."""
    out = []
    for event in events:
        if event.kind in QUIET or not event.text:
            continue
        if any(perceived(event, w) for w in witnesses):
            out.append(event.text[:LINE_CHARS])
    return tuple(dict.fromkeys(out))


def _character(gm: GameMaster, state: GMState, character_id: str) -> PublicCharacterSheet:
    sheet, me = gm.characters_by_id[character_id], state.characters[character_id]
    hand = gm.items_by_id.get(me.in_hand or "")
    return PublicCharacterSheet(
        id=sheet.id,
        name=sheet.name,
        appearance=sheet.public.appearance,
        reputation=sheet.public.reputation,
        in_hand=hand.name if hand is not None else None,
        conditions=tuple(me.conditions),
        wounded=me.hp < me.max_hp,
    )


def _location(view: SceneView) -> PublicLocation:
    place = view.place
    return PublicLocation(
        id=place.id,
        name=place.name,
        description=place.description,
        point=place.point,
        alarm=place.alarm,
        points=tuple(f"{p.name}: {p.description}".rstrip(": ") for p in view.points),
        things=tuple(t.name for t in view.things),
        ways=tuple(f"{w.direction}: {w.to_name}" for w in view.ways),
        sounds=tuple(s.text for s in view.sounds),
    )


def _npc(
    gm: GameMaster,
    state: GMState,
    track: SceneTrack | None,
    view: NpcView,
    character_id: str,
    query: str,
    search: MemorySearch,
    before: int,
    language: str,
) -> PublicNpcSheet:
    npc = gm.npcs_by_id[view.id]
    latest, older = _memories(gm, state, npc.id, query, search)
    knows = [k.text for k in npc_knows(state.directors, track, npc.id)]
    if npc.secret is not None and revealed_to(state, npc, character_id):
        knows.insert(0, npc.secret.text)  # it told him: it may speak of it with him
    people = [gm.npcs_by_id[p].name if p in gm.npcs_by_id else p for p in npc.people]
    return PublicNpcSheet(
        id=npc.id,
        name=npc.name,
        label=view.label,
        name_known=view.name_known,
        trade=npc.trade,
        looks=npc.public_description,
        manner=npc.description,
        motivation=npc.motivation,
        situation=npc.situation,
        concerns=tuple(npc.concerns),
        people=tuple(people),
        point=view.point,
        down=view.down,
        trust=view.trust,
        tone=view.tone,
        tells=view.tells,
        keeps_back=tuple(w.would_tell for w in view.withholds),
        knows=tuple(dict.fromkeys(knows)),
        memories=latest,
        older_memories=older,
        scenes=_scenes(gm, state, npc.id, before, language),
    )


def _memories(
    gm: GameMaster, state: GMState, npc_id: str, query: str, search: MemorySearch
) -> tuple[tuple[PublicMemory, ...], tuple[PublicMemory, ...]]:
    """Its latest memories, and the older ones the search finds nearest to ``query``."""
    kept = memories(gm, state, npc_id)
    latest, older = kept[-LATEST_MEMORIES:], kept[:-LATEST_MEMORIES]
    found = ranked(search, query, [m.text for m in older]) if older else []

    def public(index: int, pool: Sequence[Any]) -> PublicMemory:
        memory = pool[index]
        who = gm.characters_by_id.get(memory.about)
        name = who.name if who is not None else memory.about
        return PublicMemory(memory.day, memory.importance, name, memory.text)

    return (
        tuple(public(i, latest) for i in range(len(latest))),
        tuple(public(i, older) for i in sorted(found)),
    )


def _scenes(
    gm: GameMaster, state: GMState, npc_id: str, before: int, language: str
) -> tuple[PublicSceneSummary, ...]:
    """The latest scenes before ``before`` that ``npc_id`` was in, each told through the events
    it perceived (seed 003: "resúmenes de las últimas escenas en las que los PNJs estuvieron
    realmente")."""
    runs: list[list[GMEvent]] = []
    for event in state.events:
        if (
            event.id >= before
            or not perceived(event, npc_id)
            or not _said(gm, event, npc_id, language)
        ):
            continue
        key = (event.location, event.day, event.time_of_day)
        last = runs[-1][-1] if runs else None
        if last is not None and (last.location, last.day, last.time_of_day) == key:
            runs[-1].append(event)
        else:
            runs.append([event])
    out = []
    for run in runs[-SCENES_PER_NPC:]:
        first = run[0]
        record = SceneRecord(first.location, first.day, first.time_of_day, tuple(run))
        lines: list[str] = []
        size = 0
        for event in reversed(run):
            line = " ".join(_said(gm, event, npc_id, language).split())[:LINE_CHARS]
            size += len(line)
            if lines and size > SCENE_CHARS:
                break
            lines.insert(0, line)
        out.append(PublicSceneSummary(scene_heading(gm, record, language), tuple(lines)))
    return tuple(out)


def _said(gm: GameMaster, event: GMEvent, npc_id: str, language: str) -> str:
    """What the NPC perceived of an event (``engine.gm.seen``): a player's typed input never,
    only what he said aloud; the others' text and the words of their speech bubbles."""
    return " ".join(witnessed(gm, npc_id, event, language)).strip()


def _history(track: SceneTrack | None) -> tuple[PublicTurnLine, ...]:
    if track is None:
        return ()
    return tuple(PublicTurnLine(t.input, t.narration, tuple(t.mechanics)) for t in track.turns)
