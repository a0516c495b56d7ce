"""The OpenAI-compatible provider: OpenAI, OpenRouter, vLLM, llama.cpp (architecture "LLM").

Uses the official ``openai`` SDK with its own retries off; ``stream_with_retries`` retries
only before the first token. These endpoints cache prompt prefixes by themselves, so the
request's breakpoint is not sent; the cached share comes back as ``cached_tokens``.
"""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import TypeVar
from urllib.parse import urlparse

import openai
from openai import Omit, omit
from openai.types.chat import ChatCompletionMessageParam
from openai.types.completion_usage import CompletionUsage

from engine.llm.base import (
    ChatRequest,
    Chunk,
    ProviderError,
    RetryPolicy,
    Sleep,
    Usage,
    connection_error,
    looks_like_transport_error,
    status_error,
    stream_with_retries,
)
from engine.llm.pricing import DEFAULT_PRICES, PriceTable


class OpenAICompatProvider:
    """Streams chat completions from any endpoint that speaks the OpenAI wire protocol."""

    name = "openai"

    def __init__(
        self,
        api_key: str,
        *,
        model: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        first_token_timeout: float = 60.0,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        rng: random.Random | None = None,
        sleep: Sleep | None = None,
        prices: PriceTable | None = None,
        extra_sampling: bool | None = None,
        default_headers: Mapping[str, str] | None = None,
        client: openai.AsyncOpenAI | None = None,
    ) -> None:
        """``extra_sampling``: send top_k/min_p (None: yes, unless the endpoint is OpenAI's own)."""
        self.model = model
        self.base_url = base_url
        self.prices = prices or DEFAULT_PRICES
        self.official = base_url is None or urlparse(base_url).hostname == "api.openai.com"
        self.extra_sampling = (not self.official) if extra_sampling is None else extra_sampling
        self.policy = RetryPolicy(
            max_retries=max_retries,
            backoff_base=backoff_base,
            backoff_max=backoff_max,
            first_token_timeout=first_token_timeout,
            read_timeout=timeout,
            rng=rng or random.Random(),
        )
        if sleep is not None:
            self.policy.sleep = sleep
        self._owns_client = client is None
        self.client = client or openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=0,
            default_headers=default_headers,
        )

    async def aclose(self) -> None:
        """Close the SDK client's connection pool (not an injected client, its owner does)."""
        if self._owns_client:
            await self.client.close()

    def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        """Stream the reply to ``request``; failures raise ``ProviderError``."""
        return stream_with_retries(lambda: self._attempt(request), classify_error, self.policy)

    def extra_body(self, request: ChatRequest) -> dict[str, object]:
        """Sampling parameters outside OpenAI's API that compatible servers accept."""
        if not self.extra_sampling:
            return {}
        extra: dict[str, object] = {}
        if request.top_k:
            extra["top_k"] = request.top_k
        if request.min_p:
            extra["min_p"] = request.min_p
        return extra

    async def _attempt(self, request: ChatRequest) -> AsyncGenerator[Chunk, None]:
        model = request.model or self.model
        max_tokens = _given(request.max_tokens)
        stream = await self.client.chat.completions.create(
            model=model,
            messages=[to_openai_message(m.role, m.content) for m in request.messages],
            stream=True,
            stream_options={"include_usage": True},
            temperature=_given(request.temperature),
            top_p=_given(request.top_p),
            frequency_penalty=_given(request.frequency_penalty),
            presence_penalty=_given(request.presence_penalty),
            stop=request.stop or omit,
            # OpenAI's newer models refuse max_tokens; the compatible servers only know it.
            max_completion_tokens=max_tokens if self.official else omit,
            max_tokens=omit if self.official else max_tokens,
            response_format={"type": "json_object"} if request.structured_output else omit,
            extra_body=self.extra_body(request) or None,
        )
        usage = Usage()
        finish_reason: str | None = None
        try:
            async for event in stream:
                if event.usage is not None:
                    usage = usage_from_openai(event.usage)
                for choice in event.choices:
                    if choice.index != 0:
                        continue
                    finish_reason = choice.finish_reason or finish_reason
                    if choice.delta is not None and choice.delta.content:
                        yield Chunk(text=choice.delta.content)
        finally:
            await stream.close()
        usage.cost = self.prices.cost(usage, model)
        yield Chunk(usage=usage, finish_reason=finish_reason)


def to_openai_message(role: str, content: str) -> ChatCompletionMessageParam:
    """One chat message in OpenAI's shape; unknown roles are sent as the user's."""
    if role == "system":
        return {"role": "system", "content": content}
    if role == "assistant":
        return {"role": "assistant", "content": content}
    return {"role": "user", "content": content}


def usage_from_openai(raw: CompletionUsage) -> Usage:
    """Split OpenAI's prompt count (which includes cached tokens) into our three buckets."""
    details = raw.prompt_tokens_details
    cache_read = (details.cached_tokens or 0) if details else 0
    cache_write = (details.cache_write_tokens or 0) if details else 0
    return Usage(
        input_tokens=max(0, raw.prompt_tokens - cache_read - cache_write),
        output_tokens=raw.completion_tokens,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
    )


def classify_error(exc: Exception) -> ProviderError:
    """Map what the ``openai`` SDK raised to a ``ProviderError``."""
    if isinstance(exc, openai.APIStatusError):
        return status_error(exc.status_code, exc.message, _retry_after(exc.response.headers))
    if isinstance(exc, openai.APIConnectionError) or looks_like_transport_error(exc):
        return connection_error(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, openai.APIError):
        # An error object inside the event stream (OpenRouter sends upstream failures so).
        code = exc.body.get("code") if isinstance(exc.body, dict) else None
        status = code if isinstance(code, int) and 400 <= code < 600 else 502
        return status_error(status, exc.message)
    return ProviderError(
        "The model provider sent an answer that could not be read.",
        detail=f"{type(exc).__name__}: {exc}",
    )


T = TypeVar("T")


def _given(value: T | None) -> T | Omit:
    return omit if value is None else value


def _retry_after(headers: Mapping[str, str]) -> float | None:
    try:
        return float(headers.get("retry-after", ""))
    except ValueError:
        return None
