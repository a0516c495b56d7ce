"""Helpers shared by the test tiers: the loopback model server and provider test doubles."""

from __future__ import annotations

from collections.abc import AsyncIterator

from engine.llm.base import ChatRequest, Chunk, Provider


class FakeSleep:
    """An ``asyncio.sleep`` stand-in that records delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


async def collect(provider: Provider, request: ChatRequest) -> list[Chunk]:
    """Every chunk ``provider`` streams for ``request``."""
    stream: AsyncIterator[Chunk] = provider.stream(request)
    return [chunk async for chunk in stream]


def text_of(chunks: list[Chunk]) -> str:
    return "".join(chunk.text for chunk in chunks)
