"""The OpenAI-compatible provider: OpenAI, OpenRouter, vLLM, llama.cpp (architecture "LLM").

Uses the official ``openai`` SDK with its own retries off; ``stream_with_retries`` retries
only before the first token. The SDK sends the request and raises HTTP errors; the event stream
is read raw and decoded with ``json.loads`` (engine.llm.sse), since a pydantic chunk model per
token was most of the relay's CPU. These endpoints cache prompt prefixes by themselves, so the
request's breakpoint is not sent; the cached share comes back as ``cached_tokens``. Tool calls
(engine.llm.tools) stream as ``delta.tool_calls`` pieces and are yielded whole, once complete.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncGenerator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlparse

import openai
from openai import Omit, omit
from openai.types.chat import ChatCompletionMessageParam

from engine.llm.base import (
    ChatRequest,
    Chunk,
    ProviderError,
    Sleep,
    Usage,
    connection_error,
    looks_like_transport_error,
    retry_after,
    retry_policy,
    sdk_timeout,
    status_error,
)
from engine.llm.pricing import PriceTable
from engine.llm.sdk import SDKProvider, release_sent_request
from engine.llm.sse import iter_events
from engine.llm.tools import OpenAIToolCalls, openai_message, openai_tool_choice, openai_tools

if TYPE_CHECKING:
    from openai import AsyncStream
    from openai._response import AsyncAPIResponse, AsyncResponseContextManager
    from openai.types.chat import ChatCompletionChunk

    Streaming = AsyncResponseContextManager[AsyncAPIResponse[AsyncStream[ChatCompletionChunk]]]
    import httpx2


class OpenAICompatProvider(SDKProvider[openai.AsyncOpenAI]):
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
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        """``extra_sampling``: send top_k/min_p (None: yes, unless the endpoint is OpenAI's own).

        ``http_client``: the SDK sends through it (the play app pins users' servers so).
        """
        self.official = base_url is None or urlparse(base_url).hostname == "api.openai.com"
        self.extra_sampling = (not self.official) if extra_sampling is None else extra_sampling
        super().__init__(
            model=model,
            base_url=base_url,
            prices=prices,
            policy=retry_policy(
                max_retries=max_retries,
                backoff_base=backoff_base,
                backoff_max=backoff_max,
                first_token_timeout=first_token_timeout,
                read_timeout=timeout,
                rng=rng,
                sleep=sleep,
            ),
            client=client
            or openai.AsyncOpenAI(
                api_key=api_key,
                base_url=base_url,
                timeout=sdk_timeout(timeout, first_token_timeout),
                max_retries=0,
                default_headers=default_headers,
                http_client=http_client,
            ),
            owns_client=client is None,
        )

    def _classify(self, exc: Exception) -> ProviderError:
        return classify_error(exc)

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
        reader = _StreamReader()
        async with self._send(request, model) as raw:
            release_sent_request(raw)
            async for event in iter_events(raw.iter_bytes()):
                for chunk in reader.read(event.data):
                    yield chunk
        rest = reader.calls.finish()
        if rest:
            yield Chunk(tool_calls=rest)
        reader.usage.cost = self.prices.cost(reader.usage, model)
        yield Chunk(usage=reader.usage, finish_reason=reader.finish_reason)

    def _send(self, request: ChatRequest, model: str) -> Streaming:
        """The streaming request, to enter. Its body is built here, not in ``_attempt``, whose
        frame lives as long as the reply streams (``release_sent_request`` says why)."""
        max_tokens = _given(request.max_tokens)
        # The SDK walks every parameter through its TypedDict unions before sending: 3.7 ms for
        # a 31-message prompt, on the event loop that every other session's tokens wait for.
        # Messages and tools are plain JSON already, so they go as body keys, sent as they are.
        body: dict[str, object] = {"messages": [openai_message(m) for m in request.messages]}
        body.update(self.extra_body(request), **_tool_options(request))
        return self.client.chat.completions.with_streaming_response.create(
            model=model,
            messages=(),  # sent from ``body``
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
            extra_body=body,
        )


class _StreamReader:
    """Reads one stream's events: text and complete tool calls out, usage and finish kept."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.finish_reason: str | None = None
        self.calls = OpenAIToolCalls()
        self.done = False

    def read(self, payload: str) -> list[Chunk]:
        # After [DONE] the body is still read to its end, so the connection is reused.
        if self.done or payload.startswith("[DONE]"):
            self.done = True
            return []
        data = json.loads(payload)
        if not isinstance(data, dict):
            return []
        if data.get("error"):
            raise stream_error(data["error"])
        if data.get("usage"):
            self.usage = usage_from_openai(data["usage"])
        out: list[Chunk] = []
        for choice in data.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            self.finish_reason = choice.get("finish_reason") or self.finish_reason
            out += _choice_chunks(choice, self.calls)
        return out


def _choice_chunks(choice: dict[str, Any], calls: OpenAIToolCalls) -> list[Chunk]:
    """A streamed choice's text, and the tool calls it shows to be complete."""
    delta = choice.get("delta") or {}
    out = [Chunk(text=delta["content"])] if delta.get("content") else []
    complete = calls.feed(delta.get("tool_calls") or ())
    out += [Chunk(tool_started=name) for name in calls.take_started()]
    if choice.get("finish_reason"):
        complete += calls.finish()
    if complete:
        out.append(Chunk(tool_calls=complete))
    return out


def _tool_options(request: ChatRequest) -> dict[str, Any]:
    """``tools`` and ``tool_choice`` in OpenAI's shape, when the request offers tools."""
    if not request.tools:
        return {}
    options: dict[str, Any] = {"tools": openai_tools(request.tools)}
    if request.tool_choice is not None:
        options["tool_choice"] = openai_tool_choice(request.tool_choice)
    return options


def to_openai_message(role: str, content: str) -> ChatCompletionMessageParam:
    """One chat message in OpenAI's shape; unknown roles are sent as the user's."""
    if role == "system":
        return {"role": "system", "content": content}
    if role == "assistant":
        return {"role": "assistant", "content": content}
    return {"role": "user", "content": content}


def usage_from_openai(raw: dict[str, Any]) -> Usage:
    """Split OpenAI's prompt count (which includes cached tokens) into our three buckets."""
    details = raw.get("prompt_tokens_details") or {}
    cache_read = _count(details.get("cached_tokens"))
    cache_write = _count(details.get("cache_write_tokens"))
    return Usage(
        input_tokens=max(0, _count(raw.get("prompt_tokens")) - cache_read - cache_write),
        output_tokens=_count(raw.get("completion_tokens")),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
    )


def stream_error(error: object) -> ProviderError:
    """An error object inside the event stream (OpenRouter sends upstream failures so)."""
    body = error if isinstance(error, dict) else {}
    code = body.get("code")
    status = code if isinstance(code, int) and 400 <= code < 600 else 502
    message = body.get("message")
    return status_error(status, message if isinstance(message, str) else str(error))


def classify_error(exc: Exception) -> ProviderError:
    """Map what the ``openai`` SDK raised to a ``ProviderError``."""
    if isinstance(exc, openai.APIStatusError):
        return status_error(exc.status_code, exc.message, retry_after(exc.response.headers))
    if isinstance(exc, openai.APIConnectionError) or looks_like_transport_error(exc):
        return connection_error(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, openai.APIError):
        return stream_error(exc.body if isinstance(exc.body, dict) else {"message": exc.message})
    return ProviderError(
        "The model provider sent an answer that could not be read.",
        detail=f"{type(exc).__name__}: {exc}",
    )


T = TypeVar("T")


def _given(value: T | None) -> T | Omit:
    return omit if value is None else value


def _count(value: object) -> int:
    return value if isinstance(value, int) else 0
