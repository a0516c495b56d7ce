"""Hooks fired by engine moves (seed 001 "dispara ganchos y memorias"; decisions 7 and 10).

A hook's trigger is entering a place or a time of day (from a day on); its effect is an event
logged where it fires, which everyone there perceives and the narration of the move carries.
A ``once`` hook fires a single time per session. The event is logged in the world's words; the
narration's own (its translation, issue 33 §3) is kept on it for the move's narration (``told``).
"""

from __future__ import annotations

from engine.gm.scene import Scene
from engine.gm.state import GMEvent, log_event, time_index
from engine.gm.world import TIMES_OF_DAY, GameClock, Hook


def fire_hooks(scene: Scene, trigger: str) -> list[GMEvent]:
    """Fire the hooks of kind ``trigger`` ("enter" or "time") due now; return their events."""
    state, fired = scene.state, []
    for hook in [*scene.gm.hooks, *state.hooks]:  # authored, then seeded in play (tools)
        if hook.trigger.type != trigger or (hook.once and hook.id in state.fired_hooks):
            continue
        if hook.id in state.cancelled_hooks:
            continue
        if not _due(scene, hook):
            continue
        where = hook.trigger.location or scene.location.id
        own = next((h.text for h in scene.world_gm.hooks if h.id == hook.id), hook.text)
        event = log_event(
            state,
            "hook",
            hook.id,
            where,
            own,
            seen_by=scene.witnesses(where),
            data={"hook": hook.id, **({"told": hook.text} if hook.text != own else {})},
            at=scene.at,
        )
        state.fired_hooks.append(hook.id)
        fired.append(event)
    return fired


def told(event: GMEvent) -> str:
    """What the move's narration says of a fired hook: its text in the narration's language."""
    return str(event.data.get("told") or event.text)


def _due(scene: Scene, hook: Hook) -> bool:
    trigger = hook.trigger
    if trigger.type == "enter":
        return trigger.location == scene.me.location
    if trigger.location is not None and trigger.location != scene.me.location:
        return False
    day = trigger.day or 1
    time = trigger.time_of_day or TIMES_OF_DAY[0]
    return time_index(scene.state.clock) >= time_index(GameClock(day=day, time_of_day=time))
