"""The Anthropic provider (architecture "LLM providers", "Prompt and cache").

Uses the official ``anthropic`` SDK with its own retries off; ``stream_with_retries`` retries
only before the first token. The Messages API wants the system prompt apart and strictly
alternating turns, so ``to_anthropic`` reshapes the assembled prompt:

- system messages inside the cacheable prefix (``messages[:breakpoint]``; without a breakpoint,
  the leading run of system messages) go to the ``system`` parameter, in order;
- every other system message (triggered entries, depth injections, post-history…) becomes user
  text wrapped in ``<system>…</system>`` at its own place. Appending them to ``system`` instead
  would change the system prompt every turn, and since the system prompt comes first in
  Anthropic's cache order, that would throw the whole cached prefix away;
- consecutive messages of one role merge into one turn, each message its own text block, so the
  breakpoint can sit on the exact block where the prefix ends; empty messages are dropped;
- ``cache_control: {"type": "ephemeral"}`` marks the last block of the prefix as laid out
  (the last prefix turn block, or the last system block when the prefix holds only system);
- a conversation must open with a user turn: "[Start]" is put before an opening assistant turn,
  and "[Continue]" stands in when there is no turn at all;
- tools (engine.llm.tools): an assistant turn's ``tool_calls`` become ``tool_use`` blocks, a
  ``role="tool"`` result a ``tool_result`` block in a user turn; the last tool definition is
  marked too, and ``cache_tail`` marks the last block, so each call of a tool loop reads the
  previous call's prompt from cache.

Sampling: temperature is clamped to Anthropic's [0, 1]; top_p is sent only below 1 and top_k
only above 0 (their neutral values), so the common defaults never clash on models that refuse
temperature and top_p together. Frequency and presence penalties and min_p do not exist there.
"""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import anthropic
from anthropic.types import (
    MessageParam,
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawContentBlockStopEvent,
    RawMessageDeltaEvent,
    RawMessageStartEvent,
    TextBlockParam,
)

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
from engine.llm.tools import (
    EPHEMERAL,
    AnthropicToolUse,
    anthropic_blocks,
    anthropic_tool_choice,
    anthropic_tools,
)
from engine.session import Message

if TYPE_CHECKING:
    import httpx2
    from anthropic import AsyncStream
    from anthropic.types import RawMessageStreamEvent

START_TURN = "[Start]"
CONTINUE_TURN = "[Continue]"
_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
}
# Error events inside a 200 stream carry a type instead of a status.
_ERROR_EVENT_STATUS = {
    "overloaded_error": 529,
    "api_error": 500,
    "rate_limit_error": 429,
    "request_too_large": 413,
    "invalid_request_error": 400,
}


class AnthropicProvider(SDKProvider[anthropic.AsyncAnthropic]):
    """Streams replies from the Anthropic Messages API, caching the prompt's fixed prefix."""

    name = "anthropic"

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
        default_max_tokens: int = 4096,
        rng: random.Random | None = None,
        sleep: Sleep | None = None,
        prices: PriceTable | None = None,
        default_headers: Mapping[str, str] | None = None,
        client: anthropic.AsyncAnthropic | None = None,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        """``default_max_tokens`` is sent when a request sets none (the API requires one).

        ``http_client``: the SDK sends through it (the play app pins users' servers so).
        """
        self.default_max_tokens = default_max_tokens
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
            or anthropic.AsyncAnthropic(
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

    async def _attempt(self, request: ChatRequest) -> AsyncGenerator[Chunk, None]:
        model = request.model or self.model
        stream = await self._send(request, model)
        release_sent_request(stream)
        reader = _EventReader()
        try:
            async for event in stream:
                chunk = reader.read(event)
                if chunk is not None:
                    yield chunk
        finally:
            await stream.close()
        reader.usage.cost = self.prices.cost(reader.usage, model)
        yield Chunk(usage=reader.usage, finish_reason=reader.finish_reason)

    async def _send(self, request: ChatRequest, model: str) -> AsyncStream[RawMessageStreamEvent]:
        """The streaming request, sent. Its body is built here, not in ``_attempt``, whose frame
        lives as long as the reply streams (``release_sent_request`` says why)."""
        system, messages = to_anthropic(request.messages, request.breakpoint, request.cache_tail)
        stream = await self.client.messages.create(
            model=model,
            max_tokens=request.max_tokens or self.default_max_tokens,
            messages=messages,
            system=system or anthropic.omit,
            stop_sequences=request.stop or anthropic.omit,
            stream=True,
            extra_body=sampling(request) or None,
            **_tool_options(request),
        )
        return cast("AsyncStream[RawMessageStreamEvent]", stream)  # the tool options' ** hide it


class _EventReader:
    """Reads one stream's events: text and finished tool calls out, usage and stop kept."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.finish_reason: str | None = None
        self.calls = AnthropicToolUse()

    def read(self, event: object) -> Chunk | None:
        if isinstance(event, RawContentBlockDeltaEvent):
            if event.delta.type == "text_delta" and event.delta.text:
                return Chunk(text=event.delta.text)
            if event.delta.type == "input_json_delta":
                self.calls.delta(event.index, event.delta.partial_json)
        elif isinstance(event, RawContentBlockStartEvent):
            block = event.content_block
            if block.type == "tool_use":
                self.calls.start(event.index, block.id, block.name)
                return Chunk(tool_started=block.name)
        elif isinstance(event, RawContentBlockStopEvent):
            call = self.calls.stop(event.index)
            return Chunk(tool_calls=[call]) if call is not None else None
        elif isinstance(event, RawMessageStartEvent):
            start = event.message.usage
            self.usage = Usage(
                input_tokens=start.input_tokens,
                output_tokens=start.output_tokens,
                cache_read_tokens=start.cache_read_input_tokens or 0,
                cache_write_tokens=start.cache_creation_input_tokens or 0,
            )
        elif isinstance(event, RawMessageDeltaEvent):
            self.message_delta(event)
        return None

    def message_delta(self, event: RawMessageDeltaEvent) -> None:
        # message_delta counts are cumulative: they replace message_start's.
        delta, usage = event.usage, self.usage
        usage.output_tokens = delta.output_tokens
        if delta.input_tokens is not None:
            usage.input_tokens = delta.input_tokens
        if delta.cache_read_input_tokens is not None:
            usage.cache_read_tokens = delta.cache_read_input_tokens
        if delta.cache_creation_input_tokens is not None:
            usage.cache_write_tokens = delta.cache_creation_input_tokens
        if event.delta.stop_reason:
            reason = event.delta.stop_reason
            self.finish_reason = _FINISH_REASONS.get(reason, reason)


def _tool_options(request: ChatRequest) -> dict[str, Any]:
    """``tools`` and ``tool_choice`` in Anthropic's shape, when the request offers tools."""
    if not request.tools:
        return {}
    options: dict[str, Any] = {"tools": anthropic_tools(request.tools)}
    if request.tool_choice is not None:
        options["tool_choice"] = anthropic_tool_choice(request.tool_choice)
    return options


def sampling(request: ChatRequest) -> dict[str, object]:
    """The sampling parameters Anthropic accepts, at non-neutral values only (see module doc)."""
    params: dict[str, object] = {}
    if request.temperature is not None:
        params["temperature"] = min(1.0, max(0.0, request.temperature))
    if request.top_p is not None and request.top_p < 1:
        params["top_p"] = request.top_p
    if request.top_k:
        params["top_k"] = request.top_k
    return params


def to_anthropic(
    messages: Sequence[Message], breakpoint: int | None, cache_tail: bool = False
) -> tuple[list[TextBlockParam], list[MessageParam]]:
    """Split a prompt into Anthropic's ``system`` blocks and alternating turns (see module doc)."""
    if breakpoint is None:
        prefix_end = next((i for i, m in enumerate(messages) if m.role != "system"), len(messages))
    else:
        prefix_end = max(0, min(breakpoint, len(messages)))
    system: list[TextBlockParam] = []
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    last_prefix_turn_block: dict[str, Any] | None = None
    for index, message in enumerate(messages):
        in_prefix = index < prefix_end
        if message.role == "system" and in_prefix:
            if message.content.strip():
                system.append({"type": "text", "text": message.content})
            continue
        role = "assistant" if message.role == "assistant" else "user"
        text = message.content
        if message.role == "system" and text.strip():
            text = f"<system>\n{text}\n</system>"
        blocks = anthropic_blocks(message, text)
        if not blocks:
            continue
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
        if in_prefix:
            last_prefix_turn_block = blocks[-1]
    if breakpoint is not None and prefix_end > 0:
        marked = last_prefix_turn_block or (system[-1] if system else None)
        if marked is not None:
            marked["cache_control"] = {"type": "ephemeral"}
    if cache_tail and turns:
        turns[-1][1][-1]["cache_control"] = dict(EPHEMERAL)
    return system, _alternating(turns)


def _alternating(turns: list[tuple[str, list[dict[str, Any]]]]) -> list[MessageParam]:
    """The turns as the API wants them: opening with the user's, no trailing prefill space."""
    if not turns:
        turns.append(("user", [{"type": "text", "text": CONTINUE_TURN}]))
    elif turns[0][0] == "assistant":
        turns.insert(0, ("user", [{"type": "text", "text": START_TURN}]))
    last = turns[-1][1][-1]
    if turns[-1][0] == "assistant" and last["type"] == "text":
        # A final assistant turn is a prefill, which the API refuses with trailing whitespace.
        last["text"] = last["text"].rstrip()
    return [cast(MessageParam, {"role": r, "content": b}) for r, b in turns]


def classify_error(exc: Exception) -> ProviderError:
    """Map what the ``anthropic`` SDK (or its HTTP library, mid-stream) raised."""
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        if status < 300:  # an error event inside a 200 stream; a 3xx is a real (refused) redirect
            error = exc.body.get("error") if isinstance(exc.body, dict) else None
            kind = error.get("type") if isinstance(error, dict) else None
            status = _ERROR_EVENT_STATUS.get(str(kind), 500)
        return status_error(status, exc.message, retry_after(exc.response.headers))
    if isinstance(exc, anthropic.APIConnectionError) or looks_like_transport_error(exc):
        return connection_error(f"{type(exc).__name__}: {exc}")
    return ProviderError(
        "The model provider sent an answer that could not be read.",
        detail=f"{type(exc).__name__}: {exc}",
    )
