"""The Anthropic provider, through the real ``anthropic`` SDK against a loopback server."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx2
import pytest

from engine.llm import ChatRequest, Chunk, ProviderError
from engine.llm.anthropic import AnthropicProvider, to_anthropic
from engine.llm.pricing import PriceTable
from engine.session import Message
from engine.world import Settings
from tests.support import FakeSleep, collect, text_of
from tests.support.model_server import Fault, ModelServer, Reply, count_tokens

PRESET = "You are the narrator of a harbour town. Show, don't tell. " * 6
PERSONA = "The player is Mara, a smuggler with a limp."
EXAMPLE_USER = "I ask the bartender for rum."
EXAMPLE_REPLY = "He slides a chipped glass across the bar."
TRIGGERED = "The lighthouse keeper owes Mara money."
ACTION = "I head to the lighthouse."
EPHEMERAL = {"type": "ephemeral"}


def prompt(*tail: Message) -> list[Message]:
    """An assembled prompt: presets, persona, one example pair | breakpoint (4) | the rest."""
    return [
        Message("system", PRESET),
        Message("system", PERSONA),
        Message("user", EXAMPLE_USER),
        Message("assistant", EXAMPLE_REPLY),
        Message("system", TRIGGERED),
        Message("user", ACTION),
        *tail,
    ]


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
) -> AsyncIterator[Callable[..., AnthropicProvider]]:
    made: list[AnthropicProvider] = []

    def make(**overrides: Any) -> AnthropicProvider:
        options: dict[str, Any] = {
            "model": "claude-test",
            "base_url": server.anthropic_url,
            "rng": random.Random(7),
            "sleep": sleep,
            "timeout": 5.0,
            "first_token_timeout": 5.0,
            **overrides,
        }
        made.append(AnthropicProvider("test-key", **options))
        return made[-1]

    yield make
    for provider in made:
        await provider.aclose()


async def stream_until_error(
    provider: AnthropicProvider, chat: ChatRequest
) -> tuple[list[Chunk], ProviderError]:
    chunks: list[Chunk] = []
    with pytest.raises(ProviderError) as info:
        async for chunk in provider.stream(chat):
            chunks.append(chunk)
    return chunks, info.value


async def test_streams_the_reply_in_chunks_with_usage_last(server, sleep, make_provider):
    server.script([Reply(text="The lamp turns slowly.", chunk_size=6)])

    chunks = await collect(make_provider(), ChatRequest(prompt()))

    assert [c.text for c in chunks if c.text] == ["The la", "mp tur", "ns slo", "wly."]
    last = chunks[-1]
    assert last.finish_reason == "stop"
    assert last.usage is not None
    assert last.usage.output_tokens == count_tokens("The lamp turns slowly.")


async def test_puts_system_above_the_breakpoint_apart_and_marks_the_breakpoint(
    server, sleep, make_provider
):
    await collect(make_provider(), ChatRequest(prompt(), breakpoint=4))

    body = server.requests[0].body
    assert body["system"] == [{"type": "text", "text": PRESET}, {"type": "text", "text": PERSONA}]
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": EXAMPLE_USER}]},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": EXAMPLE_REPLY, "cache_control": EPHEMERAL}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": f"<system>\n{TRIGGERED}\n</system>"},
                {"type": "text", "text": ACTION},
            ],
        },
    ]


async def test_writes_the_cached_prefix_once_then_reads_it(server, sleep, make_provider):
    prices = PriceTable(
        {"claude-test": {"input": 1, "output": 5, "cache_read": 0.1, "cache_write": 1.25}}
    )
    provider = make_provider(prices=prices)
    prefix = sum(count_tokens(t) for t in (PRESET, PERSONA, EXAMPLE_USER, EXAMPLE_REPLY))
    rest = count_tokens(f"<system>\n{TRIGGERED}\n</system>") + count_tokens(ACTION)

    first = (await collect(provider, ChatRequest(prompt(), breakpoint=4)))[-1].usage
    later = prompt(Message("assistant", "The door is locked."), Message("user", "I knock."))
    second = (await collect(provider, ChatRequest(later, breakpoint=4)))[-1].usage

    assert first is not None and second is not None
    assert (first.cache_write_tokens, first.cache_read_tokens) == (prefix, 0)
    assert first.input_tokens == rest
    assert (second.cache_write_tokens, second.cache_read_tokens) == (0, prefix)
    expected = (second.input_tokens * 1 + second.output_tokens * 5 + prefix * 0.1) / 1_000_000
    assert second.cost == pytest.approx(expected)


async def test_maps_world_settings_to_anthropic_parameters(server, sleep, make_provider):
    settings = Settings(
        temperature=1.5, top_p=0.9, top_k=40, max_tokens=300, frequency_penalty=0.5, min_p=0.1
    )
    chat = ChatRequest.from_settings(prompt(), 4, settings, model="claude-world")

    await collect(make_provider(), chat)

    body = server.requests[0].body
    assert body["model"] == "claude-world"
    assert body["stream"] is True
    assert (body["temperature"], body["top_p"], body["top_k"]) == (1.0, 0.9, 40)
    assert body["max_tokens"] == 300
    for absent in ("frequency_penalty", "presence_penalty", "min_p"):
        assert absent not in body


async def test_leaves_neutral_sampling_out_and_sends_a_default_max_tokens(
    server, sleep, make_provider
):
    chat = ChatRequest(prompt(), temperature=0.8, top_p=1.0, top_k=0, stop=["\nMara:"])

    await collect(make_provider(default_max_tokens=512), chat)

    body = server.requests[0].body
    assert body["temperature"] == 0.8
    assert "top_p" not in body and "top_k" not in body
    assert body["max_tokens"] == 512
    assert body["stop_sequences"] == ["\nMara:"]


async def test_retries_a_429_then_succeeds(server, sleep, make_provider):
    server.script([Fault("429"), Reply(text="Fog rolls in.")])

    chunks = await collect(make_provider(), ChatRequest(prompt()))

    assert text_of(chunks) == "Fog rolls in."
    assert len(server.requests) == 2
    assert len(sleep.delays) == 1


async def test_retries_an_overloaded_529_then_succeeds(server, sleep, make_provider):
    server.script([Fault("529"), Reply(text="Fog rolls in.")])

    chunks = await collect(make_provider(), ChatRequest(prompt()))

    assert text_of(chunks) == "Fog rolls in."


async def test_a_500_on_every_try_is_a_readable_error(server, sleep, make_provider):
    server.script([Fault("500")] * 3)

    _, error = await stream_until_error(make_provider(max_retries=2), ChatRequest(prompt()))

    assert error.status == 500 and error.before_first_token
    assert error.message == "The model provider had an internal error. Try again in a moment."
    assert len(server.requests) == 3


async def test_retries_a_stall_before_the_first_token_then_fails_cleanly(
    server, sleep, make_provider
):
    server.script([Fault("stall_before_first_token", seconds=3)] * 2)
    provider = make_provider(first_token_timeout=0.2, max_retries=1)

    chunks, error = await stream_until_error(provider, ChatRequest(prompt()))

    assert [c for c in chunks if c.text] == []
    assert len(server.requests) == 2
    assert error.before_first_token and error.retryable
    assert error.message == "The model took too long to start answering. Try again in a moment."


async def test_a_drop_mid_stream_raises_at_once_without_retry(server, sleep, make_provider):
    server.script([Fault("drop_mid_stream", after_chunks=3), Reply()])

    chunks, error = await stream_until_error(make_provider(), ChatRequest(prompt()))

    assert len([c for c in chunks if c.text]) == 3
    assert not error.before_first_token
    assert error.message == (
        "The model's reply broke off in the middle. Regenerate the turn to try again."
    )
    assert len(server.requests) == 1
    assert sleep.delays == []


async def test_an_overloaded_event_before_the_first_token_is_retried(server, sleep, make_provider):
    server.script([Fault("error_event"), Reply(text="Steady now.")])

    chunks = await collect(make_provider(), ChatRequest(prompt()))

    assert text_of(chunks) == "Steady now."
    assert len(server.requests) == 2


async def test_an_overloaded_event_after_the_first_token_is_not_retried(
    server, sleep, make_provider
):
    server.script([Fault("error_event", after_chunks=2), Reply()])

    chunks, error = await stream_until_error(make_provider(), ChatRequest(prompt()))

    assert len([c for c in chunks if c.text]) == 2
    assert error.status == 529
    assert not error.before_first_token
    assert len(server.requests) == 1


# -- to_anthropic, the prompt reshaping ------------------------------------------------------


def texts(message: Any) -> list[str]:
    return [block["text"] for block in message["content"]]


def test_without_a_breakpoint_only_the_leading_system_run_goes_to_system():
    system, messages = to_anthropic(
        [Message("system", "A"), Message("user", "B"), Message("system", "C")], None
    )

    assert system == [{"type": "text", "text": "A"}]
    assert [m["role"] for m in messages] == ["user"]
    assert texts(messages[0]) == ["B", "<system>\nC\n</system>"]
    assert all("cache_control" not in b for m in messages for b in m["content"])


def test_a_prefix_of_only_system_messages_marks_the_last_system_block():
    system, messages = to_anthropic(
        [Message("system", "A"), Message("system", "B"), Message("user", "C")], 2
    )

    assert system == [
        {"type": "text", "text": "A"},
        {"type": "text", "text": "B", "cache_control": EPHEMERAL},
    ]
    assert "cache_control" not in messages[0]["content"][0]


def test_the_mark_stays_on_its_block_when_the_next_message_merges_into_the_turn():
    _, messages = to_anthropic(
        [Message("system", "A"), Message("user", "example"), Message("user", "action")], 2
    )

    assert messages[0]["content"] == [
        {"type": "text", "text": "example", "cache_control": EPHEMERAL},
        {"type": "text", "text": "action"},
    ]


def test_an_opening_assistant_turn_gets_a_user_turn_before_it():
    _, messages = to_anthropic(
        [Message("system", "A"), Message("assistant", "Welcome!"), Message("user", "Hi")], None
    )

    assert [(m["role"], texts(m)) for m in messages] == [
        ("user", ["[Start]"]),
        ("assistant", ["Welcome!"]),
        ("user", ["Hi"]),
    ]


def test_empty_messages_are_dropped_and_a_prompt_without_turns_gets_one():
    system, messages = to_anthropic([Message("system", "A"), Message("user", "  ")], None)

    assert system == [{"type": "text", "text": "A"}]
    assert [(m["role"], texts(m)) for m in messages] == [("user", ["[Continue]"])]


def test_a_final_assistant_prefill_loses_its_trailing_whitespace():
    _, messages = to_anthropic([Message("user", "Go"), Message("assistant", "Mara says: \n")], None)

    assert texts(messages[-1]) == ["Mara says:"]


async def test_a_connection_lost_before_the_first_token_is_retried(server, sleep, make_provider):
    # The SDK lets the HTTP library's own error through here; it still counts as retryable.
    server.script([Fault("drop_mid_stream", after_chunks=0), Reply(text="Second try.")])

    chunks = await collect(make_provider(), ChatRequest(prompt()))

    assert text_of(chunks) == "Second try."
    assert len(server.requests) == 2


def redirecting_client(seen: list[httpx2.Request]) -> httpx2.AsyncClient:
    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(302, headers={"location": "http://127.0.0.1:6379/"})

    return httpx2.AsyncClient(transport=httpx2.MockTransport(answer), follow_redirects=False)


async def test_a_redirect_is_a_refused_request_not_a_server_error(sleep):
    seen: list[httpx2.Request] = []
    provider = AnthropicProvider(
        "sk-ant-mine",
        model="claude-test",
        base_url="https://models.example",
        http_client=redirecting_client(seen),
        sleep=sleep,
    )

    with pytest.raises(ProviderError) as info:
        await collect(provider, ChatRequest(messages=prompt()))
    await provider.aclose()

    assert info.value.status == 302
    assert not info.value.retryable
    assert [str(r.url) for r in seen] == ["https://models.example/v1/messages"]
    assert "sk-ant-mine" in seen[0].headers["authorization"]


async def test_a_first_token_slower_than_the_read_timeout_is_waited_for(
    server, sleep, make_provider
):
    """A local server reading a long prompt sends nothing for minutes: the socket must wait as
    long as the first-token timeout allows, not give up at the read timeout."""
    server.script([Fault("stall_before_first_token", seconds=1.5)])
    provider = make_provider(timeout=0.5, first_token_timeout=10.0, max_retries=0)

    chunks = await collect(provider, ChatRequest(messages=prompt()))

    assert text_of(chunks)
    assert len(server.requests) == 1
