"""What a player sees of a session: the dicts and frames clients get, never the raw reply.

Split from play.sessions, which starts, branches and guards sessions; these only read rows.
"""

from __future__ import annotations

from typing import Any

from engine.session import SessionState
from play import frames
from play.models import Checkpoint, Message, Session, message_usage


def public_values(state: dict[str, Any] | None) -> dict[str, Any]:
    values = (state or {}).get("values")
    return dict(values) if isinstance(values, dict) else {}


def message_dict(message: Message) -> dict[str, Any]:
    """A message as clients get it: clean text only, never the raw reply.

    Its state snapshot stays in the database (revert and swipes restore it): the session's
    state goes out once per frame that needs it, and a message carries only its changes.
    """
    return {
        "id": message.pk,
        "position": message.position,
        "role": message.role,
        "content": message.content,
        "status": message.status,
        "error": message.error or None,
        "changes": message.changes,
        "swipes": [
            {"content": s.get("content", ""), "status": s.get("status", "complete")}
            for s in message.swipes
        ],
        "active_swipe": message.active_swipe,
        "choices": message.choices,
        "is_greeting": message.is_greeting,
        "stopped": message.stopped,
        "model": message.model or None,
        "usage": message_usage(message),
        "generation_ms": message.generation_ms,
        "created_at": message.created_at.isoformat() if message.created_at else None,
        **({"tools": message.tools} if message.tools else {}),  # the creator's only (play.gm)
        **({"speech": message.speech} if message.speech else {}),  # bubbles (engine.gm.speech)
    }


def state_frame(session: Session, changes: list[Any] | None = None) -> dict[str, Any]:
    state = session.state or {}
    audio = state.get("audio") if isinstance(state.get("audio"), dict) else {}
    own = own_turn(state, session.character_id)
    return frames.state(
        public_values(state), int(state.get("turn", 0)), changes, audio=audio, own_turn=own
    )


def turn_state_frame(
    state: SessionState, changes: list[Any], character_id: str | None
) -> dict[str, Any]:
    """The ``state`` frame after a turn (play.turns)."""
    own = None
    if state.gm is not None and state.gm.characters:
        sheet = state.gm.characters.get(character_id or next(iter(state.gm.characters)))
        own = sheet.turns if sheet is not None else 0
    values, audio = state.values, dict(state.audio)
    return frames.state(values, state.turn, changes, audio=audio, own_turn=own)


def own_turn(state: dict[str, Any], character_id: str | None) -> int | None:
    """How many actions the session's character has played (engine.gm.adapter counts them);
    None outside a game-master world. At a table the page shows this rather than the shared
    ``turn``, which counts every player's actions for the rules (issue 33 §5)."""
    gm = state.get("gm")
    characters = gm.get("characters") if isinstance(gm, dict) else None
    if not isinstance(characters, dict) or not characters:
        return None
    sheet = characters.get(character_id or next(iter(characters)))  # unset: the world's first
    return int(sheet.get("turns", 0)) if isinstance(sheet, dict) else 0


def checkpoint_dict(checkpoint: Checkpoint) -> dict[str, Any]:
    return {
        "id": checkpoint.pk,
        "name": checkpoint.name,
        "message_count": checkpoint.message_count,
        "created_at": checkpoint.created_at.isoformat(),
    }


def checkpoint_list(session: Session) -> list[dict[str, Any]]:
    return [checkpoint_dict(c) for c in session.checkpoints.all()]


def session_dict(session: Session) -> dict[str, Any]:
    greeting = session.messages.filter(is_greeting=True).first()
    return {
        "id": str(session.pk),
        "title": session.title,
        "mode": session.mode,
        "model": session.model or None,
        "world_id": session.world_id,
        "world_version_id": session.world_version_id,
        "is_guest": session.is_guest,
        "is_playtest": session.is_playtest,
        "persona": session.persona_data or None,
        "greeting_count": len(greeting.swipes) if greeting else 0,
        "greeting_index": greeting.active_swipe if greeting else None,
        "apply_on_stop": session.apply_on_stop,
        "created_at": session.created_at.isoformat(),
    }
