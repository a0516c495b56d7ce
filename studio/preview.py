"""The studio's live tools on the draft: the prompt preview and the directive tester.

Both run the engine exactly as a turn would (``engine.prompt.assemble_prompt`` and
``engine.directives.parse_reply``) with a sample chat and state sent by the creator, and
answer with the JSON of ``python -m engine prompt`` / ``parse`` plus what the studio shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.directives import parse_reply
from engine.macros import MacroContext
from engine.prompt import assemble_prompt
from engine.session import Message, Persona, SessionState
from engine.world import WorldDefinition
from studio.draft_cache import draft_world
from studio.models import World
from studio.scenes import scene_preview

_STATE_KEYS = frozenset(SessionState.model_fields)


def sample_state(definition: WorldDefinition, state: Mapping[str, Any] | None) -> SessionState:
    """A SessionState from a saved state (it has ``values``) or from plain variable values.

    Variables the sample leaves out start at their defaults; keys that are not state fields
    are ignored.
    """
    if not state:
        return SessionState.initial(definition)
    values = state.get("values")
    if isinstance(values, dict) and set(state) <= _STATE_KEYS:
        saved = SessionState.model_validate(dict(state))
        saved.values = SessionState.initial(definition, values).values
        return saved
    return SessionState.initial(definition, dict(state))


def preview_prompt(
    world: World,
    *,
    chat: list[dict[str, Any]] | None = None,
    state: Mapping[str, Any] | None = None,
    persona: Mapping[str, Any] | None = None,
    context: Mapping[str, Any] | None = None,
    scene: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The assembled prompt: ``messages``, ``breakpoint``, ``fired``, ``blocks``, ``tokens``;
    with ``scene`` ({character, location}), also the game master's ``scene`` context."""
    definition, _lorebook = draft_world(world)
    history = [Message.from_dict(m) for m in chat or [] if isinstance(m, dict)]
    macro_context = MacroContext.from_dict(context or {})
    chosen = Persona.from_dict(dict(persona)) if persona else macro_context.persona
    sample = sample_state(definition, state)
    result = assemble_prompt(definition, history, sample, persona=chosen, context=macro_context)
    out = {
        "messages": [m.to_dict() for m in result.messages],
        "breakpoint": result.breakpoint,
        "fired": [f.to_dict() for f in result.fired],
        "blocks": [b.to_dict() for b in result.blocks],
        "tokens": result.tokens,
        "dropped": list(result.dropped),
    }
    if scene is not None:
        who, where = scene.get("character"), scene.get("location")
        found = scene_preview(world, _text(who), _text(where), sample.values)
        out["scene"] = found and {
            "character": found.character,
            "location": found.location,
            "context": found.text,
        }
    return out


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def parse_preview(world: World, *, text: str, state: Mapping[str, Any] | None) -> dict[str, Any]:
    """A reply parsed as a turn would: ``text, state, audio, effects, skipped, changes``."""
    definition, _lorebook = draft_world(world)
    values = sample_state(definition, state).values
    result = parse_reply(definition, text, values)
    return {
        "text": result.text,
        "state": result.state,
        "audio": [cue.to_dict() for cue in result.audio],
        "effects": [effect.to_dict() for effect in result.effects],
        "skipped": [skip.to_dict() for skip in result.skipped],
        "changes": [change.to_dict() for change in result.changes],
    }
