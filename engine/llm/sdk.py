"""What the providers built on an official SDK share (architecture "LLM providers").

Both the OpenAI-compatible and the Anthropic provider own an SDK client with its own retries
off, stream through ``stream_with_retries`` (retries only before the first token) and close the
client's pool only when they created it. Each subclass supplies ``_attempt`` (one request,
streamed as Chunks) and ``classify_error`` (SDK exception → ProviderError).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Generic, Protocol, TypeVar

from engine.llm.base import ChatRequest, Chunk, ProviderError, RetryPolicy, stream_with_retries
from engine.llm.pricing import DEFAULT_PRICES, PriceTable


class _Closable(Protocol):
    async def close(self) -> None: ...


ClientT = TypeVar("ClientT", bound=_Closable)


class SDKProvider(Generic[ClientT]):
    """A provider streaming through an SDK client it may own."""

    name = "sdk"

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        prices: PriceTable | None,
        policy: RetryPolicy,
        client: ClientT,
        owns_client: bool,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.prices = prices or DEFAULT_PRICES
        self.policy = policy
        self.client = client
        self._owns_client = owns_client

    async def aclose(self) -> None:
        """Close the SDK client's connection pool (not an injected client, its owner does)."""
        if self._owns_client:
            await self.client.close()

    def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        """Stream the reply to ``request``; failures raise ``ProviderError``."""
        return stream_with_retries(lambda: self._attempt(request), self._classify, self.policy)

    def _attempt(self, request: ChatRequest) -> AsyncGenerator[Chunk, None]:
        raise TypeError(f"{type(self).__name__} must define _attempt")

    def _classify(self, exc: Exception) -> ProviderError:
        raise TypeError(f"{type(self).__name__} must define _classify") from exc
