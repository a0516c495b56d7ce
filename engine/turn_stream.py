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
    from engine.turn_setup import TurnSetup


class ReplyStream:
    """Streams one request through the filter, honouring ``Turn.stop()`` at any moment."""

    def __init__(
        self,
        turn: TurnSetup,
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
        self.choices: list[str] = []
        self.usage = Usage()
        self.stopped = False

    @property
    def raw(self) -> str:
        """The model's whole reply so far, unfiltered: the filter's own copy, the only one."""
        return self.filter.raw

    async def run(self) -> AsyncIterator[Delta]:
        turn = self.turn
        try:
            chunks = turn.provider.stream(self.request)
        except Exception as exc:
            raise _failed(exc, "") from exc
        reader = _Reader(chunks)
        turn._on_stop = reader.interrupt
        try:
            while True:
                if turn._stop_requested:
                    self.stopped = True
                    break
                try:
                    chunk = await reader.next()
                except _Interrupted:
                    self.stopped = True
                    break
                except Exception as exc:
                    raise _failed(exc, self.filter.shown()) from exc
                if chunk is None:
                    break
                if chunk.choices:
                    self.choices = list(chunk.choices)
                if chunk.usage is not None:
                    self.usage = chunk.usage
                shown = self.filter.feed(chunk.text) if chunk.text else ""
                if shown:
                    yield Delta(shown)
            tail = self.filter.close()
            if tail:
                yield Delta(tail)
        finally:
            turn._on_stop = None
            await _close(chunks)


class _Interrupted(Exception):
    """``Turn.stop()`` came while the reply waited for the model's next chunk."""


class _Reader:
    """The provider's chunks, read by the reply's own task; a stop interrupts a waiting read.

    Reading in a second task, handed over through a queue, cost a task wake-up and a queue
    hand-off per token: a tenth of a play process's CPU at 500 streaming sessions
    (bench/relay.py). Here a stop cancels the reading task only while it waits on the model,
    and that cancel comes back as ``_Interrupted``; a cancel from anyone else stays a cancel.
    """

    def __init__(self, chunks: AsyncIterator[Chunk]) -> None:
        self.chunks = chunks
        self.task: asyncio.Task[Any] | None = None  # set while a read waits
        self.interrupted = False

    async def next(self) -> Chunk | None:
        self.task = asyncio.current_task()
        try:
            return await anext(self.chunks, None)
        except asyncio.CancelledError:
            task = self.task
            if self.interrupted and task is not None and task.uncancel() == 0:
                raise _Interrupted() from None
            raise
        finally:
            self.task = None

    def interrupt(self) -> None:
        if self.task is not None and not self.interrupted:
            self.interrupted = True
            self.task.cancel()


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
