"""What a turn's rules and reactions would do after a tested reply (seed 004 "每轮生成的事件").

The directive tester parses a pasted reply (``studio.live.try_reply``); this runs what a turn
runs next: ``message:user`` (when a player message is given), ``message:ai``, ``turn:complete`` and
one ``state:changed`` per variable the reply changed, through ``engine.rules.run_rules`` on a copy
of the sample state. Nothing is saved.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine import events as ev
from engine.rules import run_rules
from engine.state import same_value
from studio.live import Tried
from studio.models import World
from studio.preview import sample_state
from studio.worlds import world_to_definition


@dataclass
class RulesRun:
    """The rules' part of a tested turn, as the tester shows it."""

    fired: list[tuple[str, str]]  # (rule id, name), in firing order
    reactions: list[tuple[str, str]]  # (reaction id, name)
    diff: list[tuple[str, Any, Any]]  # (variable or path, before, after)
    notifications: list[tuple[str, str]]  # (style, message)
    audio: list[str]
    directives: list[tuple[str, str]]  # (directive id, content) injected for the next prompts
    context: list[tuple[str, str]]  # (role, message) sent once with the next prompt
    skipped: list[tuple[str, str]]  # (source, reason)
    warnings: list[str]
    log: list[str]

    @property
    def did_something(self) -> bool:
        return bool(self.fired or self.reactions)


def _changed_events(tried: Tried) -> list[ev.Event]:
    """One state:changed per variable the reply changed, in the order the reply touched them."""
    events = []
    for variable_id in dict.fromkeys(slot.split(".", 1)[0] for slot, _old, _new in tried.diff):
        old, new = tried.before.get(variable_id), tried.after.get(variable_id)
        if not same_value(old, new):
            events.append(ev.state_changed(variable_id, old, new))
    return events


def _cue(cue: Any) -> str:
    parts = [cue.track_id, cue.action]
    parts += [str(cue.value)] if cue.value is not None else []
    parts += [f"chain:{cue.chain}"] if cue.chain else []
    return " ".join(parts)


def run_rules_after(
    world: World,
    tried: Tried,
    *,
    values: Mapping[str, Any],
    player_message: str = "",
    turn: int = 1,
) -> RulesRun:
    """Run the rules and reactions a turn would after ``tried``, on a copy of the sample state."""
    definition = world_to_definition(world)
    state = sample_state(definition, values)
    state.values = copy.deepcopy(tried.after)
    state.turn, state.started = turn, True
    before = {key: d.content for key, d in state.directives.items()}
    events = [ev.message_user(player_message)] if player_message.strip() else []
    events += [ev.message_ai(tried.text), ev.turn_complete(turn), *_changed_events(tried)]
    outcome = run_rules(definition, state, events)
    reactions = {r.id: r.name for r in definition.reactions or []}
    return RulesRun(
        fired=[(i, definition.rules_by_id[i].name or i) for i in outcome.fired],
        reactions=[(i, reactions.get(i) or i) for i in outcome.reactions],
        diff=[
            (".".join([c.variable_id, *map(str, c.path)]), c.old, c.new) for c in outcome.changes
        ],
        notifications=[(n.style, n.message) for n in outcome.notifications],
        audio=[_cue(cue) for cue in outcome.audio],
        directives=[
            (key, d.content) for key, d in state.directives.items() if before.get(key) != d.content
        ],
        context=[(m.role, m.content) for m in state.pending_context],
        skipped=[(s.source, s.reason) for s in outcome.skipped],
        warnings=list(outcome.warnings),
        log=list(outcome.log),
    )
