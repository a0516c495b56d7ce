"""Scripted model turns and request tracing (issue "Game master II" §7).

``ScriptedProvider`` stands in for a model: each request takes the next scripted reply, its
text streamed in a few chunks, then its tool calls (ids ``t1``, ``t2``… in the order the whole
script makes them). It is how ``python -m engine gm --replies R.json`` and the tests drive the
game master's tool loop without a model. ``TracingProvider`` writes every request it forwards as
one JSON line (its director, messages and tools), for ``--trace``.

A reply is ``{"text": "...", "tool_calls": [{"name": ..., "arguments": {...}}]}``; both keys are
optional. Usage is estimated (``engine.tokens``) at zero cost, so a loop's sums are visible.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.llm.base import ChatRequest, Chunk, Provider, ProviderError, Usage
from engine.session import ToolCall
from engine.tokens import estimate_tokens


@dataclass(frozen=True)
class ScriptedReply:
    text: str = ""
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()  # (name, arguments)


class RepliesExhausted(ProviderError):
    """The model was asked for one reply more than the script holds."""

    def __init__(self, count: int) -> None:
        super().__init__(
            f"replies exhausted: the script holds {count} replies and the master asked for "
            f"reply {count + 1}",
            retryable=False,
        )


def parse_replies(data: Any) -> list[ScriptedReply]:
    """Read a script of replies; ValueError names what is wrong and where."""
    if not isinstance(data, list):
        raise ValueError('replies must be a list of {"text", "tool_calls"} objects')
    return [_reply(entry, f"replies[{n}]") for n, entry in enumerate(data)]


def _reply(entry: Any, where: str) -> ScriptedReply:
    if not isinstance(entry, dict):
        raise ValueError(f'{where} must be an object {{"text", "tool_calls"}}')
    text = entry.get("text", "")
    if not isinstance(text, str):
        raise ValueError(f"{where}.text must be a string")
    calls = entry.get("tool_calls", [])
    if not isinstance(calls, list):
        raise ValueError(f"{where}.tool_calls must be a list")
    parsed = []
    for n, call in enumerate(calls):
        at = f"{where}.tool_calls[{n}]"
        if not isinstance(call, dict):
            raise ValueError(f'{at} must be an object {{"name", "arguments"}}')
        name, arguments = call.get("name"), call.get("arguments", {})
        if not isinstance(name, str) or not name:
            raise ValueError(f"{at}.name must be a non-empty string")
        if not isinstance(arguments, dict):
            raise ValueError(f"{at}.arguments must be an object")
        parsed.append((name, arguments))
    return ScriptedReply(text=text, tool_calls=tuple(parsed))


def request_tokens(request: ChatRequest) -> int:
    """An estimate of the whole prompt: messages, tool calls and results, tool schemas."""
    text = json.dumps([m.to_dict() for m in request.messages], ensure_ascii=False)
    if request.tools:
        text += json.dumps(request.tools, ensure_ascii=False)
    return estimate_tokens(text)


class ScriptedProvider:
    """Answers each request with the next scripted reply; RepliesExhausted past the last."""

    name = "scripted"
    model = "scripted"

    def __init__(self, replies: Sequence[ScriptedReply]) -> None:
        self.replies = list(replies)
        self.used = 0
        self._ids = 0

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        if self.used >= len(self.replies):
            raise RepliesExhausted(len(self.replies))
        reply = self.replies[self.used]
        self.used += 1
        words = reply.text.split(" ")
        for start in range(0, len(words), 4):
            piece = " ".join(words[start : start + 4])
            yield Chunk(text=piece if start + 4 >= len(words) else piece + " ")
        calls = []
        for name, arguments in reply.tool_calls:
            self._ids += 1
            calls.append(ToolCall(id=f"t{self._ids}", name=name, arguments=dict(arguments)))
        if calls:
            yield Chunk(tool_calls=calls)
        out = reply.text + json.dumps([[n, a] for n, a in reply.tool_calls], ensure_ascii=False)
        usage = Usage(input_tokens=request_tokens(request), output_tokens=estimate_tokens(out))
        yield Chunk(usage=usage, finish_reason="tool_calls" if calls else "stop")


class TracingProvider:
    """Forwards to ``inner``, writing each request first as one JSON line."""

    def __init__(self, inner: Provider, write: Callable[[str], object]) -> None:
        self.inner = inner
        self.write = write
        self.calls = 0
        self.name = inner.name  # the loop tells a live provider from the offline one by name
        self.model = inner.model

    def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        self.calls += 1
        line = {
            "call": self.calls,
            "director": request.director or "master",
            "messages": [m.to_dict() for m in request.messages],
            "tools": request.tools or [],
            "tool_choice": request.tool_choice,
        }
        self.write(json.dumps(line, ensure_ascii=False) + "\n")
        return self.inner.stream(request)
