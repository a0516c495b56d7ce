"""Tool calling on the wire, for both protocols (issue "Game master II" §2).

The engine speaks one neutral shape: a tool is ``{"name", "description", "parameters"}`` (a
JSON Schema), a choice is ``"auto"``, ``"none"`` or ``{"name": ...}``, and a call the model made
is an ``engine.session.ToolCall``. This module turns those into each API's shape and assembles
the calls back from their streamed pieces:

- OpenAI-compatible: ``tools=[{"type": "function", "function": {...}}]``; the assistant turn
  carries ``tool_calls`` with JSON-encoded ``arguments``; results are ``role: "tool"``. Streamed
  ``delta.tool_calls`` arrive in pieces keyed by ``index`` (some servers send no index, only a
  new ``id``); a call is complete when another index starts or the choice finishes.
- Anthropic: ``tools=[{"name", "description", "input_schema"}]`` with ``cache_control`` on the
  last one (the tool schemas come first in Anthropic's cache order); calls are ``tool_use``
  blocks whose input streams as ``input_json_delta`` pieces until ``content_block_stop``;
  results are ``tool_result`` blocks in a user turn.

Only plain dicts are built here, so neither SDK is imported by the other's provider.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.session import Message, ToolCall

EPHEMERAL = {"type": "ephemeral"}


def parse_arguments(raw: str) -> tuple[dict[str, Any], str]:
    """A call's arguments and, when they are not a JSON object, why (the call is not run)."""
    if not raw.strip():
        return {}, ""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"the arguments are not valid JSON ({exc.msg})"
    if not isinstance(value, dict):
        return {}, "the arguments must be a JSON object"
    return value, ""


def _call(ident: str, name: str, raw: str) -> ToolCall:
    arguments, error = parse_arguments(raw)
    return ToolCall(id=ident, name=name, arguments=arguments, error=error)


# --- OpenAI-compatible ------------------------------------------------------------------------


def openai_tools(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
            },
        }
        for tool in tools
    ]


def openai_tool_choice(choice: str | dict[str, str]) -> str | dict[str, Any]:
    if isinstance(choice, dict):
        return {"type": "function", "function": {"name": choice["name"]}}
    return choice


def openai_message(message: Message) -> dict[str, Any]:
    """One message in OpenAI's shape; unknown roles are sent as the user's."""
    role, content = message.role, message.content
    if role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": content}
    if role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            "content": content or None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": json.dumps(call.arguments, ensure_ascii=False),
                    },
                }
                for call in message.tool_calls
            ],
        }
    if role in ("system", "assistant"):
        return {"role": role, "content": content}
    return {"role": "user", "content": content}


@dataclass
class _Pending:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class OpenAIToolCalls:
    """Assembles streamed ``delta.tool_calls`` pieces into complete calls."""

    def __init__(self) -> None:
        self._open: dict[int, _Pending] = {}
        self._current: int | None = None
        self._count = 0  # calls seen without an index
        self._ids = 0  # calls closed, for the ids of calls that came without one
        self.started: list[str] = []  # names of calls begun since the last ``take_started``

    def feed(self, deltas: Iterable[Any]) -> list[ToolCall]:
        """Take one delta's pieces; returns the calls they show to be complete."""
        done: list[ToolCall] = []
        for piece in deltas:
            if not isinstance(piece, dict):
                continue
            index = self._index(piece)
            if self._current is not None and index != self._current:
                done.extend(self._close(self._current))
            self._current = index
            pending = self._open.setdefault(index, _Pending())
            pending.id = piece.get("id") or pending.id
            function = piece.get("function") or {}
            if function.get("name") and not pending.name:
                self.started.append(function["name"])
            pending.name = function.get("name") or pending.name
            if isinstance(function.get("arguments"), str):
                pending.arguments.append(function["arguments"])
        return done

    def take_started(self) -> list[str]:
        """The names of the calls begun since the last time asked."""
        started, self.started = self.started, []
        return started

    def finish(self) -> list[ToolCall]:
        """Every call still open: the choice finished or the stream ended."""
        done: list[ToolCall] = []
        for index in sorted(self._open):
            done.extend(self._close(index))
        self._current = None
        return done

    def _index(self, piece: dict[str, Any]) -> int:
        index = piece.get("index")
        if isinstance(index, int):
            return index
        # No index: a new id starts a new call, anything else continues the current one.
        if piece.get("id") or self._current is None:
            self._count += 1
            return -self._count
        return self._current

    def _close(self, index: int) -> list[ToolCall]:
        pending = self._open.pop(index, None)
        if pending is None or not pending.name:
            return []
        self._ids += 1
        ident = pending.id or f"call_{self._ids}"
        return [_call(ident, pending.name, "".join(pending.arguments))]


# --- Anthropic ----------------------------------------------------------------------------


def anthropic_tools(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Anthropic's tool list, the last one marked so the tool schemas are read from cache."""
    out: list[dict[str, Any]] = [
        {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "input_schema": tool.get("parameters") or {"type": "object", "properties": {}},
        }
        for tool in tools
    ]
    if out:
        out[-1]["cache_control"] = dict(EPHEMERAL)
    return out


def anthropic_tool_choice(choice: str | dict[str, str]) -> dict[str, Any]:
    if isinstance(choice, dict):
        return {"type": "tool", "name": choice["name"]}
    return {"type": "none" if choice == "none" else "auto"}


def anthropic_blocks(message: Message, text: str) -> list[dict[str, Any]]:
    """The content blocks of one message (``text`` already shaped); empty text is dropped."""
    if message.role == "tool":
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
        if message.content:
            result["content"] = message.content
        return [result]
    blocks: list[dict[str, Any]] = []
    if text.strip():
        blocks.append({"type": "text", "text": text})
    if message.role == "assistant":
        blocks.extend(
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
            for c in message.tool_calls
        )
    return blocks


class AnthropicToolUse:
    """Assembles ``tool_use`` blocks from their start, JSON pieces and stop events."""

    def __init__(self) -> None:
        self._open: dict[int, _Pending] = {}

    def start(self, index: int, ident: str, name: str) -> None:
        self._open[index] = _Pending(id=ident, name=name)

    def delta(self, index: int, partial_json: str) -> None:
        if index in self._open:
            self._open[index].arguments.append(partial_json)

    def stop(self, index: int) -> ToolCall | None:
        pending = self._open.pop(index, None)
        if pending is None:
            return None
        return _call(pending.id, pending.name, "".join(pending.arguments))
