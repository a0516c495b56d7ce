"""Tool calls on the loopback model server's wire (issue "Game master II" §2).

A scripted ``Reply`` may carry ``tool_calls``: ``[{"name", "arguments"}]``, the shape of the CLI's
R.json. The server streams each call in several pieces, the way the real APIs do: OpenAI as
``delta.tool_calls`` entries keyed by ``index`` (the first with ``id`` and ``name``, then the
arguments' JSON a few characters at a time), Anthropic as a ``tool_use`` content block whose
input arrives as ``input_json_delta`` pieces. Payloads are plain dicts; ``model_server`` frames
them as Server-Sent Events.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

ToolCalls = Sequence[dict[str, Any]]


def _count(text: str) -> int:
    return math.ceil(len(text) / 4)


def arguments_json(call: dict[str, Any]) -> str:
    return json.dumps(call.get("arguments") or {}, ensure_ascii=False)


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def output_tokens(text: str, calls: ToolCalls) -> int:
    """The reply's output: its text and each call's name and arguments."""
    return _count(text) + sum(_count(c["name"] + arguments_json(c)) for c in calls)


def call_id(protocol: str, request_number: int, position: int) -> str:
    prefix = "call" if protocol == "openai" else "toolu"
    return f"{prefix}_{request_number}_{position}"


# --- OpenAI ---------------------------------------------------------------------------------


def openai_tool_deltas(calls: ToolCalls, chunk_size: int, n: int) -> list[dict[str, Any]]:
    """The ``delta`` objects that stream ``calls``, in order."""
    deltas: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        head = {
            "index": index,
            "id": call_id("openai", n, index),
            "type": "function",
            "function": {"name": call["name"], "arguments": ""},
        }
        deltas.append({"tool_calls": [head]})
        for piece in _pieces(arguments_json(call), chunk_size):
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    return deltas


def openai_tool_message(calls: ToolCalls, n: int) -> list[dict[str, Any]]:
    """``message.tool_calls`` of a reply sent without streaming."""
    return [
        {
            "id": call_id("openai", n, index),
            "type": "function",
            "function": {"name": call["name"], "arguments": arguments_json(call)},
        }
        for index, call in enumerate(calls)
    ]


# --- Anthropic ------------------------------------------------------------------------------


def anthropic_tool_events(
    calls: ToolCalls, first_index: int, chunk_size: int, n: int
) -> list[tuple[bool, str, dict[str, Any]]]:
    """(is a streamed piece, event name, payload) for each ``tool_use`` block."""
    events: list[tuple[bool, str, dict[str, Any]]] = []
    for position, call in enumerate(calls):
        index = first_index + position
        block = {
            "type": "tool_use",
            "id": call_id("anthropic", n, position),
            "name": call["name"],
            "input": {},
        }
        start = {"type": "content_block_start", "index": index, "content_block": block}
        events.append((False, "content_block_start", start))
        for piece in _pieces(arguments_json(call), chunk_size):
            delta = {"type": "input_json_delta", "partial_json": piece}
            payload = {"type": "content_block_delta", "index": index, "delta": delta}
            events.append((True, "content_block_delta", payload))
        stop = {"type": "content_block_stop", "index": index}
        events.append((False, "content_block_stop", stop))
    return events


def anthropic_tool_blocks(calls: ToolCalls, n: int) -> list[dict[str, Any]]:
    """The ``tool_use`` content blocks of a reply sent without streaming."""
    return [
        {
            "type": "tool_use",
            "id": call_id("anthropic", n, position),
            "name": call["name"],
            "input": call.get("arguments") or {},
        }
        for position, call in enumerate(calls)
    ]


# --- prompt caching -------------------------------------------------------------------------


def block_size(block: dict[str, Any]) -> int:
    """Tokens of one Anthropic block (a tool definition, text, tool use or tool result)."""
    if "input_schema" in block:
        return _count(json.dumps({k: v for k, v in block.items() if k != "cache_control"}))
    if block.get("type") == "tool_use":
        return _count(str(block.get("name", "")) + json.dumps(block.get("input") or {}))
    if block.get("type") == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            return _count("".join(str(b.get("text", "")) for b in content))
        return _count(str(content or ""))
    return _count(str(block.get("text", "")))


def cache_split(
    keys: list[str], sizes: list[int], marked: list[int], seen: set[str]
) -> tuple[int, int]:
    """(read, written) for a prompt whose blocks have these prefix ``keys``.

    Like the real API: the longest prefix up to the last mark that an earlier request cached
    (at any block boundary, marked now or not) is read, and the prompt from there up to the last
    mark is written; every marked prefix is cached afterwards.
    """
    if not marked:
        return 0, 0
    end = marked[-1] + 1
    read_end = next((i + 1 for i in reversed(range(end)) if keys[i] in seen), 0)
    seen.update(keys[i] for i in marked)
    return sum(sizes[:read_end]), sum(sizes[read_end:end])
