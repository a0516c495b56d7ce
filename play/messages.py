"""Changing a session's messages without the model: edit, delete, revert, swipe, greetings and
checkpoints (seed 004 "useYumina()" chat and checkpoint APIs).

Every message carries the engine state after it, so these restore a snapshot instead of
replaying anything. The session's lock is held by the caller (play.turns).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from engine.directives import extract_directives
from engine.session import SessionState
from engine.world import WorldDefinition
from play.errors import PlayError
from play.models import Checkpoint, Message, Session
from play.sessions import get_message, world_of

_COPIED_FIELDS = (
    "position",
    "role",
    "content",
    "raw",
    "status",
    "error",
    "state",
    "changes",
    "swipes",
    "active_swipe",
    "choices",
    "is_greeting",
    "stopped",
    "model",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "cost",
    "generation_ms",
)


def _settled(message: Message) -> None:
    if message.status == "streaming":
        raise PlayError(gettext("This message is still being written."), field="message_id")


def _initial_state(session: Session) -> dict[str, Any]:
    return SessionState.initial(world_of(session)).model_dump(mode="json")


def _state_before(session: Session, message: Message) -> dict[str, Any]:
    earlier = session.messages.filter(position__lt=message.position).exclude(state={}).last()
    return earlier.state if earlier is not None else _initial_state(session)


def edit_message(session: Session, message_id: int, content: str) -> Message:
    """Replace what a message says; its state snapshot and effects stay as they were.

    An edit is never parsed for its effects (directives are the narrator's, and the player
    wrote this). A narrator's message shows only what the stream filter lets through, as a
    streamed reply would; the player's own message stays as typed.
    """
    message = get_message(session, message_id)
    _settled(message)
    if message.role != "user":
        content = shown_text(world_of(session), content)
    message.content = content
    if message.swipes and message.active_swipe < len(message.swipes):
        message.swipes[message.active_swipe]["content"] = content
    message.save(update_fields=["content", "swipes"])
    return message


def shown_text(world: WorldDefinition, text: str) -> str:
    """``text`` as a streamed reply would show it: no directive, thinking or patch block.

    Taking one directive out may join the halves of another (``[go[gold: 1]ld: 5]``), so the
    filter runs until nothing more comes out.
    """
    for _ in range(_CLEAN_ROUNDS):
        clean = extract_directives(world, text).text
        if clean == text:
            break
        text = clean
    return text


_CLEAN_ROUNDS = 8


def delete_message(session: Session, message_id: int) -> None:
    """Delete one message; deleting the last one also takes back the state it brought."""
    message = get_message(session, message_id)
    _settled(message)
    with transaction.atomic():
        was_last = not session.messages.filter(position__gt=message.position).exists()
        if was_last:
            session.state = _state_before(session, message)
            session.save(update_fields=["state", "updated_at"])
        message.delete()


def revert_to_message(session: Session, message_id: int) -> Message:
    """Delete every later message and restore the state snapshot of this one."""
    message = get_message(session, message_id)
    _settled(message)
    with transaction.atomic():
        session.messages.filter(position__gt=message.position).delete()
        session.state = message.state or _state_before(session, message)
        session.save(update_fields=["state", "updated_at"])
    return message


def swipe_message(session: Session, message_id: int, direction: str) -> Message | None:
    """Show the previous or next swipe and restore its state snapshot.

    Returns None for "right" past the last swipe: the caller generates a new one.
    """
    message = get_message(session, message_id)
    _settled(message)
    if message.role != "assistant":
        raise PlayError(gettext("Only the narrator's messages have swipes."), field="message_id")
    if session.messages.filter(position__gt=message.position).exists():
        raise PlayError(gettext("Only the last message can be swiped."), field="message_id")
    index = message.active_swipe + (1 if direction == "right" else -1)
    if index < 0:
        raise PlayError(gettext("This is the first swipe."), field="direction")
    if index >= len(message.swipes):
        if message.is_greeting:
            raise PlayError(gettext("This is the last greeting."), field="direction")
        return None
    return _show_swipe(session, message, index)


def switch_greeting(session: Session, index: int) -> Message:
    """Start the story with another greeting; only before the player has said anything."""
    greeting = session.messages.filter(is_greeting=True).first()
    if greeting is None:
        raise PlayError(gettext("This world has no greetings."), field="index")
    if session.messages.filter(position__gt=greeting.position).exists():
        raise PlayError(
            gettext("The greeting can only change before the story starts."), field="index"
        )
    if not 0 <= index < len(greeting.swipes):
        raise PlayError(
            gettext("There are %(count)d greetings; index %(index)d is out of range.")
            % {"count": len(greeting.swipes), "index": index},
            field="index",
        )
    return _show_swipe(session, greeting, index)


def _show_swipe(session: Session, message: Message, index: int) -> Message:
    swipe = message.swipes[index]
    message.active_swipe = index
    message.content = swipe.get("content", "")
    message.raw = swipe.get("raw", message.content)
    message.state = swipe.get("state") or message.state
    message.changes = swipe.get("changes", [])
    message.status = swipe.get("status", "complete")
    message.error = swipe.get("error", "")
    message.choices = swipe.get("choices", [])
    message.tools = swipe.get("tools", [])
    message.stopped = bool(swipe.get("stopped", False))
    usage = swipe.get("usage") or {}
    for key in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
        setattr(message, key, int(usage.get(key, 0)))
    message.cost = usage.get("cost", 0)
    message.model = swipe.get("model", message.model)
    message.generation_ms = int(swipe.get("generation_ms", 0))
    with transaction.atomic():
        message.save()
        session.state = message.state
        session.save(update_fields=["state", "updated_at"])
    return message


# --- checkpoints -----------------------------------------------------------------------------


def save_checkpoint(session: Session, name: str) -> Checkpoint:
    session.refresh_from_db(fields=["state"])
    messages = list(session.messages.all())
    for m in messages:
        _settled(m)
    return Checkpoint.objects.create(
        session=session,
        name=name.strip() or f"Checkpoint {session.checkpoints.count() + 1}",
        message_count=len(messages),
        state=session.state,
        messages=[{f: _jsonable(getattr(m, f)) for f in _COPIED_FIELDS} for m in messages],
    )


def _jsonable(value: Any) -> Any:
    return float(value) if hasattr(value, "as_tuple") else value


def _checkpoint(session: Session, checkpoint_id: int) -> Checkpoint:
    checkpoint = session.checkpoints.filter(pk=checkpoint_id).first()
    if checkpoint is None:
        raise PlayError(gettext("This checkpoint does not exist."), field="checkpoint_id")
    return checkpoint


def restore_checkpoint(session: Session, checkpoint_id: int) -> Checkpoint:
    """Put the messages and the state back as they were when the checkpoint was saved."""
    checkpoint = _checkpoint(session, checkpoint_id)
    with transaction.atomic():
        session.messages.all().delete()
        Message.objects.bulk_create(
            Message(session=session, **{k: v for k, v in m.items() if k in _COPIED_FIELDS})
            for m in checkpoint.messages
        )
        session.state = checkpoint.state
        session.save(update_fields=["state", "updated_at"])
    return checkpoint


def delete_checkpoint(session: Session, checkpoint_id: int) -> None:
    _checkpoint(session, checkpoint_id).delete()
