"""The provider contract: requests from settings, the retry loop, readable errors."""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator

import pytest

from engine.llm import ChatRequest, Chunk, ProviderError, RetryPolicy, Usage, stream_with_retries
from engine.llm.base import status_error
from engine.session import Message
from engine.world import Settings
from tests.support import FakeSleep


def test_a_request_from_settings_carries_the_world_sampling():
    settings = Settings(temperature=0.4, top_p=0.8, max_tokens=256, top_k=20, min_p=0.1)
    messages = [Message("system", "S"), Message("user", "U")]

    chat = ChatRequest.from_settings(messages, 1, settings, model="m")

    assert chat == ChatRequest(
        messages=messages,
        breakpoint=1,
        model="m",
        temperature=0.4,
        top_p=0.8,
        max_tokens=256,
        frequency_penalty=0.0,
        presence_penalty=0.0,
        top_k=20,
        min_p=0.1,
        structured_output=False,
    )


def test_backoff_doubles_with_jitter_and_is_capped():
    policy = RetryPolicy(backoff_base=0.5, backoff_max=3.0, rng=random.Random(5))

    delays = [policy.delay(n) for n in (1, 2, 3, 4)]

    assert 0.25 <= delays[0] < 0.5
    assert 0.5 <= delays[1] < 1.0
    assert 1.0 <= delays[2] < 2.0
    assert delays[3] <= 3.0


def test_the_jitter_comes_from_the_injected_rng():
    first = RetryPolicy(rng=random.Random(9))
    second = RetryPolicy(rng=random.Random(9))

    assert [first.delay(n) for n in (1, 2, 3)] == [second.delay(n) for n in (1, 2, 3)]


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(408, True), (429, True), (500, True), (529, True), (400, False), (404, False)],
)
def test_only_timeouts_rate_limits_and_server_errors_are_retryable(status, retryable):
    assert status_error(status).retryable is retryable


class Flaky:
    """Attempts that fail with the given errors in turn, then succeed."""

    def __init__(self, *errors: Exception, text_before_error: str = "") -> None:
        self.errors = list(errors)
        self.text_before_error = text_before_error
        self.attempts = 0

    async def __call__(self) -> AsyncGenerator[Chunk, None]:
        self.attempts += 1
        if self.errors:
            if self.text_before_error:
                yield Chunk(text=self.text_before_error)
            raise self.errors.pop(0)
        yield Chunk(text="ok")
        yield Chunk(usage=Usage(output_tokens=1))


def classify(exc: Exception) -> ProviderError:
    return status_error(int(str(exc)))


async def test_an_unexpected_error_is_classified_and_retried():
    sleep = FakeSleep()
    attempt = Flaky(RuntimeError("503"))

    chunks = [c async for c in stream_with_retries(attempt, classify, RetryPolicy(sleep=sleep))]

    assert [c.text for c in chunks] == ["ok", ""]
    assert attempt.attempts == 2
    assert len(sleep.delays) == 1


async def test_an_error_after_text_is_raised_as_mid_stream_without_retry():
    attempt = Flaky(RuntimeError("503"), text_before_error="Hal")
    policy = RetryPolicy(sleep=FakeSleep())

    with pytest.raises(ProviderError) as info:
        async for _ in stream_with_retries(attempt, classify, policy):
            pass

    assert attempt.attempts == 1
    assert info.value.before_first_token is False
    assert info.value.status == 503
    assert isinstance(info.value.__cause__, ProviderError)


async def test_abandoning_the_stream_closes_the_attempt():
    closed = []

    async def attempt() -> AsyncGenerator[Chunk, None]:
        try:
            yield Chunk(text="a")
            yield Chunk(text="b")
        finally:
            closed.append(True)

    stream = stream_with_retries(attempt, classify, RetryPolicy())
    async for _ in stream:
        break
    await stream.aclose()  # type: ignore[attr-defined]

    assert closed == [True]
