"""What the providers built on an official SDK share (architecture "LLM providers").

Both the OpenAI-compatible and the Anthropic provider own an SDK client with its own retries
off, stream through ``stream_with_retries`` (retries only before the first token) and close the
client's pool only when they created it. Each subclass supplies ``_attempt`` (one request,
streamed as Chunks) and ``classify_error`` (SDK exception → ProviderError).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, MutableMapping
from typing import Any, Generic, Protocol, TypeVar

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


def release_sent_request(response: object) -> None:
    """Let go of the SDK's copies of a request that has been sent, before its reply streams.

    An SDK response keeps the request it came from for as long as it streams: the encoded body
    (on the httpx request, in a byte stream that httpcore's request shares), its headers and a
    deep copy of the parameters, a dict per message. Nothing reads them again (a retry builds
    a new request), yet a streaming session held them for the whole reply: a prompt of 16k
    tokens is ~64 KiB of body, per session (a 7 KB prompt of 21 messages: 52.6 -> 38.0 KiB
    per stream, server included). These are private attributes of the versions it was written
    for (openai 3.60, anthropic 2.17, httpx2 2.16): anything else is left as it is, and
    tests/engine/test_llm_sdk_release.py fails when an upgrade moves them.
    """
    http: Any = getattr(response, "http_response", None) or getattr(response, "response", None)
    request: Any = getattr(http, "_request", None)  # the property raises when there is none
    body: Any = getattr(request, "stream", None)
    if isinstance(getattr(body, "_stream", None), bytes):
        body._stream = b""
    if isinstance(getattr(request, "_content", None), bytes):
        request._content = b""
    headers: Any = getattr(request, "headers", None)
    if isinstance(headers, MutableMapping):  # ~2.6 KiB: the SDK sends some twenty headers
        headers.clear()
    options: Any = getattr(response, "_options", None)
    for field in ("json_data", "extra_json"):  # the parameters, and the body sent as extra_body
        if isinstance(getattr(options, field, None), dict):
            setattr(options, field, None)
    # The rest of that deep copy (~1.2 KiB: headers, timeout, the model's own dicts) is read
    # only to parse a whole response, which a stream read as bytes never does: one blank copy
    # of its class stands in for all of them.
    if options is not None and callable(getattr(type(options), "construct", None)):
        blank = _BLANK_OPTIONS.get(type(options))
        if blank is None:
            blank = _BLANK_OPTIONS[type(options)] = type(options).construct(method="post", url="")
        response._options = blank  # type: ignore[attr-defined]


_BLANK_OPTIONS: dict[type, Any] = {}
