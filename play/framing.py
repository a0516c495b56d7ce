"""Keeping every server frame under ``MAX_SERVER_FRAME_BYTES`` (docs/PROTOCOL.md "Frame size").

Daphne closes a socket with 1011 when one message passes 1 MiB, and a session whose history
did could never be opened again. So nothing goes out whole that can grow without bound: a
history frame keeps the newest messages that fit (``has_more`` says older ones exist), a
message too large on its own goes out shortened with ``truncated: true`` (the page fetches it
whole over HTTP), and a state too large for one frame goes out as several ``state`` frames with
``partial: true`` (a single value that cannot fit is named in ``omitted``). Whatever still does
not fit becomes an ``error`` frame: the socket stays open.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from play import frames

log = logging.getLogger(__name__)

LIMIT = frames.MAX_SERVER_FRAME_BYTES
MESSAGE_LIMIT = LIMIT // 2 - 4096  # one message leaves room for the rest of its frame
STATE_SHARE = LIMIT // 2  # more state than this in a history frame goes out on its own
RUNNING_LIMIT = LIMIT // 8
TOO_LARGE = "An update was too large to send; reload the page to see it."
_MESSAGE_FRAMES = ("message_start", "message_done", "message_failed")


def size(value: Any) -> int:
    """Bytes of ``value`` as the socket carries it."""
    return len(frames.encode(value).encode())


def texts(frame: dict[str, Any]) -> list[str]:
    """The frame encoded as one or more websocket messages, each within the limit."""
    return [encoded(piece)[1] for piece in fit(frame)]


def encoded(frame: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The frame and its text; one still over the limit is replaced by an ``error`` frame."""
    text = frames.encode(frame)
    if len(text) * 4 <= LIMIT or len(text.encode()) <= LIMIT:  # cheap for every delta
        return frame, text
    log.error("a %s frame of %d bytes was not sent", frame.get("type"), len(text.encode()))
    replacement = frames.error(TOO_LARGE, {"type": frame.get("type")})
    return replacement, frames.encode(replacement)


def fit(frame: dict[str, Any]) -> list[dict[str, Any]]:
    """The frame shaped to fit: paged, shortened or split; most frames pass untouched."""
    kind = frame.get("type")
    if kind in ("history", "history_page"):
        return fit_history(frame)
    if kind in _MESSAGE_FRAMES and isinstance(frame.get("message"), dict):
        return [{**frame, "message": fit_message(frame["message"])}]
    if kind == "state":
        return split_state(frame)
    return [frame]


# --- messages --------------------------------------------------------------------------------


def fit_message(message: dict[str, Any], budget: int = MESSAGE_LIMIT) -> dict[str, Any]:
    """The message, or a shortened copy flagged ``truncated`` that fits ``budget`` bytes.

    Swipes keep their count and status; changes keep which variable moved; the text keeps its
    beginning. ``GET /play/<session>/messages/<id>/`` serves the whole message.
    """
    if size(message) <= budget:
        return message
    out = {**message, "truncated": True, "content": ""}
    out["swipes"] = [{**s, "content": ""} for s in message.get("swipes") or []]
    if size(out) > budget // 2:
        out["changes"] = [_slim_change(c) for c in message.get("changes") or []]
    if size(out) > budget // 2:
        out["choices"] = []
        out["error"] = str(message.get("error") or "")[:1000] or None
    room = budget - size(out)
    out["content"] = _head_within(str(message.get("content") or ""), room)
    return out


def _slim_change(change: Any) -> Any:
    if not isinstance(change, dict):
        return None
    return {k: change[k] for k in ("variableId", "path") if k in change} | {"truncated": True}


def _head_within(text: str, room: int) -> str:
    """The longest beginning of ``text`` whose JSON string takes at most ``room`` bytes."""
    return _longest(text, room, lambda n: text[:n])


def _tail_within(text: str, room: int) -> str:
    return _longest(text, room, lambda n: text[len(text) - n :])


def _longest(text: str, room: int, cut: Callable[[int], str]) -> str:
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if size(cut(middle)) <= room:
            low = middle
        else:
            high = middle - 1
    return cut(low)


# --- history ---------------------------------------------------------------------------------


def fit_history(frame: dict[str, Any]) -> list[dict[str, Any]]:
    """Keep the newest messages that fit; the state may follow as its own frames.

    A ``since`` frame that cannot carry every message after ``since`` becomes a fresh page
    (``since`` null), so a client never merges a list with a hole in it.
    """
    if size(frame) <= LIMIT:
        return [frame]
    base = {**frame, "messages": []}
    running = base.get("running")
    if isinstance(running, dict) and size(running) > RUNNING_LIMIT:
        text = "…" + _tail_within(str(running.get("text") or ""), RUNNING_LIMIT - 200)
        base["running"] = {**running, "text": text, "truncated": True}
    if size(base.get("checkpoints") or []) > LIMIT // 8:
        base["checkpoints"] = _newest_within(base["checkpoints"], LIMIT // 8)
    after: list[dict[str, Any]] = []
    if base.get("state") is not None and size(base) > STATE_SHARE:
        after = split_state({"type": "state", **base["state"]}, force=True)
        base["state"] = None
    messages = [fit_message(m) for m in frame.get("messages") or []]
    kept = _newest_within(messages, LIMIT - size(base) - 16)
    if len(kept) < len(messages):
        base["has_more"] = True
        if base.get("since") is not None:
            base["since"] = None
    return [{**base, "messages": kept}, *after]


def _newest_within(items: list[Any], budget: int) -> list[Any]:
    """The longest run of the last ``items`` whose JSON list fits ``budget`` bytes."""
    total, start = 2, len(items)
    for item in reversed(items):
        total += size(item) + 1
        if total > budget:
            break
        start -= 1
    return items[start:]


# --- state -----------------------------------------------------------------------------------


def split_state(frame: dict[str, Any], *, force: bool = False) -> list[dict[str, Any]]:
    """A state frame as partial frames, each within the limit (``force``: even when it fits).

    Values are spread over the pieces whole; one too large for any frame is left out and named
    in ``omitted``. Changes follow, those too large without their old and new values.
    """
    if not force and size(frame) <= LIMIT:
        return [frame]
    head = {**frame, "values": {}, "changes": [], "partial": True}
    budget = LIMIT - size(head) - 4096
    values = frame.get("values") or {}
    omitted = [k for k, v in values.items() if size({k: v}) > budget]
    pieces = _pack(
        [({k: v}, "values") for k, v in values.items() if k not in omitted]
        + [(_fitting_change(c, budget), "changes") for c in frame.get("changes") or []],
        head,
        budget,
    )
    if omitted:
        pieces[0]["omitted"] = omitted
    return pieces


def _fitting_change(change: Any, budget: int) -> Any:
    return change if size(change) <= budget else _slim_change(change)


def _pack(items: list[tuple[Any, str]], head: dict[str, Any], budget: int) -> list[dict[str, Any]]:
    pieces = [_piece(head)]
    used = 0
    for item, where in items:
        cost = size(item) + 1
        if used + cost > budget and used:
            pieces.append(_piece(head))
            used = 0
        if where == "values":
            pieces[-1]["values"].update(item)
        else:
            pieces[-1]["changes"].append(item)
        used += cost
    return pieces


def _piece(head: dict[str, Any]) -> dict[str, Any]:
    return {**head, "values": {}, "changes": []}
