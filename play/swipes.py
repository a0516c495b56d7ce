"""A reply's versions (swipes) as its row stores them: each keeps its text, state and usage.

The row's own columns hold the version shown; ``swipes`` holds every version, so switching
(play.messages) restores one without asking the model again.
"""

from __future__ import annotations

from typing import Any

from play.models import Message, message_usage


def placeholder_swipe(state: dict[str, Any]) -> dict[str, Any]:
    return {"content": "", "raw": "", "state": state, "changes": [], "status": "streaming"}


def swipe_of(message: Message) -> dict[str, Any]:
    return {
        "content": message.content,
        "raw": message.raw,
        "state": message.state,
        "changes": message.changes,
        "status": message.status,
        "error": message.error,
        "choices": message.choices,
        "tools": message.tools,
        "model": message.model,
        "usage": message_usage(message),
        "generation_ms": message.generation_ms,
    }


def mirror_swipe(reply: Message, index: int) -> None:
    swipes = list(reply.swipes)
    while len(swipes) <= index:
        swipes.append({})
    swipes[index] = {**swipe_of(reply), "stopped": reply.stopped}
    reply.swipes, reply.active_swipe = swipes, index
