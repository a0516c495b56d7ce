"""Run modes record and replay (seed 001 "Modos de ejecución").

``RecordingProvider`` wraps a live provider and keeps every completed exchange in a
``Recording``; ``ReplayProvider`` streams them back at zero cost and answers offline when an
exchange is missing. A recording is plain JSON, so a session recorded with a fixed dice seed
can be exported and replayed as a demo that spends no tokens.

An exchange is keyed by the SHA-256 of the canonical JSON of the request's messages and its
``model`` field as given (empty when the provider's own model was meant), so the key does not
depend on which provider answers. A request that offers tools adds their names and the tool
choice to the key (the messages carry the tool calls and results), and an exchange keeps the
tool calls the model made, so a game master's tool loop replays call for call.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.llm.base import ChatRequest, Chunk, Provider, Usage
from engine.llm.offline import OfflineProvider
from engine.session import ToolCall

RECORDING_FORMAT = "fabula-recording"
RECORDING_VERSION = 1


def exchange_key(request: ChatRequest) -> str:
    """The key of ``request`` in a recording."""
    keyed: dict[str, Any] = {
        "messages": [m.to_dict() for m in request.messages],
        "model": request.model,
    }
    if request.tools:
        keyed["tools"] = [tool.get("name") for tool in request.tools]
        keyed["tool_choice"] = request.tool_choice
    canonical = json.dumps(
        keyed,
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass
class Exchange:
    """One recorded reply: its text chunks as streamed, suggestions, tool calls, usage and
    finish reason."""

    chunks: list[str] = field(default_factory=list)
    choices: list[str] | None = None
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "chunks": list(self.chunks),
            "choices": list(self.choices) if self.choices is not None else None,
            "usage": self.usage.to_dict(),
            "finish_reason": self.finish_reason,
        }
        if self.tool_calls:
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Exchange:
        """Read an exchange; non-text chunks, choices and tool calls are dropped, not fatal."""
        chunks = data.get("chunks")
        choices = data.get("choices")
        usage = data.get("usage")
        finish = data.get("finish_reason")
        calls = data.get("tool_calls")
        return cls(
            chunks=[c for c in chunks if isinstance(c, str)] if isinstance(chunks, list) else [],
            choices=[c for c in choices if isinstance(c, str)]
            if isinstance(choices, list)
            else None,
            usage=Usage.from_dict(usage if isinstance(usage, dict) else None),
            finish_reason=finish if isinstance(finish, str) else None,
            tool_calls=[ToolCall.from_dict(c) for c in calls if isinstance(c, dict)]
            if isinstance(calls, list)
            else [],
        )


class Recording:
    """A JSON-serialisable store of exchanges by ``exchange_key``."""

    def __init__(self, exchanges: Mapping[str, Exchange] | None = None) -> None:
        self.exchanges: dict[str, Exchange] = dict(exchanges or {})

    def __len__(self) -> int:
        return len(self.exchanges)

    def __contains__(self, key: object) -> bool:
        return key in self.exchanges

    def __iter__(self) -> Iterator[str]:
        return iter(self.exchanges)

    def get(self, key: str) -> Exchange | None:
        return self.exchanges.get(key)

    def put(self, key: str, exchange: Exchange) -> None:
        """Store ``exchange``; a later exchange for the same request replaces the earlier one."""
        self.exchanges[key] = exchange

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": RECORDING_FORMAT,
            "version": RECORDING_VERSION,
            "exchanges": {key: exchange.to_dict() for key, exchange in self.exchanges.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recording:
        """Read a recording; anything that is not one raises ``ValueError``."""
        exchanges = data.get("exchanges")
        if data.get("format") != RECORDING_FORMAT or not isinstance(exchanges, dict):
            raise ValueError("This file is not a Fabula recording.")
        return cls(
            {
                str(key): Exchange.from_dict(value)
                for key, value in exchanges.items()
                if isinstance(value, dict)
            }
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> Recording:
        """Parse ``to_json`` output; invalid JSON or another document raises ``ValueError``."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"This file is not a Fabula recording: {exc}") from exc
        if not isinstance(data, dict):
            raise ValueError("This file is not a Fabula recording.")
        return cls.from_dict(data)


class RecordingProvider:
    """Streams through ``inner`` and records every exchange that completes."""

    name = "record"

    def __init__(self, inner: Provider, recorder: Recording) -> None:
        self.inner = inner
        self.recording = recorder

    @property
    def model(self) -> str:
        return self.inner.model

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        """Stream ``inner``'s reply unchanged; a failed or abandoned reply is not recorded."""
        exchange = Exchange()
        async for chunk in self.inner.stream(request):
            if chunk.text:
                exchange.chunks.append(chunk.text)
            if chunk.choices is not None:
                exchange.choices = list(chunk.choices)
            if chunk.tool_calls:
                exchange.tool_calls.extend(chunk.tool_calls)
            if chunk.usage is not None:
                exchange.usage = chunk.usage
            if chunk.finish_reason is not None:
                exchange.finish_reason = chunk.finish_reason
            yield chunk
        self.recording.put(exchange_key(request), exchange)


class ReplayProvider:
    """Streams recorded exchanges at zero cost; a missing one is answered by ``fallback``."""

    name = "replay"
    model = "replay"

    def __init__(self, recording: Recording, fallback: Provider | None = None) -> None:
        self.recording = recording
        self.fallback: Provider = fallback or OfflineProvider()
        self.misses: list[str] = []  # keys that were not in the recording, in order

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        """Replay the exchange for ``request`` chunk by chunk, with zero usage."""
        key = exchange_key(request)
        exchange = self.recording.get(key)
        if exchange is None:
            self.misses.append(key)
            async for chunk in self.fallback.stream(request):
                yield chunk
            return
        for text in exchange.chunks:
            yield Chunk(text=text)
        if exchange.tool_calls:
            yield Chunk(tool_calls=list(exchange.tool_calls))
        if exchange.choices is not None:
            yield Chunk(choices=list(exchange.choices))
        yield Chunk(usage=Usage(), finish_reason=exchange.finish_reason)
