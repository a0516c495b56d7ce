"""Tool calling through both official SDKs against the loopback server (issue "Game master II"
§2): streamed calls assembled whole, tools and results on each wire, caching, record/replay."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from engine.llm import (
    ChatRequest,
    Chunk,
    ProviderError,
    Recording,
    RecordingProvider,
    ReplayProvider,
    Usage,
)
from engine.llm.anthropic import AnthropicProvider, to_anthropic
from engine.llm.openai_compat import OpenAICompatProvider
from engine.llm.scripted import (
    RepliesExhausted,
    ScriptedProvider,
    TracingProvider,
    parse_replies,
)
from engine.llm.tools import OpenAIToolCalls, parse_arguments
from engine.session import Message, ToolCall
from tests.support import FakeSleep, collect, text_of
from tests.support.model_server import Fault, ModelServer, Reply

BRIEF = "You are the game master of a quiet harbour town. " * 10
TOOLS: list[dict[str, Any]] = [
    {
        "name": "skill_check",
        "description": "Ask the server to roll a check.",
        "parameters": {
            "type": "object",
            "properties": {"check": {"type": "string"}, "dc": {"type": "integer"}},
            "required": ["check", "dc"],
        },
    },
    {
        "name": "log_event",
        "description": "Close the turn: tell what happened.",
        "parameters": {
            "type": "object",
            "properties": {"narration": {"type": "string"}},
            "required": ["narration"],
        },
    },
]
CHECK = {"name": "skill_check", "arguments": {"check": "athletics", "dc": 15}}
CLOSE = {"name": "log_event", "arguments": {"narration": "You climb the wall, slowly. Done."}}
PROTOCOLS = ["openai", "anthropic"]


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


@pytest.fixture
async def make_provider(
    server: ModelServer,
) -> AsyncIterator[Callable[[str], OpenAICompatProvider | AnthropicProvider]]:
    made: list[OpenAICompatProvider | AnthropicProvider] = []

    def make(protocol: str) -> OpenAICompatProvider | AnthropicProvider:
        options: dict[str, Any] = {
            "model": "test-model",
            "rng": random.Random(7),
            "sleep": FakeSleep(),
            "timeout": 5.0,
            "first_token_timeout": 5.0,
        }
        if protocol == "openai":
            made.append(OpenAICompatProvider("k", base_url=server.openai_url, **options))
        else:
            made.append(AnthropicProvider("k", base_url=server.anthropic_url, **options))
        return made[-1]

    yield make
    for provider in made:
        await provider.aclose()


def turn_request(*tail: Message, **fields: Any) -> ChatRequest:
    messages = [Message("system", BRIEF), Message("user", "I climb the harbour wall."), *tail]
    fields.setdefault("tools", TOOLS)
    fields.setdefault("tool_choice", "auto")
    return ChatRequest(messages=messages, breakpoint=1, **fields)


def calls_of(chunks: list[Chunk]) -> list[ToolCall]:
    return [call for chunk in chunks for call in chunk.tool_calls or []]


ASKED = Message(
    "assistant",
    "Let me see.",
    tool_calls=(ToolCall("call_9", "skill_check", {"check": "athletics", "dc": 15}),),
)
ANSWERED = Message("tool", '{"ok": true, "outcome": "success"}', tool_call_id="call_9")


# --- streamed calls, both SDKs ----------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_streamed_tool_calls_arrive_whole_with_their_arguments(
    protocol, server, make_provider
):
    server.script([Reply(text="Let me see.", chunk_size=3, tool_calls=(CHECK, CLOSE))])

    chunks = await collect(make_provider(protocol), turn_request())

    assert text_of(chunks) == "Let me see."
    calls = calls_of(chunks)
    assert [(c.name, c.arguments, c.error) for c in calls] == [
        ("skill_check", CHECK["arguments"], ""),
        ("log_event", CLOSE["arguments"], ""),
    ]
    assert all(c.id for c in calls) and calls[0].id != calls[1].id
    assert chunks[-1].finish_reason == "tool_calls"
    assert chunks[-1].usage is not None


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_each_call_is_emitted_as_soon_as_it_finishes_streaming(
    protocol, server, make_provider
):
    server.script([Reply(text="", chunk_size=4, tool_calls=(CHECK, CLOSE))])

    chunks = await collect(make_provider(protocol), turn_request())

    emitted = [[c.name for c in chunk.tool_calls] for chunk in chunks if chunk.tool_calls]
    assert emitted == [["skill_check"], ["log_event"]]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_reply_without_tool_calls_yields_none(protocol, server, make_provider):
    server.script([Reply(text="Just words.")])

    chunks = await collect(make_provider(protocol), turn_request())

    assert calls_of(chunks) == [] and chunks[-1].finish_reason == "stop"


@pytest.mark.parametrize(("protocol", "pieces"), [("openai", 3), ("anthropic", 1)])
async def test_a_drop_after_a_streamed_call_is_not_retried(protocol, pieces, server, make_provider):
    # Dropped as the second call starts, once the first is complete and handed over.
    reply = Reply(text="", chunk_size=40, tool_calls=(CHECK, CLOSE))
    server.script([Fault("drop_mid_stream", after_chunks=pieces, reply=reply), Reply()])
    chunks: list[Chunk] = []

    with pytest.raises(ProviderError) as info:
        async for chunk in make_provider(protocol).stream(turn_request()):
            chunks.append(chunk)

    assert [c.name for c in calls_of(chunks)] == ["skill_check"]
    assert not info.value.before_first_token
    assert len(server.requests) == 1


# --- what each wire receives ------------------------------------------------------------------


async def test_openai_receives_function_tools_a_forced_choice_and_tool_messages(
    server, make_provider
):
    request = turn_request(ASKED, ANSWERED, tool_choice={"name": "log_event"})

    await collect(make_provider("openai"), request)

    body = server.requests[0].body
    assert body["tools"][1] == {"type": "function", "function": TOOLS[1]}
    assert body["tool_choice"] == {"type": "function", "function": {"name": "log_event"}}
    assert body["messages"][2] == {
        "role": "assistant",
        "content": "Let me see.",
        "tool_calls": [
            {
                "id": "call_9",
                "type": "function",
                "function": {
                    "name": "skill_check",
                    "arguments": json.dumps({"check": "athletics", "dc": 15}),
                },
            }
        ],
    }
    assert body["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_9",
        "content": '{"ok": true, "outcome": "success"}',
    }


async def test_openai_without_tools_sends_no_tool_fields(server, make_provider):
    await collect(make_provider("openai"), turn_request(tools=None, tool_choice=None))

    assert "tools" not in server.requests[0].body
    assert "tool_choice" not in server.requests[0].body


async def test_anthropic_receives_input_schemas_the_last_one_cached_and_tool_blocks(
    server, make_provider
):
    request = turn_request(ASKED, ANSWERED, tool_choice={"name": "log_event"})

    await collect(make_provider("anthropic"), request)

    body = server.requests[0].body
    assert body["tools"][0] == {
        "name": "skill_check",
        "description": TOOLS[0]["description"],
        "input_schema": TOOLS[0]["parameters"],
    }
    assert body["tools"][1]["cache_control"] == {"type": "ephemeral"}
    assert body["tool_choice"] == {"type": "tool", "name": "log_event"}
    assert body["system"] == [
        {"type": "text", "text": BRIEF, "cache_control": {"type": "ephemeral"}}
    ]
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "Let me see."},
        {
            "type": "tool_use",
            "id": "call_9",
            "name": "skill_check",
            "input": {"check": "athletics", "dc": 15},
        },
    ]
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "call_9",
                "content": '{"ok": true, "outcome": "success"}',
            }
        ],
    }


def test_tool_results_of_one_turn_merge_into_one_user_turn_and_an_empty_ask_keeps_its_calls():
    asked = Message(
        "assistant", "", tool_calls=(ToolCall("a", "x", {}), ToolCall("b", "y", {"n": 1}))
    )
    results = [Message("tool", "1", tool_call_id="a"), Message("tool", "2", tool_call_id="b")]

    _, messages = to_anthropic([Message("user", "Go"), asked, *results], None)

    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [b["type"] for b in messages[1]["content"]] == ["tool_use", "tool_use"]
    assert [b["tool_use_id"] for b in messages[2]["content"]] == ["a", "b"]


def test_cache_tail_marks_the_last_block_as_well_as_the_fixed_part():
    system, messages = to_anthropic(
        [Message("system", "fixed"), Message("user", "scene"), ASKED, ANSWERED], 1, True
    )

    assert system[-1]["cache_control"] == {"type": "ephemeral"}
    assert messages[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in messages[0]["content"][0]


async def test_anthropic_the_next_call_of_a_loop_reads_the_previous_prompt_from_cache(
    server, make_provider
):
    server.script([Reply(text="", tool_calls=(CHECK,)), Reply(text="", tool_calls=(CLOSE,))])
    provider = make_provider("anthropic")

    first = (await collect(provider, turn_request(cache_tail=True)))[-1].usage
    second = (await collect(provider, turn_request(ASKED, ANSWERED, cache_tail=True)))[-1].usage

    assert first is not None and second is not None
    assert first.cache_read_tokens == 0 and first.cache_write_tokens == first.prompt_tokens
    assert second.cache_read_tokens == first.prompt_tokens
    assert second.input_tokens == 0


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_new_turn_reads_the_fixed_part_and_the_tools_from_cache(
    protocol, server, make_provider
):
    provider = make_provider(protocol)
    await collect(provider, turn_request())

    next_turn = ChatRequest(
        messages=[Message("system", BRIEF), Message("user", "I wave at the fisherman.")],
        breakpoint=1,
        tools=TOOLS,
        tool_choice="auto",
    )
    usage = (await collect(provider, next_turn))[-1].usage

    assert usage is not None
    assert usage.cache_read_tokens > usage.input_tokens > 0


# --- assembling pieces ------------------------------------------------------------------------


def test_calls_without_an_index_are_told_apart_by_their_ids():
    calls = OpenAIToolCalls()

    done = calls.feed([{"id": "a", "function": {"name": "x", "arguments": '{"n"'}}])
    done += calls.feed([{"function": {"arguments": ": 1}"}}])
    done += calls.feed([{"id": "b", "function": {"name": "y", "arguments": "{}"}}])
    done += calls.finish()

    assert [(c.id, c.name, c.arguments) for c in done] == [("a", "x", {"n": 1}), ("b", "y", {})]


def test_arguments_that_are_not_a_json_object_are_reported_not_guessed():
    assert parse_arguments("") == ({}, "")
    assert parse_arguments('{"a": 1}') == ({"a": 1}, "")
    assert parse_arguments("[1]")[1] == "the arguments must be a JSON object"
    assert "not valid JSON" in parse_arguments('{"a": ')[1]


# --- messages, usage ------------------------------------------------------------------------


def test_a_plain_message_keeps_its_old_dict_and_tool_messages_round_trip():
    assert Message("user", "hi").to_dict() == {"role": "user", "content": "hi"}
    for message in (ASKED, ANSWERED):
        assert Message.from_dict(message.to_dict()) == message


def test_usage_of_two_calls_adds_up():
    total = Usage(1, 2, 3, 4, 0.5).plus(Usage(10, 20, 30, 40, 1.0))

    assert total == Usage(11, 22, 33, 44, 1.5)


# --- scripted replies, tracing, record and replay -------------------------------------------


async def test_scripted_replies_stream_in_order_with_numbered_call_ids():
    replies = parse_replies([{"text": "Hm.", "tool_calls": [CHECK]}, {"tool_calls": [CLOSE]}])
    provider = ScriptedProvider(replies)

    first = await collect(provider, turn_request())
    second = await collect(provider, turn_request())

    assert text_of(first) == "Hm." and text_of(second) == ""
    assert [(c.id, c.name) for c in calls_of(first + second)] == [
        ("t1", "skill_check"),
        ("t2", "log_event"),
    ]
    with pytest.raises(RepliesExhausted, match="replies exhausted"):
        await collect(provider, turn_request())


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"text": "x"}, "replies must be a list"),
        (["x"], "replies[0] must be an object"),
        ([{"text": 3}], "replies[0].text must be a string"),
        ([{"tool_calls": {}}], "replies[0].tool_calls must be a list"),
        ([{}, {"tool_calls": [{"arguments": {}}]}], "replies[1].tool_calls[0].name"),
        ([{"tool_calls": [{"name": "x", "arguments": []}]}], "tool_calls[0].arguments"),
    ],
)
def test_a_bad_script_of_replies_names_the_problem(data, problem):
    with pytest.raises(ValueError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        parse_replies(data)


async def test_tracing_writes_each_request_with_its_tools_as_a_json_line():
    lines: list[str] = []
    provider = TracingProvider(ScriptedProvider(parse_replies([{"text": "ok"}])), lines.append)

    await collect(provider, turn_request(tool_choice={"name": "log_event"}))

    traced = json.loads(lines[0])
    assert traced["call"] == 1 and traced["tools"] == TOOLS
    assert traced["tool_choice"] == {"name": "log_event"}
    assert traced["messages"][1] == {"role": "user", "content": "I climb the harbour wall."}


async def test_a_recording_replays_the_tool_calls_it_recorded():
    recording = Recording()
    scripted = ScriptedProvider(parse_replies([{"text": "Hm.", "tool_calls": [CHECK]}]))
    recorded = await collect(RecordingProvider(scripted, recording), turn_request())

    reloaded = Recording.from_json(recording.to_json())
    replayed = await collect(ReplayProvider(reloaded), turn_request())

    assert calls_of(replayed) == calls_of(recorded) and text_of(replayed) == "Hm."


async def test_the_same_messages_with_another_tool_choice_are_another_exchange():
    recording = Recording()
    scripted = ScriptedProvider(parse_replies([{"text": "a"}, {"text": "b"}]))
    provider = RecordingProvider(scripted, recording)

    await collect(provider, turn_request())
    await collect(provider, turn_request(tool_choice={"name": "log_event"}))

    assert len(recording) == 2
