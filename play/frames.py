"""The websocket wire format of /ws/play/<session_id>/ (docs/PROTOCOL.md is the reference).

Client frames are a pydantic discriminated union on ``type``; ``decode_frame`` turns any text
into one of them or raises ``FrameError`` naming the offending field. Server frames are plain
dicts built by the functions below, encoded once per event and fanned out as text.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from engine.jsonguard import JsonInputError, loads

MAX_TEXT = 20_000
MAX_FRAME_BYTES = 64 * 1024
# What the server sends in one websocket message, at most (play.framing keeps to it): far under
# daphne's 1 MiB, past which it closes the socket with 1011.
MAX_SERVER_FRAME_BYTES = 256 * 1024
HISTORY_PAGE = 50
MAX_HISTORY_PAGE = 100

MessageId = Annotated[int, Field(ge=1, le=2**63 - 1)]  # a BigAutoField, not a Python int


class ClientFrame(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class SendFrame(ClientFrame):
    type: Literal["send"]
    text: str = Field(min_length=1, max_length=MAX_TEXT)


class RegenerateFrame(ClientFrame):
    type: Literal["regenerate"]
    message_id: MessageId | None = None


class SwipeFrame(ClientFrame):
    type: Literal["swipe"]
    message_id: MessageId
    direction: Literal["left", "right"]


class EditFrame(ClientFrame):
    type: Literal["edit"]
    message_id: MessageId
    content: str = Field(max_length=MAX_TEXT)


class DeleteFrame(ClientFrame):
    type: Literal["delete"]
    message_id: MessageId


class ContinueFrame(ClientFrame):
    type: Literal["continue"]


class StopFrame(ClientFrame):
    type: Literal["stop"]


class RevertFrame(ClientFrame):
    type: Literal["revert"]
    message_id: MessageId


class BranchFrame(ClientFrame):
    type: Literal["branch"]
    message_id: MessageId


class CheckpointSaveFrame(ClientFrame):
    type: Literal["checkpoint_save"]
    name: str = Field(default="", max_length=200)


class CheckpointRestoreFrame(ClientFrame):
    type: Literal["checkpoint_restore"]
    checkpoint_id: MessageId


class CheckpointDeleteFrame(ClientFrame):
    type: Literal["checkpoint_delete"]
    checkpoint_id: MessageId


class SwitchGreetingFrame(ClientFrame):
    type: Literal["switch_greeting"]
    index: int = Field(ge=0, le=10_000)


class ActionFrame(ClientFrame):
    type: Literal["action"]
    action_id: str = Field(min_length=1, max_length=200)
    text: str | None = Field(default=None, max_length=MAX_TEXT)


class RollFrame(ClientFrame):
    """Roll the check a game-master turn left pending (the Roll button; seed 001)."""

    type: Literal["roll"]


class DemoStepFrame(ClientFrame):
    """Play the next step of a replayed demo; the server knows which (play.demos)."""

    type: Literal["demo_step"]


class SyncFrame(ClientFrame):
    type: Literal["sync"]
    last_message_id: MessageId | None = None


class HistoryFrame(ClientFrame):
    """Older messages: the page just before ``before`` (the newest page without it)."""

    type: Literal["history"]
    before: MessageId | None = None
    limit: int = Field(default=HISTORY_PAGE, ge=1, le=MAX_HISTORY_PAGE)


class SetVariableFrame(ClientFrame):
    """A world UI's ``setVariable`` (play.ui_api): ``[variable: set value]``, then the rules."""

    type: Literal["set_variable"]
    variable: str = Field(min_length=1, max_length=300)
    value: Any = None


class InjectContextFrame(ClientFrame):
    """A world UI's ``injectContext`` (play.ui_api): context for the next prompt(s)."""

    type: Literal["inject_context"]
    text: str = Field(min_length=1, max_length=MAX_TEXT)
    role: Literal["system", "user"] = "system"
    position: Literal["top", "before_char", "after_char", "auto", "depth", "bottom"] | None = None
    duration: int | None = Field(default=None, ge=1, le=1000)
    depth: int | None = Field(default=None, ge=0, le=1000)


Frame = Annotated[
    SendFrame
    | RegenerateFrame
    | SwipeFrame
    | EditFrame
    | DeleteFrame
    | ContinueFrame
    | StopFrame
    | RevertFrame
    | BranchFrame
    | CheckpointSaveFrame
    | CheckpointRestoreFrame
    | CheckpointDeleteFrame
    | SwitchGreetingFrame
    | ActionFrame
    | RollFrame
    | DemoStepFrame
    | SyncFrame
    | HistoryFrame
    | SetVariableFrame
    | InjectContextFrame,
    Field(discriminator="type"),
]
FRAME_TYPES = (
    "send",
    "regenerate",
    "swipe",
    "edit",
    "delete",
    "continue",
    "stop",
    "revert",
    "branch",
    "checkpoint_save",
    "checkpoint_restore",
    "checkpoint_delete",
    "switch_greeting",
    "action",
    "roll",
    "demo_step",
    "sync",
    "history",
    "set_variable",
    "inject_context",
)
_ADAPTER: TypeAdapter[Frame] = TypeAdapter(Frame)


class FrameError(ValueError):
    """A frame that cannot be decoded; ``field`` names what is wrong ("$" for the whole frame)."""

    def __init__(self, field: str, message: str, raw: Any = None) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.raw = raw


def decode_frame(text: str | bytes | None) -> Frame:
    """Parse one client frame; raises FrameError (never anything else) on bad input."""
    if text is None:
        raise FrameError("$", "frames must be JSON text")
    if len(text) > MAX_FRAME_BYTES:
        raise FrameError("$", f"frame is larger than {MAX_FRAME_BYTES} bytes")
    try:
        data = loads(text)  # UTF-8, depth, NUL (with its field) and numbers: engine.jsonguard
    except JsonInputError as exc:
        raise FrameError(exc.field, exc.message) from None
    if not isinstance(data, dict):
        raise FrameError("$", "must be a JSON object", data)
    kind = data.get("type")
    if not isinstance(kind, str) or not kind:
        raise FrameError("type", "is required", data)
    if kind not in FRAME_TYPES:
        raise FrameError("type", f"unknown frame type '{kind}'", data)
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = [str(p) for p in err["loc"] if p != kind]
        raise FrameError(".".join(loc) or "$", _message(err), data) from None


def _message(err: Any) -> str:
    if err["type"] == "missing":
        return "is required"
    message = str(err["msg"])
    return message[0].lower() + message[1:]


# --- server frames ---------------------------------------------------------------------------


# Built once: json.dumps with options makes a new encoder per call, and this runs per token.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)


def encode(frame: dict[str, Any]) -> str:
    if type(frame) is dict and len(frame) == 5 and frame.get("type") == "delta":
        # Every token's frame: its text written into a template, a quarter of the encoder's
        # time (3.0 -> 0.7 µs); the same text as the encoder's (tests/play/test_frames.py).
        message_id, seq, first = frame.get("message_id"), frame.get("seq"), frame.get("first_seq")
        text = frame.get("text")
        if type(message_id) is type(seq) is type(first) is int and type(text) is str:
            return (
                f'{{"type":"delta","message_id":{message_id},"text":{_ENCODER.encode(text)},'
                f'"seq":{seq},"first_seq":{first}}}'
            )
    return _ENCODER.encode(frame)


def delta(message_id: int, text: str, seq: int, first_seq: int | None = None) -> dict[str, Any]:
    """``text`` carries deltas ``first_seq``..``seq`` of the message's current stream."""
    return {
        "type": "delta",
        "message_id": message_id,
        "text": text,
        "seq": seq,
        "first_seq": seq if first_seq is None else first_seq,
    }


def message_start(message: dict[str, Any], *, continuing: bool = False) -> dict[str, Any]:
    return {"type": "message_start", "message": message, "continuing": continuing}


def message_done(
    message: dict[str, Any], session_usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``session_usage``: the session's running total after a reply (play.costs), when known."""
    frame: dict[str, Any] = {"type": "message_done", "message": message}
    if session_usage is not None:
        frame["session_usage"] = session_usage
    return frame


def message_failed(message_id: int, error: str, message: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message_failed", "message_id": message_id, "error": error, "message": message}


def state(
    values: dict[str, Any],
    turn: int,
    changes: list[Any] | None = None,
    *,
    audio: dict[str, Any] | None = None,
    own_turn: int | None = None,
) -> dict[str, Any]:
    frame = {
        "type": "state",
        "values": values,
        "turn": turn,
        "audio": audio or {},
        "changes": changes or [],
    }
    if own_turn is not None:  # a game-master world: the character's own count (issue 33 §5)
        frame["own_turn"] = own_turn
    return frame


def notification(message: str, style: str) -> dict[str, Any]:
    return {"type": "notification", "message": message, "style": style}


def audio(track_id: str, action: str, value: float | None, chain: str | None) -> dict[str, Any]:
    return {"type": "audio", "track_id": track_id, "action": action, "value": value, "chain": chain}


def choices(items: list[str]) -> dict[str, Any]:
    return {"type": "choices", "choices": items}


def busy(frame: Any, message_id: int | None = None, message: str | None = None) -> dict[str, Any]:
    return {
        "type": "busy",
        "error": message or "A turn is already running in this session. Wait for it or stop it.",
        "message_id": message_id,
        "frame": frame,
    }


def error(message: str, frame: Any, field: str | None = None) -> dict[str, Any]:
    return {"type": "error", "error": message, "field": field, "frame": frame}


def ui_done(kind: str) -> dict[str, Any]:
    """A world UI's ``set_variable``/``inject_context`` was applied (to its sender only)."""
    return {"type": "ui_done", "frame": kind}


def checkpoints(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "checkpoints", "checkpoints": items}


def branched(session_id: str, url: str) -> dict[str, Any]:
    return {"type": "branched", "session_id": session_id, "url": url}


def history(
    session: dict[str, Any],
    messages: list[dict[str, Any]],
    state_frame: dict[str, Any],
    checkpoint_list: list[dict[str, Any]],
    running: dict[str, Any] | None,
    pending_choices: list[str],
    *,
    has_more: bool = False,
) -> dict[str, Any]:
    """``messages`` is the newest page; ``has_more`` says older ones exist before it."""
    return {
        "type": "history",
        "session": session,
        "messages": messages,
        "has_more": has_more,
        "state": {k: v for k, v in state_frame.items() if k != "type"},
        "checkpoints": checkpoint_list,
        "running": running,
        "choices": pending_choices,
    }


def history_page(
    before: int | None, messages: list[dict[str, Any]], has_more: bool
) -> dict[str, Any]:
    """The messages just before message ``before``, oldest first (answers a ``history`` frame)."""
    return {"type": "history_page", "before": before, "messages": messages, "has_more": has_more}


# --- game-master worlds (play.gm) ------------------------------------------------------------


def roll_result(rolls: list[dict[str, Any]]) -> dict[str, Any]:
    """The breakdown of the rolls the player may see, before the narration of their outcome."""
    return {"type": "roll-result", "rolls": rolls}


def check_pending(check: dict[str, Any]) -> dict[str, Any]:
    """A turn ended waiting for the player's roll: show the Roll button."""
    return {"type": "check-pending", **check}


def scene(view: dict[str, Any]) -> dict[str, Any]:
    """Where the player's character is, what it can click, and the check it waits on."""
    return {"type": "scene", **view}


def demo(played: int, total: int) -> dict[str, Any]:
    """How far a replayed demo got: its bar shows the next step (play.demos)."""
    return {"type": "demo", "played": played, "total": total}


def players(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Who sits at a shared table (play.tables), with their presence."""
    return {"type": "players", "players": items}
