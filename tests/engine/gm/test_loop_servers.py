"""engine.gm.loop on servers that do not do all of tool calling, its steps, and a stop (issue 37
§1–3): a text reply taken as the narration and checked, the forced call asked for as the server
understands it, the NPC's talk instead of a bare closure, and the loop's status steps."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.gm import steps
from engine.gm.brief import brief
from engine.gm.loop import MasterTurn, run_master
from engine.gm.perception import perceive, scene_context
from engine.gm.tools import LOG_EVENT, tool_schemas
from engine.llm.anthropic import AnthropicProvider
from engine.llm.base import ChatRequest, Chunk
from engine.llm.capabilities import Capabilities
from engine.llm.openai_compat import OpenAICompatProvider
from engine.llm.scripted import ScriptedProvider, parse_replies
from engine.session import Message
from engine.turn import Delta, Done, PlayerAction, Turn
from tests.conftest import FakeClock, SeededRng
from tests.engine.gm.test_loop import CALM, CALM_TOO, LATER, RULE, Spy, close, scripted
from tests.engine.gm.worlds import demo_world, new_state, play, scene_for
from tests.support.model_server import WRONG_TYPE, ModelServer, Reply

NO_FORCING = Capabilities(named_tool_choice=False, required_tool_choice=False, probed=True)
REQUIRED_ONLY = Capabilities(named_tool_choice=False, probed=True)


def master(provider: Any, caps: Capabilities | None = None, heard: list[str] | None = None):
    world = demo_world()
    scene = scene_for(world, new_state(world), "ada")
    assert world.game_master is not None
    context = scene_context(perceive(world.game_master, scene.state, "ada"))

    async def run() -> MasterTurn:
        steps.live(heard.append if heard is not None else None, caps)
        return await run_master(scene, "I hum an old song", provider, context=context)

    return asyncio.run(run())


def test_a_text_reply_to_the_forced_call_is_the_narration_checked_not_nothing_changes():
    provider = scripted({"text": "You hum."}, {"text": CALM})

    turn = master(provider)

    assert (turn.narration, turn.fallback, turn.closure.ok) == (CALM, False, True)
    assert turn.attempts == 1 and [e.text for e in turn.events] == [CALM]


def test_a_server_that_cannot_force_has_its_first_text_reply_taken_and_never_a_named_choice():
    provider = scripted({"text": CALM})

    turn = master(provider, NO_FORCING)

    assert (turn.narration, turn.model_calls, turn.closure.ok) == (CALM, 1, True)
    assert [r.tool_choice for r in provider.requests] == ["auto"]


def test_a_rejected_text_narration_goes_back_as_the_users_words_and_the_next_passes():
    provider = scripted({"text": LATER}, {"text": CALM_TOO})

    turn = master(provider, NO_FORCING)

    assert (turn.narration, turn.attempts, turn.closure.ok) == (CALM_TOO, 2, True)
    told = provider.requests[1].messages[-1]
    assert told.role == "user" and brief("en").reasons(["time-advanced"]) in told.content
    assert all(m.role != "tool" for m in provider.requests[1].messages)  # no call to answer


def test_a_server_without_named_choice_is_forced_with_required_and_only_log_event():
    provider = scripted({"text": ""}, {"tool_calls": [close()]})

    turn = master(provider, REQUIRED_ONLY)

    forced = provider.requests[1]
    assert forced.tool_choice == "required" and [t["name"] for t in forced.tools] == [LOG_EVENT]
    assert turn.narration == CALM and turn.closure.ok


def test_each_step_of_the_loop_is_heard_in_order_with_no_tool_name():
    heard: list[str] = []
    provider = scripted({"tool_calls": [RULE]}, {"tool_calls": [close()]})

    master(provider, heard=heard)

    assert heard == ["thinking", "rule", "thinking", "writing"]
    assert all(step in steps.STEPS for step in heard)


def test_secret_tools_read_as_thinking():
    assert steps.step_of("reveal_secret") == steps.step_of("grant_clue") == steps.THINKING
    assert steps.step_of("request_skill_check") == "rolling"


def test_llama_cpp_ignoring_the_named_choice_still_closes_with_its_text_over_the_wire():
    with ModelServer() as server:
        server.quirk = "ignore_named"
        server.script([Reply(text=""), Reply(text=CALM, tool_calls=({**close()},))])
        provider = OpenAICompatProvider("k", model="m", base_url=server.openai_url)
        turn = master(Spy(provider))
        assert WRONG_TYPE in server.log
    assert (turn.narration, turn.fallback, turn.closure.ok) == (CALM, False, True)


def test_a_talk_the_master_never_closes_falls_back_to_the_npcs_own_words():
    world = demo_world()
    provider = ScriptedProvider(parse_replies([{"text": ""}] * 12))

    done = play(world, new_state(world), "Hilda, what news today?", "ren", provider=provider)

    assert done.narration and "Nothing changes." not in done.narration  # not the bare closure
    (talk,) = [e for e in done.events if e.kind == "talk"]
    assert talk.data["bubbles"][0]["speaker"] == "hilda"


def test_a_stop_during_the_master_turn_cancels_the_request_and_changes_nothing():
    world = demo_world()
    state = new_state(world)

    class Hanging:
        name, model = "scripted", "m"

        def __init__(self) -> None:
            self.asked = asyncio.Event()
            self.cancelled = False

        async def stream(self, request: Any) -> Any:
            self.asked.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                self.cancelled = True
                raise
            yield  # pragma: no cover

    provider = Hanging()
    turn = Turn(
        world,
        state,
        [],
        PlayerAction("message", "I hum an old song"),
        provider,  # type: ignore[arg-type]
        clock=FakeClock(),
        rng=SeededRng(1),
        character_id="ada",
    )

    async def run() -> list[Any]:
        events: list[Any] = []

        async def drain() -> None:
            async for event in turn.events():
                events.append(event)

        task = asyncio.ensure_future(drain())
        await provider.asked.wait()
        turn.stop()
        await asyncio.wait_for(task, 10)
        return events

    events = asyncio.run(run())

    assert provider.cancelled
    assert not any(isinstance(e, Delta) for e in events)
    (done,) = [e for e in events if isinstance(e, Done)]
    assert done.result.stopped and done.result.text == ""
    assert done.result.state.model_dump() == state.model_dump()


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_tool_call_is_announced_as_soon_as_it_starts_streaming(wire):
    with ModelServer() as server:
        server.script([Reply(text="", tool_calls=(close(),), chunk_size=4)])
        if wire == "openai":
            provider: Any = OpenAICompatProvider("k", model="m", base_url=server.openai_url)
        else:
            provider = AnthropicProvider("k", model="m", base_url=server.anthropic_url)
        request = ChatRequest(messages=[Message("user", "hum")], tools=tool_schemas())

        async def read() -> list[Chunk]:
            return [chunk async for chunk in provider.stream(request)]

        chunks = asyncio.run(read())
    started = next(i for i, c in enumerate(chunks) if c.tool_started == LOG_EVENT)
    whole = next(i for i, c in enumerate(chunks) if c.tool_calls)
    assert started < whole and chunks[whole].tool_calls[0].arguments["narration"] == CALM
