"""Engine moves on things and time: take, drop, wait and read the notice board (seed 001
"coger, soltar, esperar"; "Los encargos del tablón entran en el Diario al leerlo («leo los
avisos», /tablon)"; decisions 2 and 4).

Items are matched by name with some tolerance; several matches list the options. Only the
engine advances the clock, and a board's notices enter the journal when it is read, never by
passing in front of it.
"""

from __future__ import annotations

from typing import Any

from engine.gm.hooks import fire_hooks, told
from engine.gm.nouns import definite
from engine.gm.scene import EngineMove, MoveResult, Scene
from engine.gm.space import suggest
from engine.gm.state import advance_clock, items_held
from engine.gm.words import lookup, match_names
from engine.gm.world import TIMES_OF_DAY, Holder, Item, JournalEntry


def _named(items: list[Item]) -> list[tuple[str, list[str]]]:
    return [(i.id, [i.name, *i.aliases]) for i in items]


def the(scene: Scene, name: str) -> str:
    """A world's noun with its article in the narration ("You take the coil of rope")."""
    return definite(name, scene.lex.language, scene.noun_language(name))


def _holder_json(holder: Holder | None) -> dict[str, Any] | None:
    return None if holder is None else holder.model_dump(mode="json", exclude_none=True)


def take(move: EngineMove, scene: Scene) -> MoveResult:
    """Take an item lying here; refuse what is not here, already carried or someone's."""
    lex, here = scene.lex, scene.items_here()
    options = lex.join(i.name for i in here)
    if not move.target:
        if not here:
            return MoveResult("refused", lex.t("nothing_to_take"))
        return MoveResult("ask", lex.t("ask_take", options=options))
    found = match_names(lex, move.target, _named(here))
    if len(found) > 1:
        names = lex.join(scene.gm.items_by_id[i].name for i in found)
        return MoveResult("refused", lex.t("ambiguous", options=names))
    if not found:
        return _not_here(move, scene, options)
    item = scene.gm.items_by_id[found[0]]
    before = scene.state.items.get(item.id)
    after = Holder(character=scene.character_id)
    scene.state.items[item.id] = after
    event = scene.log("take", "ev_take", item=item.name, data={"item": item.id})
    changes = {"items": {item.id: {"from": _holder_json(before), "to": _holder_json(after)}}}
    said = lex.t("take", item=the(scene, item.name))
    return MoveResult("engine", said, [event], changes, suggest(scene))


def _not_here(move: EngineMove, scene: Scene, options: str) -> MoveResult:
    lex, gm = scene.lex, scene.gm
    mine = match_names(lex, move.target, _named(scene.carried()))
    if len(mine) == 1:
        return MoveResult("refused", lex.t("already_have", item=gm.items_by_id[mine[0]].name))
    for npc in scene.npcs():
        theirs = [gm.items_by_id[i] for i in items_held(scene.state, "npc", npc.id)]
        owned = match_names(lex, move.target, _named(theirs))
        if len(owned) == 1:
            item = gm.items_by_id[owned[0]].name
            return MoveResult("refused", lex.t("belongs", item=item, owner=scene.npc_label(npc)))
    if not options:
        return MoveResult("refused", lex.t("no_item_none", target=move.target))
    return MoveResult("refused", lex.t("no_item", target=move.target, options=options))


def drop(move: EngineMove, scene: Scene) -> MoveResult:
    """Drop a carried item where the character stands (at its point, if it is at one)."""
    lex, me, carried = scene.lex, scene.me, scene.carried()
    if not carried:
        return MoveResult("refused", lex.t("carry_nothing"))
    options = lex.join(i.name for i in carried)
    if not move.target:
        return MoveResult("ask", lex.t("ask_drop", options=options))
    found = match_names(lex, move.target, _named(carried))
    if len(found) != 1:
        if found:
            names = lex.join(scene.gm.items_by_id[i].name for i in found)
            return MoveResult("refused", lex.t("ambiguous", options=names))
        return MoveResult("refused", lex.t("not_carried", target=move.target, options=options))
    item = scene.gm.items_by_id[found[0]]
    before = scene.state.items.get(item.id)
    after = Holder(location=me.location, point=me.point)
    scene.state.items[item.id] = after
    if me.in_hand == item.id:
        me.in_hand = None
    event = scene.log("drop", "ev_drop", item=item.name, data={"item": item.id})
    changes = {"items": {item.id: {"from": _holder_json(before), "to": _holder_json(after)}}}
    said = lex.t("drop", item=the(scene, item.name))
    return MoveResult("engine", said, [event], changes, suggest(scene))


def wait(move: EngineMove, scene: Scene) -> MoveResult:
    """Let time pass: one time of day, or until the time of day named (the next one)."""
    lex, state = scene.lex, scene.state
    until = lookup(lex, move.target, lex.times) if move.target else None
    now = TIMES_OF_DAY.index(state.clock.time_of_day)
    steps = 1
    if until is not None:
        steps = (TIMES_OF_DAY.index(until) - now) % len(TIMES_OF_DAY) or len(TIMES_OF_DAY)
    before = state.clock.model_dump(mode="json", by_alias=True)
    state.clock = advance_clock(state.clock, steps)
    after = state.clock
    time = lex.name("times", after.time_of_day)
    template = "wait_until" if until is not None else "wait"
    lines = [lex.t(template, time=time, day=after.day)]
    world_time = scene.world_lex.name("times", after.time_of_day)
    events = [scene.log("wait", "ev_wait", time=world_time)]
    hooks = fire_hooks(scene, "time")
    events += hooks
    people = [scene.npc_label(n) for n in scene.npcs()]
    if people:
        lines.append(lex.t("here_people", list=lex.join(people)))
    lines += [told(e) for e in hooks]
    changes = {"clock": {"from": before, "to": after.model_dump(mode="json", by_alias=True)}}
    return MoveResult("engine", " ".join(lines), events, changes, suggest(scene))


def read_board(move: EngineMove, scene: Scene) -> MoveResult:
    """Read the notice board here: its notices enter the journal (once each)."""
    lex, boards = scene.lex, scene.boards()
    if not boards:
        return MoveResult("refused", lex.t("no_board"))
    board = boards[0]
    if move.target and len(boards) > 1:
        found = match_names(lex, move.target, [(b.id, [b.name, *b.aliases]) for b in boards])
        board = next((b for b in boards if found and b.id == found[0]), board)
    event = scene.log("board", "ev_board", board=board.name, data={"board": board.id})
    if not board.notices:
        return MoveResult("engine", lex.t("board_empty", board=board.name), [event])
    me, day = scene.me, scene.state.clock.day
    known = {(j.kind, j.ref) for j in me.journal}
    added = []
    for notice in board.notices:
        if ("notice", notice.id) not in known:
            entry = JournalEntry(
                kind="notice", ref=notice.id, title=notice.title, text=notice.summary, day=day
            )
            me.journal.append(entry)
            added.append(notice.id)
    lines = [lex.t("board", board=board.name)]
    lines += [lex.t("board_line", title=n.title, summary=n.summary) for n in board.notices]
    lines.append(lex.t("board_journal"))
    changes = {"journal": {"added": added}} if added else {}
    return MoveResult("engine", "\n".join(lines), [event], changes, suggest(scene))
