"""Space tools (seed 001 "Espacio: moverse, descubrir un punto oculto"; "El máster no mueve a
nadie sin tool").

``move_character`` moves the acting character (through the engine's own ``go``: an existing,
unlocked exit or a point of the place, travel time and hooks included) or an NPC (along a way
out of where it is, or to a point there). It never moves another player's character: only that
player does. ``discover_hidden_point`` is a hidden search roll; what the roll reaches is found,
and nothing undiscovered is ever named, not even in a refusal.
"""

from __future__ import annotations

from engine.gm.phrasebook import phrasebook
from engine.gm.scene import EngineMove, Scene
from engine.gm.space import go, unknown_way
from engine.gm.state import PendingCheck, npc_place
from engine.gm.tools import refs
from engine.gm.tools.base import (
    Args,
    Tool,
    ToolError,
    ToolOutcome,
    book,
    can_act,
    choice,
    fail,
    label,
    log,
    marks,
    opt,
    params,
    place_label,
    text,
)
from engine.gm.tools.dice import no_roll_waiting, roll_now
from engine.gm.words import lookup, match_names, normalize, strip_fillers
from engine.gm.world import Exit, Npc, Place, Point


def move_character(scene: Scene, args: Args) -> ToolOutcome:
    who, to = opt(args, "who"), str(args["to"])
    ident = _mover(scene, who)
    if ident in scene.gm.npcs_by_id:
        return _move_npc(scene, scene.gm.npcs_by_id[ident], to)
    if ident != scene.character_id:
        name = scene.gm.characters_by_id[ident].name
        raise fail(scene, "not_your_player", "other-player", name=name)
    can_act(scene)
    moved = go(EngineMove("go", _target(scene, to), scene.lex.language, to), scene)
    if moved.kind != "engine":
        unknown = refs.unknown_place(scene, to)  # its name, from the master, is not repeated
        reason = unknown_way(scene).narration if unknown else moved.narration
        raise fail(scene, "cannot_go", "no-way", reason=reason)
    result = ToolOutcome(
        True, {"done": moved.narration}, events=moved.events, changes=dict(moved.changes)
    )
    result.result["location"] = scene.location.name
    return result


def _mover(scene: Scene, who: str | None) -> str:
    """The character (any player's, to refuse it by name) or any NPC: one elsewhere may be
    moved too, say to walk in here."""
    try:
        return refs.character(scene, who)
    except ToolError:
        return refs.npc_known(scene, str(who)).id


def _target(scene: Scene, to: str) -> str:
    """The words ``go`` reads: a place's or point's name for an id, else the text itself."""
    if to in scene.gm.locations_by_id:
        return normalize(scene.place_name(to))
    point = next((p for p in scene.points() if p.id == to), None)
    if point is not None:
        return normalize(point.name)
    return strip_fillers(scene.lex, normalize(to))


def _move_npc(scene: Scene, npc: Npc, to: str) -> ToolOutcome:
    """Along a way out of where the NPC is, or to a point there. What it says names the
    destination only to those who know it (the acting character, the witnesses)."""
    place = npc_place(scene.gm, scene.state, npc)
    if place is None:
        raise _no_way(scene, npc, to)
    origin = scene.gm.locations_by_id[place.location]
    way = _npc_way(scene, origin.id, to)
    point = None if way is not None else _npc_point(scene, origin.id, to)
    if way is None and point is None:
        raise _no_way(scene, npc, to)
    after = Place(location=way.to, point=None) if way else Place(location=origin.id, point=point)
    scene.state.npc_places[npc.id] = after
    seen = list(dict.fromkeys([*scene.witnesses(origin.id), *scene.witnesses(after.location)]))
    spot = next((p.name for p in origin.points if p.id == point), None)
    readers = [scene.character_id, *seen]
    world = phrasebook(scene.world_lex.language)
    event = log(
        scene,
        "npc-move",
        "ev_npc_move",
        location=origin.id,
        seen_by=seen,
        data={"npc": npc.id, "to": after.model_dump(mode="json", exclude_none=True)},
        npc=npc,
        place=spot or place_label(scene, after.location, readers, world),
    )
    change = {npc.id: after.model_dump(mode="json", exclude_none=True)}
    where = spot or place_label(scene, after.location)
    words = book(scene)
    done = words.tidy(words.t("npc_moved", npc=label(scene, npc), place=where))
    return ToolOutcome(True, {"done": done}, events=[event], changes={"npcPlaces": change})


def _no_way(scene: Scene, npc: Npc, to: str) -> ToolError:
    """The refusal; it repeats where the master sent the NPC unless that names a place the
    character has not discovered."""
    if refs.unknown_place(scene, to):
        return fail(scene, "npc_way_unknown", "no-way", npc=label(scene, npc))
    return fail(scene, "npc_way", "no-way", npc=label(scene, npc), ref=to)


def _npc_way(scene: Scene, origin: str, to: str) -> Exit | None:
    """An open way out of ``origin`` by direction, destination id or name (none hidden)."""
    location = scene.gm.locations_by_id[origin]
    opened = set(scene.state.unlocked)
    ways = [
        e
        for e in location.exits
        if not e.hidden and (not e.locked or f"{origin}>{e.direction}" in opened)
    ]
    direction = lookup(scene.lex, normalize(to), scene.lex.directions) or to
    for way in ways:
        if direction in (way.direction, way.to):
            return way
    names = [(w.direction, _place_names(scene, w.to)) for w in ways]
    found = match_names(scene.lex, to, names)
    return next((w for w in ways if [w.direction] == found), None)


def _place_names(scene: Scene, location_id: str) -> list[str]:
    place = scene.gm.locations_by_id[location_id]
    return [place.name, *place.aliases]


def _npc_point(scene: Scene, origin: str, to: str) -> str | None:
    """A point of ``origin`` (of the hidden ones, only those the character has found)."""
    location = scene.gm.locations_by_id[origin]
    points: list[Point] = list(location.points)
    if origin == scene.me.location:
        points = scene.points()
    if any(p.id == to for p in points):
        return to
    found = match_names(scene.lex, to, [(p.id, [p.name, *p.aliases]) for p in points])
    return found[0] if len(found) == 1 else None


def discover_hidden_point(scene: Scene, args: Args) -> ToolOutcome:
    can_act(scene)
    no_roll_waiting(scene)
    done = marks(scene)
    if "search" in done:
        raise fail(scene, "searched_already", "once-per-turn")
    done.append("search")
    check = opt(args, "check") or "investigation"
    pending = PendingCheck.model_validate(
        {
            "verb": "search",
            "check": check,
            "dc": 10,
            "text": opt(args, "where") or "",
            "language": scene.lex.language,
            "hidden": True,
        }
    )
    outcome = roll_now(scene, pending)
    found = outcome.changes.get("discovered", [])
    outcome.result["found"] = [_found_name(scene, key) for key in found]
    return outcome


def _found_name(scene: Scene, key: str) -> dict[str, str]:
    if ">" in key:
        where, direction = key.split(">", 1)
        way = next(e for e in scene.gm.locations_by_id[where].exits if e.direction == direction)
        name = scene.lex.name("directions", direction)
        return {"way": name, "to": place_label(scene, way.to)}
    where, point_id = key.split(":", 1)
    point = next(p for p in scene.gm.locations_by_id[where].hidden_points if p.id == point_id)
    return {"point": point.name, "description": point.description}


TOOLS = [
    Tool(
        "move_character",
        "Move someone: the acting character (through an existing, unlocked way out, or to a "
        "point of the place; the engine applies travel time) or an NPC (along a way out of "
        "where it is, or to a point there). Never another player's character.",
        params(
            ("to",),
            who=text("Who moves: 'me' (default) or an NPC's id or name.", 80),
            to=text("Where: a direction, a place reached by a way out, or a point.", 120),
        ),
        move_character,
    ),
    Tool(
        "discover_hidden_point",
        "Search the place with a hidden roll: hidden points and ways whose difficulty the roll "
        "reaches are found. Once per turn.",
        params(
            check=choice("investigation (default) or perception.", ["investigation", "perception"]),
            where=text("What he searches, in a few words.", 120),
        ),
        discover_hidden_point,
    ),
]
