"""The provider contract: requests, chunks, usage, errors and the shared retry loop.

Architecture "LLM providers": ``Provider.stream(request)`` yields text ``Chunk`` s (and, when the
request offers tools, complete tool calls) and ends with one carrying ``Usage``. A failure before
the first token is retried with exponential backoff (408, 429, 5xx, connection errors, a first
token that never comes); after the first token or tool call it is raised at once, because half
a reply was already handed on.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from engine.llm.read_deadline import ReadDeadline
from engine.session import Message, ToolCall
from engine.world import Settings

RETRYABLE_STATUSES = frozenset({408, 409, 429})

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class ChatRequest:
    """One call to a model; ``messages[:breakpoint]`` is the cacheable prefix."""

    messages: list[Message]
    breakpoint: int | None = None
    model: str = ""  # empty: the provider's own model
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    structured_output: bool = False
    stop: list[str] | None = None
    # What the player typed this turn; never sent to an API. The offline narrator answers it,
    # since the prompt's last user message may be a creator's post-history entry instead.
    player_text: str | None = None
    # Tool calling: provider-neutral schemas {name, description, parameters}; tool_choice is
    # "auto", "none" or {"name": ...} (that tool is forced). cache_tail also caches up to the
    # last message, so each further call of a tool loop reads the previous one from cache.
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, str] | None = None
    cache_tail: bool = False
    # Which director made the request (engine.gm.directors: "game", "story", "scene", "ooc"); None
    # for the one tool-calling master. Never sent to an API; --trace prints it.
    director: str | None = None

    @classmethod
    def from_settings(
        cls,
        messages: Sequence[Message],
        breakpoint: int | None,
        settings: Settings,
        model: str = "",
        player_text: str | None = None,
    ) -> ChatRequest:
        """Build a request carrying a world's sampling settings."""
        return cls(
            player_text=player_text,
            messages=list(messages),
            breakpoint=breakpoint,
            model=model,
            temperature=settings.temperature,
            top_p=settings.top_p,
            max_tokens=settings.max_tokens,
            frequency_penalty=settings.frequency_penalty,
            presence_penalty=settings.presence_penalty,
            top_k=settings.top_k,
            min_p=settings.min_p,
            structured_output=settings.structured_output,
        )


@dataclass
class Usage:
    """Tokens and cost of one call.

    ``input_tokens`` counts only prompt tokens billed at the plain input rate; cache reads and
    cache writes are counted apart, so the whole prompt is the sum of the three.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float = 0.0  # USD

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    def plus(self, other: Usage) -> Usage:
        """Both calls together (a tool loop's usage is the sum of its calls)."""
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cost=self.cost + other.cost,
        )

    def to_dict(self) -> dict[str, int | float]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "cost": self.cost,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object] | None) -> Usage:
        data = data or {}

        def number(key: str) -> float:
            value = data.get(key, 0)
            return float(value) if isinstance(value, int | float) else 0.0

        return cls(
            input_tokens=int(number("input_tokens")),
            output_tokens=int(number("output_tokens")),
            cache_read_tokens=int(number("cache_read_tokens")),
            cache_write_tokens=int(number("cache_write_tokens")),
            cost=number("cost"),
        )


@dataclass(frozen=True)
class Chunk:
    """A piece of a streamed reply; the last one carries ``usage`` and ``finish_reason``.
    ``tool_calls`` holds calls whose streaming finished, complete with their arguments."""

    text: str = ""
    usage: Usage | None = None
    choices: list[str] | None = None  # suggested actions (offline provider)
    finish_reason: str | None = None
    tool_calls: list[ToolCall] | None = None
    # The name of a tool call whose streaming just began (its arguments still to come), so a
    # tool loop can say what is being written before the call is whole (issue 37 §1).
    tool_started: str | None = None


@runtime_checkable
class Provider(Protocol):
    """Anything that streams a reply for a ``ChatRequest``."""

    name: str
    model: str

    def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]: ...


class ProviderError(Exception):
    """A call that failed; ``message`` can be shown to the player as is."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        before_first_token: bool = True,
        retry_after: float | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable
        self.before_first_token = before_first_token
        self.retry_after = retry_after
        self.detail = detail  # technical text for logs, never shown to players

    def __repr__(self) -> str:
        return (
            f"ProviderError({self.message!r}, status={self.status}, retryable={self.retryable}, "
            f"before_first_token={self.before_first_token}, detail={self.detail!r})"
        )

    def mid_stream(self) -> ProviderError:
        """The same failure, seen after part of the reply was already streamed."""
        return ProviderError(
            "The model's reply broke off in the middle. Regenerate the turn to try again.",
            status=self.status,
            retryable=self.retryable,
            before_first_token=False,
            detail=self.detail or self.message,
        )


def status_error(status: int, detail: str = "", retry_after: float | None = None) -> ProviderError:
    """Turn an HTTP error status into an error a player can read."""
    retryable = status in RETRYABLE_STATUSES or status >= 500
    if status == 429:
        message = "The model is receiving too many requests right now. Try again in a moment."
    elif status in (401, 403):
        message = "The model provider refused the API key. Check the key in the settings."
    elif status == 404:
        message = "The model provider does not know this model. Check the model name."
    elif status == 408:
        message = "The model provider timed out. Try again in a moment."
    elif status in (529, 503):
        message = "The model is overloaded right now. Try again in a moment."
    elif status >= 500:
        message = "The model provider had an internal error. Try again in a moment."
    else:
        message = f"The model provider rejected the request (error {status})."
    return ProviderError(
        message, status=status, retryable=retryable, retry_after=retry_after, detail=detail
    )


def connection_error(detail: str = "") -> ProviderError:
    return ProviderError(
        "Could not reach the model provider. Check the connection and try again.",
        retryable=True,
        detail=detail,
    )


def first_token_timeout_error(seconds: float) -> ProviderError:
    return ProviderError(
        "The model took too long to start answering. Try again in a moment.",
        retryable=True,
        detail=f"no first token within {seconds:g}s",
    )


def read_timeout_error(seconds: float) -> ProviderError:
    return ProviderError(
        "The model stopped answering in the middle of the reply. Regenerate the turn to try again.",
        retryable=True,
        before_first_token=False,
        detail=f"no chunk within {seconds:g}s",
    )


# The retries' jitter needs no seed of its own: one Random for every policy that was given none,
# instead of a 2.5 KiB Mersenne state (and a read of os.urandom) per provider, so per turn.
_JITTER = random.Random()


@dataclass
class RetryPolicy:
    """How often and how patiently to retry a call that failed before its first token.

    The n-th retry waits ``backoff_base * 2**(n-1)`` seconds (capped at ``backoff_max``),
    scaled by a jitter factor in [0.5, 1) drawn from ``rng``; a server's ``Retry-After`` is a
    floor, still capped.
    """

    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    first_token_timeout: float = 60.0
    read_timeout: float = 60.0
    rng: random.Random = field(default_factory=lambda: _JITTER)
    sleep: Sleep = asyncio.sleep

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        backoff = self.backoff_base * 2.0 ** (retry - 1) * (0.5 + self.rng.random() / 2)
        return min(self.backoff_max, max(backoff, retry_after or 0.0))


def sdk_timeout(read_timeout: float, first_token_timeout: float) -> float:
    """The SDK's own socket timeout: never shorter than the wait for the first token.

    A local server (llama.cpp on a CPU) sends nothing while it reads a long prompt; with the
    SDK's read timeout at ``read_timeout`` (60 s) the socket gave up after a minute even where
    the provider allows 600 s for the first token, and the turn failed as "Could not reach the
    model provider". The policy (``stream_with_retries``) enforces both deadlines itself.
    """
    return max(read_timeout, first_token_timeout)


def retry_policy(
    *,
    max_retries: int,
    backoff_base: float,
    backoff_max: float,
    first_token_timeout: float,
    read_timeout: float,
    rng: random.Random | None,
    sleep: Sleep | None,
) -> RetryPolicy:
    """The policy an SDK provider's constructor arguments describe (None: the defaults)."""
    policy = RetryPolicy(
        max_retries=max_retries,
        backoff_base=backoff_base,
        backoff_max=backoff_max,
        first_token_timeout=first_token_timeout,
        read_timeout=read_timeout,
        rng=rng or _JITTER,
    )
    if sleep is not None:
        policy.sleep = sleep
    return policy


def retry_after(headers: Mapping[str, str]) -> float | None:
    """A response's ``Retry-After`` in seconds; None when absent or not a number."""
    try:
        return float(headers.get("retry-after", ""))
    except ValueError:
        return None


Attempt = Callable[[], AsyncGenerator[Chunk, None]]
Classify = Callable[[Exception], ProviderError]


async def stream_with_retries(
    attempt: Attempt, classify: Classify, policy: RetryPolicy
) -> AsyncIterator[Chunk]:
    """Stream ``attempt()``, retrying it while no text or tool call has been yielded.

    ``classify`` turns whatever an attempt raises into a ``ProviderError``; an error that is
    not retryable, or any error after the first text chunk, is raised at once.
    """
    retries = 0
    loop = asyncio.get_running_loop()
    while True:
        chunks = attempt()
        started = False
        deadline = loop.time() + policy.first_token_timeout
        reads = ReadDeadline(loop)
        error: ProviderError | None = None
        try:
            while True:
                chunk: Chunk | None = None
                try:
                    until = loop.time() + policy.read_timeout if started else deadline
                    chunk = await reads.next(chunks, until)
                except ProviderError as exc:
                    error = exc
                except TimeoutError:
                    error = (
                        read_timeout_error(policy.read_timeout)
                        if started
                        else first_token_timeout_error(policy.first_token_timeout)
                    )
                except Exception as exc:
                    error = classify(exc)
                    error.__cause__ = exc
                if error is not None or chunk is None:
                    break
                started = started or bool(chunk.text or chunk.tool_calls)
                yield chunk
        finally:
            reads.close()
            await chunks.aclose()
        if error is None:
            return
        if started:
            if error.before_first_token:
                raise error.mid_stream() from error
            raise error
        if not error.retryable or retries >= policy.max_retries:
            raise error
        retries += 1
        await policy.sleep(policy.delay(retries, error.retry_after))


def looks_like_transport_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a network failure the SDK let through unwrapped.

    The Anthropic SDK does not wrap errors raised while a stream body is read, so a dropped
    connection arrives as the HTTP library's own ``TransportError``; matching by name keeps
    that library out of the engine's imports.
    """
    if isinstance(exc, OSError | EOFError):
        return True
    return any(
        cls.__name__ in {"TransportError", "TimeoutException"}
        and cls.__module__.split(".")[0].startswith("httpx")
        for cls in type(exc).__mro__
    )
