"""What a world's custom UI may change or read on the server (seed 004 "useYumina()"; issue 15).

The sandboxed frame asks its host page (static/js/customui.js), which checks the call and turns
it into a websocket frame (``set_variable``, ``inject_context``, run under the session's turn
lock by play.handlers) or a request to play.views.ui. Everything here checks again: the frame's
code is the world creator's, and the host page's code can be replaced by anyone with a console.

Decisions the seed leaves open, taken here:

* ``setVariable(id, value)`` is the directive ``[id: set value]``: the same type coercion and
  ``min``/``max`` clamp (engine.state), then the world's rules and reactions on the
  ``state:changed`` it causes, as after a turn. A dot path (``npcs.aria.trust``) reaches into a
  json variable. An unknown variable is refused by name, and so is a **read-only** one: a
  variable the creator marked ``"readOnly": true`` (an extra key the format keeps, like every
  unknown key). The engine and the AI still change it; only the UI may not.
* ``injectContext(text, {role})`` is a rule's ``send-context``: one-shot context for the next
  prompt. With ``position`` (or ``duration``, or ``depth``) it is a rule's ``inject-directive``
  instead, alive for ``duration`` prompts (1 by default). At most ``MAX_UI_CONTEXT`` of each wait.
* At a shared table (play.tables) the world state is every seat's: ``setVariable`` is refused.
* ``entries`` / ``getEntry``: lorebook text is the world's secret, so the UI sees only the entries
  the creator tagged ``public`` (seed 004 entry ``tags``), and never a disabled one.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.utils.translation import gettext

from engine.events import RulesOutcome, state_changed_events
from engine.reactions import Effects
from engine.rules import run_rules
from engine.state import Change, Path, Skipped, apply_operation, copy_value
from engine.world import Variable, WorldDefinition
from play import frames, payloads, sessions, tables
from play.errors import PlayError
from play.models import Session

PUBLIC_TAG = "public"
MAX_UI_CONTEXT = 20
UI_SOURCE = "ui:setVariable"
UI_DIRECTIVE_PREFIX = "ui-context-"
_INDEX = re.compile(r"\d+")


def is_read_only(variable: Variable) -> bool:
    """The creator's ``"readOnly": true`` on a variable: the UI may read it, never set it."""
    return (variable.model_extra or {}).get("readOnly") is True


def variable_target(world: WorldDefinition, target: str) -> tuple[Variable, Path]:
    """The variable ``target`` names (an id, or ``id.path`` into a json variable); refused by
    name when it is unknown or read-only."""
    variable = world.variables_by_id.get(target)
    path: Path = ()
    if variable is None and "." in target:
        head, *rest = target.split(".")
        variable = world.variables_by_id.get(head)
        if variable is not None and variable.type != "json":
            variable = None
        path = tuple(int(p) if _INDEX.fullmatch(p) else p for p in rest)
    if variable is None:
        message = gettext("Unknown variable '%(id)s'.") % {"id": target}
        raise PlayError(message, field="variable")
    if is_read_only(variable):
        message = gettext("The variable '%(id)s' is read-only.") % {"id": variable.id}
        raise PlayError(message, field="variable")
    return variable, path


def set_variable(session: Session, target: str, value: Any) -> list[dict[str, Any]]:
    """Apply ``[target: set value]`` and the rules it fires; the frames every socket gets."""
    if tables.is_seated(str(session.pk)):  # the others share the state (play.tables)
        message = gettext("At a shared table a world's UI cannot set variables.")
        raise PlayError(message, field="variable")
    world = sessions.world_of(session)
    variable, path = variable_target(world, target)
    state = sessions.state_of(session)
    before = {variable.id: copy_value(state.values.get(variable.id))}
    result = apply_operation(world, state.values, variable.id, "set", value, path, UI_SOURCE)
    if isinstance(result, Skipped):
        raise PlayError(result.reason, field="value")
    if result is None:
        return [payloads.state_frame(session)]
    outcome = run_rules(world, state, state_changed_events([result], before, state.values))
    session.state = state.model_dump(mode="json")
    session.save(update_fields=["state", "updated_at"])
    return _outcome_frames(session, [result, *outcome.changes], outcome)


def _outcome_frames(
    session: Session, changes: list[Change], outcome: RulesOutcome
) -> list[dict[str, Any]]:
    out = [payloads.state_frame(session, [change.to_dict() for change in changes])]
    out += [frames.notification(n.message, n.style) for n in outcome.notifications]
    out += [frames.audio(c.track_id, c.action, c.value, c.chain) for c in outcome.audio]
    return out


def inject_context(
    session: Session,
    text: str,
    role: str,
    position: str | None,
    duration: int | None,
    depth: int | None = None,
) -> list[dict[str, Any]]:
    """Keep ``text`` for the next prompt(s), as ``send-context`` or ``inject-directive`` would."""
    world = sessions.world_of(session)
    state = sessions.state_of(session)
    outcome = RulesOutcome()
    effects = Effects(world, state, outcome, next_prompt_turn=state.turn + 1)
    if position is None and duration is None and depth is None:
        if len(state.pending_context) >= MAX_UI_CONTEXT:
            raise PlayError(gettext("Too much context is already waiting."), field="text")
        effects.add_context(text, role, "ui:injectContext")
    else:
        ui_directives = [d for d in state.directives if d.startswith(UI_DIRECTIVE_PREFIX)]
        if len(ui_directives) >= MAX_UI_CONTEXT:
            raise PlayError(gettext("Too much context is already waiting."), field="text")
        directive_id = UI_DIRECTIVE_PREFIX + uuid.uuid4().hex[:12]
        effects.inject_directive(
            directive_id,
            text,
            "ui:injectContext",
            position=position or ("depth" if depth is not None else "auto"),
            depth=depth,
            duration=duration or 1,
        )
    if outcome.skipped:
        raise PlayError(outcome.skipped[0].reason, field="position")
    session.state = state.model_dump(mode="json")
    session.save(update_fields=["state", "updated_at"])
    return []


def visible_entries(session: Session, world: WorldDefinition) -> list[dict[str, Any]]:
    """The entries a UI may read (seed 004 ``SandboxEntry``): enabled ones tagged ``public``."""
    state = sessions.state_of(session)
    out = []
    for entry in world.entries:
        tags = [str(tag) for tag in entry.tags]
        if PUBLIC_TAG not in (tag.casefold() for tag in tags):
            continue
        if not state.entry_enabled(world, entry.id):
            continue
        out.append(
            {
                "id": entry.id,
                "name": entry.name,
                "content": entry.content,
                "keywords": list(entry.keywords),
                "position": entry.position,
                "section": entry.section,
                "enabled": True,
                "role": entry.role,
                "tags": tags,
            }
        )
    return out
