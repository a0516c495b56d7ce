"""The OpenAI-compatible provider, through the real ``openai`` SDK against a loopback server."""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx2
import pytest

from engine.llm import ChatRequest, Chunk, ProviderError
from engine.llm.openai_compat import OpenAICompatProvider
from engine.llm.pricing import PriceTable
from engine.session import Message
from engine.world import Settings
from tests.support import FakeSleep, collect, text_of
from tests.support.model_server import Fault, ModelServer, Reply, count_tokens

SYSTEM = "You narrate a quiet harbour town. " * 8
ACTION = "I walk to the pier."


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


@pytest.fixture
def sleep() -> FakeSleep:
    return FakeSleep()


@pytest.fixture
async def make_provider(
    server: ModelServer, sleep: FakeSleep
) -> AsyncIterator[Callable[..., OpenAICompatProvider]]:
    made: list[OpenAICompatProvider] = []

    def make(**overrides: Any) -> OpenAICompatProvider:
        options: dict[str, Any] = {
            "model": "test-model",
            "base_url": server.openai_url,
            "rng": random.Random(7),
            "sleep": sleep,
            "timeout": 5.0,
            "first_token_timeout": 5.0,
            **overrides,
        }
        made.append(OpenAICompatProvider("test-key", **options))
        return made[-1]

    yield make
    for provider in made:
        await provider.aclose()


def request(*messages: Message, **fields: Any) -> ChatRequest:
    chat = list(messages) or [Message("system", SYSTEM), Message("user", ACTION)]
    return ChatRequest(messages=chat, **fields)


async def stream_until_error(
    provider: OpenAICompatProvider, chat: ChatRequest
) -> tuple[list[Chunk], ProviderError]:
    chunks: list[Chunk] = []
    with pytest.raises(ProviderError) as info:
        async for chunk in provider.stream(chat):
            chunks.append(chunk)
    return chunks, info.value


async def test_streams_the_reply_in_chunks_with_usage_last(server, sleep, make_provider):
    server.script([Reply(text="The pier creaks under you.", chunk_size=5)])

    chunks = await collect(make_provider(), request())

    texts = [c.text for c in chunks if c.text]
    assert texts == ["The p", "ier c", "reaks", " unde", "r you", "."]
    last = chunks[-1]
    assert last.finish_reason == "stop"
    assert last.usage is not None
    assert last.usage.input_tokens == count_tokens(SYSTEM) + count_tokens(ACTION)
    assert last.usage.output_tokens == count_tokens("The pier creaks under you.")
    assert all(c.usage is None for c in chunks[:-1])


async def test_reports_cached_prompt_tokens_and_prices_them(server, sleep, make_provider):
    prices = PriceTable({"test-*": {"input": 2, "output": 10, "cache_read": 0.5}})
    provider = make_provider(prices=prices)
    await collect(provider, request())

    second = request(
        Message("system", SYSTEM),
        Message("user", ACTION),
        Message("assistant", "Waves."),
        Message("user", "I sit down."),
    )
    usage = (await collect(provider, second))[-1].usage

    assert usage is not None
    prefix = count_tokens(SYSTEM) + count_tokens(ACTION)
    assert usage.cache_read_tokens == prefix
    assert usage.input_tokens == count_tokens("Waves.") + count_tokens("I sit down.")
    expected = (usage.input_tokens * 2 + usage.output_tokens * 10 + prefix * 0.5) / 1_000_000
    assert usage.cost == pytest.approx(expected)


async def test_maps_world_settings_to_request_parameters(server, sleep, make_provider):
    settings = Settings(
        temperature=0.7,
        top_p=0.9,
        max_tokens=300,
        frequency_penalty=0.2,
        presence_penalty=0.1,
        top_k=40,
        min_p=0.05,
        structured_output=True,
    )
    chat = ChatRequest.from_settings(
        [Message("system", SYSTEM), Message("user", ACTION)], 1, settings, model="world-model"
    )

    await collect(make_provider(), chat)

    body = server.requests[0].body
    assert body["model"] == "world-model"
    assert body["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": ACTION},
    ]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.7, 0.9, 300)
    assert (body["frequency_penalty"], body["presence_penalty"]) == (0.2, 0.1)
    assert (body["top_k"], body["min_p"]) == (40, 0.05)
    assert body["response_format"] == {"type": "json_object"}
    assert "max_completion_tokens" not in body


async def test_messages_and_tools_skip_the_sdks_parameter_walk_but_reach_the_wire(
    server, sleep, make_provider, monkeypatch
):
    # The SDK's walk over its TypedDicts costs milliseconds per prompt on the event loop.
    import openai
    from openai.resources.chat.completions import completions

    walked: list[dict[str, Any]] = []
    real = completions.async_maybe_transform

    async def recording(data: Any, expected: Any) -> Any:
        walked.append(dict(data))
        return await real(data, expected)

    monkeypatch.setattr(completions, "async_maybe_transform", recording)
    tool = {"name": "roll_dice", "description": "Roll dice.", "parameters": {"type": "object"}}
    await collect(make_provider(), request(tools=[tool]))

    assert [list(body["messages"]) for body in walked] == [[]]
    assert isinstance(walked[0]["tools"], openai.Omit)
    body = server.requests[0].body
    assert body["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": ACTION},
    ]
    assert [t["function"]["name"] for t in body["tools"]] == ["roll_dice"]


async def test_leaves_unset_parameters_out_and_uses_the_provider_model(
    server, sleep, make_provider
):
    await collect(make_provider(), request(stop=["\nUser:"]))

    body = server.requests[0].body
    assert body["model"] == "test-model"
    assert body["stop"] == ["\nUser:"]
    for absent in ("temperature", "top_p", "max_tokens", "top_k", "min_p", "response_format"):
        assert absent not in body


async def test_can_leave_top_k_and_min_p_out_for_strict_endpoints(server, sleep, make_provider):
    provider = make_provider(extra_sampling=False)

    await collect(provider, request(top_k=40, min_p=0.05))

    assert "top_k" not in server.requests[0].body
    assert "min_p" not in server.requests[0].body


def test_openais_own_endpoint_gets_max_completion_tokens_and_no_extra_sampling():
    provider = OpenAICompatProvider("k", model="gpt-5", base_url="https://api.openai.com/v1")

    assert provider.official
    assert provider.extra_body(request(top_k=40, min_p=0.1)) == {}


async def test_retries_a_429_then_succeeds(server, sleep, make_provider):
    server.script([Fault("429"), Reply(text="Calm seas.")])

    chunks = await collect(make_provider(backoff_base=0.5), request())

    assert text_of(chunks) == "Calm seas."
    assert len(server.requests) == 2
    assert len(sleep.delays) == 1
    assert 0.25 <= sleep.delays[0] < 0.5


async def test_retries_a_500_then_succeeds(server, sleep, make_provider):
    server.script([Fault("500"), Reply(text="Gulls cry.")])

    chunks = await collect(make_provider(), request())

    assert text_of(chunks) == "Gulls cry."
    assert len(server.requests) == 2


async def test_honours_retry_after_up_to_the_backoff_cap(server, sleep, make_provider):
    server.script([Fault("429", retry_after=3), Reply(text="Ok.")])

    await collect(make_provider(backoff_base=0.01, backoff_max=2.0), request())

    assert sleep.delays == [2.0]


async def test_gives_up_after_max_retries_with_a_readable_error(server, sleep, make_provider):
    server.script([Fault("500")] * 4)
    provider = make_provider(max_retries=3, backoff_base=1.0)

    chunks, error = await stream_until_error(provider, request())

    assert chunks == []
    assert len(server.requests) == 4
    assert error.status == 500
    assert error.retryable and error.before_first_token
    assert error.message == "The model provider had an internal error. Try again in a moment."
    assert len(sleep.delays) == 3
    for retry, delay in enumerate(sleep.delays, start=1):
        assert 2 ** (retry - 1) * 0.5 <= delay < 2 ** (retry - 1)


async def test_does_not_retry_a_rejected_request(server, sleep, make_provider):
    server.script([Fault("401"), Reply()])

    _, error = await stream_until_error(make_provider(), request())

    assert error.status == 401
    assert not error.retryable
    assert error.message == "The model provider refused the API key. Check the key in the settings."
    assert len(server.requests) == 1


async def test_retries_a_stall_before_the_first_token_then_fails_cleanly(
    server, sleep, make_provider
):
    server.script([Fault("stall_before_first_token", seconds=3)] * 2)
    provider = make_provider(first_token_timeout=0.2, max_retries=1)

    chunks, error = await stream_until_error(provider, request())

    assert [c.text for c in chunks if c.text] == []
    assert len(server.requests) == 2
    assert error.before_first_token and error.retryable
    assert error.message == "The model took too long to start answering. Try again in a moment."


async def test_a_stall_before_the_first_token_is_retried_into_a_reply(server, sleep, make_provider):
    server.script([Fault("stall_before_first_token", seconds=3), Reply(text="At last.")])
    provider = make_provider(first_token_timeout=0.2)

    chunks = await collect(provider, request())

    assert text_of(chunks) == "At last."


async def test_a_drop_mid_stream_raises_at_once_without_retry(server, sleep, make_provider):
    server.script([Fault("drop_mid_stream", after_chunks=3), Reply()])
    provider = make_provider()

    chunks, error = await stream_until_error(provider, request())

    assert len([c for c in chunks if c.text]) == 3
    assert not error.before_first_token
    assert error.message == (
        "The model's reply broke off in the middle. Regenerate the turn to try again."
    )
    assert len(server.requests) == 1
    assert server.pending == 1
    assert sleep.delays == []


async def test_a_stall_between_tokens_raises_a_read_timeout(server, sleep, make_provider):
    server.script([Fault("stall_mid_stream", after_chunks=2, seconds=3), Reply()])
    provider = make_provider(timeout=0.3)

    chunks, error = await stream_until_error(provider, request())

    assert len([c for c in chunks if c.text]) == 2
    assert not error.before_first_token
    assert error.message == (
        "The model stopped answering in the middle of the reply. Regenerate the turn to try again."
    )
    assert len(server.requests) == 1


async def test_a_connection_dropped_before_any_answer_is_retried(server, sleep, make_provider):
    server.script([Fault("drop_before_response"), Reply(text="Back again.")])

    chunks = await collect(make_provider(), request())

    assert text_of(chunks) == "Back again."


async def test_an_error_event_before_the_first_token_is_retried(server, sleep, make_provider):
    server.script([Fault("error_event"), Reply(text="Recovered.")])

    chunks = await collect(make_provider(), request())

    assert text_of(chunks) == "Recovered."
    assert len(server.requests) == 2


async def test_an_unreachable_server_is_a_readable_error(sleep):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = OpenAICompatProvider(
        "k", model="m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=2, sleep=sleep
    )

    with pytest.raises(ProviderError) as info:
        await collect(provider, request())
    await provider.aclose()

    assert info.value.message == (
        "Could not reach the model provider. Check the connection and try again."
    )
    assert len(sleep.delays) == 2


async def test_serves_many_concurrent_streams(server, sleep, make_provider):
    server.default = Reply.generated(tokens=20)
    provider = make_provider()

    replies = await asyncio.gather(*(collect(provider, request()) for _ in range(50)))

    assert {text_of(chunks) for chunks in replies} == {"tok " * 20}
    assert len(server.requests) == 50


async def test_each_chunk_can_be_pulled_by_a_different_task(server, make_provider):
    # The turn pipeline pulls every chunk in its own task so that it can stop mid-stream.
    server.script([Reply(text="One two three four.", chunk_size=4)])
    stream = make_provider(first_token_timeout=1.0, timeout=1.0).stream(request())

    texts = []
    while (chunk := await asyncio.ensure_future(anext(stream, None))) is not None:
        texts.append(chunk.text)

    assert "".join(texts) == "One two three four."


async def test_cancelling_a_pull_mid_stream_ends_the_stream_cleanly(server, make_provider):
    server.script([Fault("stall_mid_stream", after_chunks=1, seconds=3)])
    stream = make_provider().stream(request())
    assert (await anext(stream)).text

    pull = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.1)
    pull.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pull
    await stream.aclose()

    assert await anext(stream, None) is None


async def test_an_error_event_mid_stream_raises_at_once_with_its_code(server, sleep, make_provider):
    server.script([Fault("error_event", after_chunks=2), Reply()])

    chunks, error = await stream_until_error(make_provider(), request())

    assert len([c for c in chunks if c.text]) == 2
    assert not error.before_first_token
    assert error.status == 502
    assert "Upstream overloaded" in error.detail
    assert len(server.requests) == 1


async def test_sends_through_the_http_client_it_is_given(sleep):
    seen: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(401, json={"error": {"message": "bad key"}})

    http_client = httpx2.AsyncClient(transport=httpx2.MockTransport(answer))
    provider = OpenAICompatProvider(
        "sk-mine", model="m", base_url="https://models.example/v1", http_client=http_client
    )

    with pytest.raises(ProviderError) as info:
        await collect(provider, request())
    await provider.aclose()

    assert info.value.status == 401
    assert [str(r.url) for r in seen] == ["https://models.example/v1/chat/completions"]
    assert seen[0].headers["authorization"] == "Bearer sk-mine"


async def test_a_first_token_slower_than_the_read_timeout_is_waited_for(
    server, sleep, make_provider
):
    """A local server reading a long prompt sends nothing for minutes: the socket must wait as
    long as the first-token timeout allows, not give up at the read timeout."""
    server.script([Fault("stall_before_first_token", seconds=1.5)])
    provider = make_provider(timeout=0.5, first_token_timeout=10.0, max_retries=0)

    chunks = await collect(provider, request())

    assert text_of(chunks)
    assert len(server.requests) == 1
