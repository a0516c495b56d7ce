"""Server-sent events, decoded without the SDKs' per-chunk models (architecture "LLM providers").

The providers stream through the official SDKs' raw responses and decode the events here: a
pydantic model per streamed token costs more CPU than the rest of the relay path together.
Only what the chat APIs use is kept: ``event:`` and ``data:`` fields (multi-line data joined
with newlines), comments and other fields ignored, an event dispatched on its blank line.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    """One dispatched event; ``event`` is empty when the server named none."""

    event: str
    data: str


class SSEDecoder:
    """Turn byte chunks, split anywhere, into events; a partial line waits for the next chunk."""

    def __init__(self) -> None:
        self._buffer = b""
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[Event]:
        """The events that ``chunk`` completes; bad UTF-8 is replaced, never raised."""
        buffer = self._buffer + chunk
        lines = buffer.split(b"\n")
        self._buffer = lines.pop()
        events: list[Event] = []
        for raw in lines:
            line = raw[:-1] if raw.endswith(b"\r") else raw
            if not line:
                if self._data:
                    events.append(Event(self._event, "\n".join(self._data)))
                self._event, self._data = "", []
                continue
            name, _, value = line.partition(b":")
            if value.startswith(b" "):
                value = value[1:]
            if name == b"data":
                self._data.append(value.decode("utf-8", "replace"))
            elif name == b"event":
                self._event = value.decode("utf-8", "replace")
        return events

    def close(self) -> list[Event]:
        """The last event of a stream that ended without its blank line."""
        events = self.feed(b"\n\n") if self._buffer or self._data else []
        self._buffer = b""
        return events


async def iter_events(chunks: AsyncIterable[bytes]) -> AsyncIterator[Event]:
    """Decode a byte stream into events."""
    decoder = SSEDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    for event in decoder.close():
        yield event
