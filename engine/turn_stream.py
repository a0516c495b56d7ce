"""The model's reply as it streams, through the ``StreamFilter``, stoppable at any moment
(architecture "The turn, as data flows", step 4).

Apart from ``engine.turn_pipeline`` because waiting on the provider and on ``Turn.stop()`` at once
is its own concern (asyncio futures, closing the provider's iterator), and the step that maps a
provider failure to ``TurnFailed`` lives with it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from engine.directives import StreamFilter
from engine.llm.base import ChatRequest, Chunk, ProviderError, Usage
from engine.prompt import PromptResult
from engine.turn_events import Delta, TurnFailed

if TYPE_CHECKING:
    from engine.turn import Turn


class ReplyStream:
    """Streams one request through the filter, honouring ``Turn.stop()`` at any moment."""

    def __init__(
        self,
        turn: Turn,
        prompt: PromptResult,
        stream_filter: StreamFilter,
        player_text: str | None = None,
    ) -> None:
        self.turn = turn
        self.request = ChatRequest.from_settings(
            prompt.messages,
            prompt.breakpoint,
            turn.world.settings,
            turn.model,
            player_text=player_text,
        )
        self.filter = stream_filter
        self.raw = ""
        self.shown = ""
        self.choices: list[str] = []
        self.usage = Usage()
        self.stopped = False

    async def run(self) -> AsyncIterator[Delta]:
        turn = self.turn
        try:
            chunks = turn.provider.stream(self.request)
        except Exception as exc:
            raise _failed(exc, "") from exc
        inbox: asyncio.Queue[Any] = asyncio.Queue()
        pump = asyncio.ensure_future(_pump(chunks, inbox))
        stop_wait = asyncio.ensure_future(turn._stop_event.wait())
        stop_wait.add_done_callback(lambda _: inbox.put_nowait(_STOPPED))
        try:
            while True:
                chunk = await self._next(inbox)
                if chunk is None:
                    break
                self.raw += chunk.text
                if chunk.choices:
                    self.choices = list(chunk.choices)
                if chunk.usage is not None:
                    self.usage = chunk.usage
                shown = self.filter.feed(chunk.text) if chunk.text else ""
                if shown:
                    self.shown += shown
                    yield Delta(shown)
            tail = self.filter.close()
            if tail:
                self.shown += tail
                yield Delta(tail)
        finally:
            stop_wait.cancel()
            pump.cancel()
            await asyncio.wait([pump])  # its end, whatever it was; a cancel of ours propagates
            await _close(chunks)

    async def _next(self, inbox: asyncio.Queue[Any]) -> Chunk | None:
        """The next chunk, or None when the stream ended or ``stop()`` was called.

        One task reads the provider into ``inbox`` for the whole reply and a stop drops a
        marker into it, so waiting for a token is one queue read: racing a fresh task against
        the stop for every token cost more than the rest of the token's way to the socket.
        """
        if self.turn._stop_requested:
            self.stopped = True
            return None
        item = await inbox.get()
        if item is _STOPPED or self.turn._stop_requested:
            self.stopped = True
            return None
        if item is _ENDED:
            return None
        if isinstance(item, _Failure):
            raise _failed(item.error, self.shown) from item.error
        assert isinstance(item, Chunk)
        return item


_ENDED = object()
_STOPPED = object()


class _Failure:
    """The provider's exception, carried from the reading task to the reply's."""

    def __init__(self, error: Exception) -> None:
        self.error = error


async def _pump(chunks: AsyncIterator[Chunk], inbox: asyncio.Queue[Any]) -> None:
    try:
        async for chunk in chunks:
            inbox.put_nowait(chunk)
    except Exception as exc:
        inbox.put_nowait(_Failure(exc))
    else:
        inbox.put_nowait(_ENDED)


def _failed(exc: Exception, partial_text: str) -> TurnFailed:
    if isinstance(exc, ProviderError):
        return TurnFailed(
            exc.message,
            partial_text,
            retryable=exc.retryable,
            status=exc.status,
            detail=exc.detail,
        )
    return TurnFailed(
        "The model provider failed unexpectedly. Regenerate the turn to try again.",
        partial_text,
        detail=f"{type(exc).__name__}: {exc}",
    )


async def _close(chunks: AsyncIterator[Chunk]) -> None:
    aclose = getattr(chunks, "aclose", None)
    if aclose is not None:
        with contextlib.suppress(Exception):
            await aclose()
