"""Engine moves through space: go, go back, leave, look and a click on the map (seed 001 "ir,
salir", "clic en el tablero"; GAME_MASTER.md GM-D-5, decisions 2, 4, 5).

Going takes an exit by its direction, its destination's name or a point of the place; the
destination is described from the world's data. Travel time is the exit's (only the engine
moves the clock). A locked or unknown way is refused with the ways there are; a place the
character has not discovered is never named in a refusal ("somewhere you don't know").
"""

from __future__ import annotations

from engine.gm.hooks import fire_hooks, told
from engine.gm.locks import key_carried, open_lock, openable
from engine.gm.scene import EngineMove, MoveResult, Scene
from engine.gm.state import GMEvent, advance_clock
from engine.gm.words import lookup, match_names
from engine.gm.world import Exit, Point


def go(move: EngineMove, scene: Scene) -> MoveResult:
    """Go by direction, place name or point name; ask where when no target was given."""
    lex, target = scene.lex, move.target
    if not target:
        if not scene.exits():
            return MoveResult("refused", lex.t("no_way_out"))
        return MoveResult("ask", lex.t("ask_go", options=scene.exit_options()))
    if target in lex.back:
        return back(move, scene)
    if move.text in scene.gm.locations_by_id and not scene.knows_place(move.text):
        return unknown_way(scene)  # the master's id, never turned into a name
    direction = lookup(lex, target, lex.directions)
    if direction is not None:
        way = next((e for e in scene.exits() if e.direction == direction), None)
        if way is None:
            name = lex.name("directions", direction)
            toward = lex.name("toward", direction)
            return _refused(scene, "no_exit", direction=name, toward=toward)
        return through(scene, way)
    return _go_to_name(scene, target)


def _go_to_name(scene: Scene, target: str) -> MoveResult:
    lex, here = scene.lex, scene.location
    candidates = [(f"exit:{e.direction}", _names_of_place(scene, e.to)) for e in scene.exits()]
    candidates += [(f"point:{p.id}", [p.name, *p.aliases]) for p in scene.points()]
    candidates.append(("here", [here.name, *here.aliases]))
    found = match_names(lex, target, candidates)
    if len(found) > 1:
        return MoveResult("refused", lex.t("ambiguous", options=_option_names(scene, found)))
    if not found:
        elsewhere = [(p, _names_of_place(scene, p)) for p in scene.me.known_places]
        known = match_names(lex, target, elsewhere)
        if len(known) == 1:
            return _refused(scene, "not_adjacent", place=scene.place_name(known[0]))
        return _refused(scene, "unknown_place", target=target)
    kind, _, ident = found[0].partition(":")
    if kind == "here":
        return MoveResult("refused", lex.t("already_here", place=here.name))
    if kind == "point":
        return to_point(scene, next(p for p in scene.points() if p.id == ident))
    return through(scene, next(e for e in scene.exits() if e.direction == ident))


def _names_of_place(scene: Scene, location_id: str) -> list[str]:
    place = scene.gm.locations_by_id.get(location_id)
    return [place.name, *place.aliases] if place else [location_id]


def _option_names(scene: Scene, found: list[str]) -> str:
    names = []
    for ident in found:
        kind, _, key = ident.partition(":")
        if kind == "exit":
            way = next(e for e in scene.exits() if e.direction == key)
            names.append(scene.place_name(way.to))
        elif kind == "point":
            names.append(next(p.name for p in scene.points() if p.id == key))
        else:
            names.append(scene.location.name)
    return scene.lex.join(names)


def unknown_way(scene: Scene) -> MoveResult:
    """The refusal for a place the character has not discovered: the same whichever place it
    is, real or made up, and it never names it (issue 32)."""
    return _refused(scene, "place_unknown")


def _refused(scene: Scene, template: str, **values: str) -> MoveResult:
    options = scene.exit_options()
    if not options:
        return MoveResult("refused", scene.lex.t("no_way_out"))
    return MoveResult("refused", scene.lex.t(template, options=options, **values))


def through(scene: Scene, way: Exit) -> MoveResult:
    """Take an exit: the character, the clock and the log move; the new place is described.
    A locked way is refused, unless the character carries its key: he opens it and goes."""
    lex, origin = scene.lex, scene.location
    destination = scene.place_name(way.to)
    direction, toward = lex.name("directions", way.direction), lex.name("toward", way.direction)
    lines: list[str] = []
    events: list[GMEvent] = []
    changes: dict[str, object] = {}
    if way.locked and key_carried(scene, way) is None:  # "abajo", not "hacia el abajo" (es)
        refusal = lex.t("locked", direction=direction, toward=toward, place=destination)
        return MoveResult("refused", refusal)
    if way.locked:
        line, event, changes = open_lock(scene, way)
        lines, events = [line], [event]
    events.append(_step(scene, way, destination))
    changes["location"] = {"from": origin.id, "to": way.to}
    lines.append(lex.t("go", direction=direction, toward=toward, place=destination))
    if way.travel:
        before = scene.state.clock.model_dump(mode="json", by_alias=True)
        scene.state.clock = advance_clock(scene.state.clock, way.travel)
        after = scene.state.clock
        changes["clock"] = {"from": before, "to": after.model_dump(mode="json", by_alias=True)}
        lines.append(lex.t("travel", time=lex.name("times", after.time_of_day), day=after.day))
    events.append(scene.log("arrive", "ev_arrive", place=origin.name))
    hooks = fire_hooks(scene, "enter") + fire_hooks(scene, "time")
    events += hooks
    lines += [describe(scene, titled=False), *(told(e) for e in hooks)]  # "to X" named it
    return MoveResult("engine", " ".join(lines), events, changes, suggest(scene))


def _step(scene: Scene, way: Exit, destination: str) -> GMEvent:
    """Log the going, then move the character (who now knows the place)."""
    me, origin, wl = scene.me, scene.location, scene.world_lex
    event = scene.log(
        "go",
        "ev_go",
        direction=wl.name("directions", way.direction),
        toward=wl.name("toward", way.direction),
        place=destination,
        data={"from": origin.id, "to": way.to},
    )
    me.previous, me.location, me.point = origin.id, way.to, None
    if way.to not in me.known_places:
        me.known_places.append(way.to)
    return event


def unlock(move: EngineMove, scene: Scene) -> MoveResult:
    """Open a lock here with the key carried (``engine.gm.locks``); which one, when several,
    by its direction or where it leads."""
    lex, ways = scene.lex, openable(scene)
    if len(ways) > 1 and move.target:
        named = [
            (w.direction, [lex.name("directions", w.direction), *_names_of_place(scene, w.to)])
            for w in ways
        ]
        found = match_names(lex, move.target, named)
        ways = [w for w in ways if w.direction in found] or ways
    if not ways:
        return MoveResult("refused", lex.t("nothing_locked"))
    if len(ways) > 1:
        return MoveResult("ask", lex.t("ambiguous", options=scene.exit_options()))
    line, event, changes = open_lock(scene, ways[0])
    return MoveResult("engine", line, [event], changes, suggest(scene))


def to_point(scene: Scene, point: Point) -> MoveResult:
    me = scene.me
    before = me.point
    me.point = point.id
    event = scene.log("point", "ev_point", point=point.name, data={"point": point.id})
    narration = scene.lex.t("go_point", point=point.name)
    if point.description:
        narration += " " + point.description
    changes = {"point": {"from": before, "to": point.id}}
    return MoveResult("engine", narration, [event], changes, suggest(scene))


def back(move: EngineMove, scene: Scene) -> MoveResult:
    """Go back the way the character came, if a known exit leads there."""
    if move.target and move.target not in scene.lex.back:
        return go(EngineMove("go", move.target, move.language, move.text), scene)
    way = next((e for e in scene.exits() if e.to == scene.me.previous), None)
    if way is None:
        return MoveResult("refused", scene.lex.t("back_none"))
    return through(scene, way)


def leave(move: EngineMove, scene: Scene) -> MoveResult:
    """Leave the point the character is at, else the place: by the way named, the way out, or
    the only way; ask which when there are several."""
    lex, me, here = scene.lex, scene.me, scene.location
    if move.target and not match_names(lex, move.target, [(here.id, [here.name, *here.aliases])]):
        return go(EngineMove("go", move.target, move.language, move.text), scene)
    if me.point is not None and not move.target:
        name = scene.point_name(me.point) or me.point
        before, me.point = me.point, None
        event = scene.log("point", "ev_point", point=here.name, data={"point": None})
        changes = {"point": {"from": before, "to": None}}
        return MoveResult("engine", lex.t("leave_point", point=name), [event], changes)
    ways = [e for e in scene.exits() if not e.locked]
    out = [e for e in ways if e.direction == "out"]
    if len(out) == 1 or len(ways) == 1:
        return through(scene, (out or ways)[0])
    if not ways:
        return MoveResult("refused", lex.t("no_way_out"))
    return MoveResult("ask", lex.t("ask_leave", options=scene.exit_options()))


def look(move: EngineMove, scene: Scene) -> MoveResult:
    """Describe the place, or one thing in it: a point, an item, a person, a board, a way."""
    lex, here = scene.lex, scene.location
    around = move.target in lex.around or match_names(
        lex, move.target, [("here", [here.name, *here.aliases])]
    )
    if not move.target or around:
        event = scene.log("look", "ev_look", target=here.name)
        return MoveResult("engine", describe(scene), [event], {}, suggest(scene))
    things = _lookables(scene)
    found = match_names(lex, move.target, list(things.items()))
    if len(found) == 1:
        return look_at(scene, things[found[0]], found[0])
    if found:
        options = lex.join(things[k][0] for k in found)
        return MoveResult("refused", lex.t("ambiguous", options=options))
    options = lex.join(names[0] for names in things.values())
    return MoveResult("refused", lex.t("no_point", target=move.target, options=options))


def look_at(scene: Scene, names: list[str], key: str) -> MoveResult:
    """Describe one thing (``key`` is "point:id", "item:id", "npc:id", "board:id"…)."""
    description = _description(scene, key)
    event = scene.log("look", "ev_look", target=names[0], data={"target": key})
    template = "look_thing" if description else "nothing_special"
    narration = scene.lex.t(template, name=names[0], description=description)
    return MoveResult("engine", narration, [event])


def _description(scene: Scene, key: str) -> str:
    kind, _, ident = key.partition(":")
    gm = scene.gm
    if kind == "point":
        return next((p.description for p in scene.points() if p.id == ident), "")
    if kind == "item":
        return gm.items_by_id[ident].description
    if kind == "npc":
        return gm.npcs_by_id[ident].public_description
    if kind == "board":
        board = next(b for b in gm.boards if b.id == ident)
        return scene.lex.join(n.title for n in board.notices)
    way = next(e for e in scene.exits() if e.direction == ident)
    return scene.place_name(way.to)


def _lookables(scene: Scene) -> dict[str, list[str]]:
    """key → names of everything the character can look at here."""
    out: dict[str, list[str]] = {}
    for p in scene.points():
        out[f"point:{p.id}"] = [p.name, *p.aliases]
    for item in [*scene.items_here(), *scene.carried()]:
        out[f"item:{item.id}"] = [item.name, *item.aliases]
    for npc in scene.npcs():
        names = [scene.npc_label(npc), *([npc.trade] if npc.trade else [])]
        if npc.id in scene.me.known_names:
            names += npc.aliases
        out[f"npc:{npc.id}"] = names
    for board in scene.boards():
        out[f"board:{board.id}"] = [board.name, *board.aliases]
    for way in scene.exits():
        out[f"exit:{way.direction}"] = [scene.lex.name("directions", way.direction)]
    return out


def click(move: EngineMove, scene: Scene) -> MoveResult:
    """A click on the map: a place goes there (or looks, if it is here); a point is looked at
    (``engine.gm.moves`` sends a click on a notice board's point to ``read_board``)."""
    target = dict(move.click or {})
    if "location" in target:
        where = target["location"]
        if where == scene.location.id:
            return look(EngineMove("look", "", move.language), scene)
        way = next((e for e in scene.exits() if e.to == where), None)
        if way is None and scene.knows_place(where):
            return _refused(scene, "not_adjacent", place=scene.place_name(where))
        if way is None:
            return unknown_way(scene)
        return through(scene, way)
    point = next((p for p in scene.points() if p.id == target.get("point")), None)
    if point is None:
        options = scene.lex.join(p.name for p in scene.points())
        unknown = str(target.get("point", ""))
        return MoveResult("refused", scene.lex.t("no_point", target=unknown, options=options))
    return look_at(scene, [point.name], f"point:{point.id}")


def describe(scene: Scene, *, titled: bool = True) -> str:
    """The place as the character finds it: description, alarm, people, things, ways on;
    ``titled``: headed by its name (not after "You go west to Chapel of the Lantern.")."""
    lex, here = scene.lex, scene.location
    head = lex.t("place", name=here.name, description=here.description).strip()
    lines = [head if titled else here.description.strip()]
    alarm = scene.state.alarms.get(here.id)
    if alarm:
        lines.append(lex.t("alarm", alarm=alarm))
    people = [scene.npc_label(n) for n in scene.npcs()]
    people += [scene.pc_label(c) for c in scene.others()]  # named once met (issue 33 §5)
    if people:
        lines.append(lex.t("here_people", list=lex.join(people)))
    items = [i.name for i in scene.items_here()]
    if items:
        lines.append(lex.t("here_items", list=lex.join(items)))
    if scene.boards():
        lines.append(lex.t("here_board"))
    options = scene.exit_options()
    lines.append(lex.t("here_exits", list=options) if options else lex.t("no_way_out"))
    return " ".join(line for line in lines if line)


def suggest(scene: Scene) -> list[str]:
    """Two or three next moves from what is here: a board, a thing to take, ways on."""
    lex, out = scene.lex, []
    if scene.boards():
        out.append(lex.t("suggest_board"))
    items = scene.items_here()
    if items:
        out.append(lex.t("suggest_take", item=items[0].name))
    for way in scene.exits():
        if not way.locked and way.to != scene.me.previous:
            out.append(lex.t("suggest_go", direction=lex.name("directions", way.direction)))
    if len(out) < 2:
        out.append(lex.t("suggest_look"))
    return out[:3]
