"""engine.gm.loop: the tool-calling master's loop, driven by scripted model turns over the demo
world and the real tools (issue "Game master II" §2–3, §6)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine.gm import loop as gm_loop
from engine.gm.brief import brief
from engine.gm.closure import TurnFacts, fallback_closure
from engine.gm.loop import MasterTurn, run_master
from engine.gm.perception import perceive, scene_context
from engine.gm.play import play_gm_action
from engine.gm.tools import execute
from engine.gm.tools.offer import offered_schemas
from engine.llm.anthropic import AnthropicProvider
from engine.llm.base import ChatRequest, Chunk, Provider, Usage
from engine.llm.openai_compat import OpenAICompatProvider
from engine.llm.recording import Recording, RecordingProvider, ReplayProvider
from engine.llm.scripted import RepliesExhausted, ScriptedProvider, parse_replies
from engine.session import SessionState, ToolCall
from engine.turn import Delta, PlayerAction, Turn
from tests.conftest import FakeClock, SeededRng
from tests.engine.gm.test_perception import _demo_secrets
from tests.engine.gm.worlds import demo_world, new_state, play, scene_for
from tests.support.model_server import ModelServer, Reply

CALM = "You hum an old song; the notes drift over the cobbles."
CALM_TOO = "You hum a second verse, softer than the first."
LATER = "Hours later, the sun sets and you are still humming."
RULE = {"name": "lookup_rule", "arguments": {"topic": "advantage"}}
NOWHERE = {"name": "move_character", "arguments": {"to": "the moon"}}


def close(narration: str = CALM, **more: Any) -> dict[str, Any]:
    return {"name": "log_event", "arguments": {"narration": narration, **more}}


class Spy:
    """Forwards to a provider and keeps each request; ``usage`` replaces the inner usage."""

    def __init__(self, inner: Provider, usage: Usage | None = None) -> None:
        self.inner, self.usage = inner, usage
        self.name, self.model = inner.name, inner.model
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        async for chunk in self.inner.stream(request):
            if chunk.usage is not None and self.usage is not None:
                chunk = Chunk(usage=self.usage, finish_reason=chunk.finish_reason)
            yield chunk


def scripted(*replies: dict[str, Any], usage: Usage | None = None) -> Spy:
    return Spy(ScriptedProvider(parse_replies(list(replies))), usage)


def master(provider: Provider, action: str = "I hum an old song", **options: Any) -> MasterTurn:
    world = demo_world()
    state = new_state(world)
    scene = scene_for(world, state, "ada")
    assert world.game_master is not None
    context = scene_context(perceive(world.game_master, scene.state, "ada"))
    return asyncio.run(run_master(scene, action, provider, context=context, **options))


def offered(provider: Spy, action: str = "I hum an old song") -> list[dict[str, Any]]:
    """The compact schemas the demo's opening scene offers (issue 37 §4), on every call."""
    world = demo_world()
    schemas = offered_schemas(scene_for(world, new_state(world), "ada"), action)
    assert all(request.tools == schemas for request in provider.requests)
    return schemas


def tool_messages(request: ChatRequest) -> list[dict[str, Any]]:
    return [json.loads(m.content) for m in request.messages if m.role == "tool"]


# --- the loop ---------------------------------------------------------------------------------


def test_the_turn_ends_at_log_event_with_every_call_run_and_reported():
    provider = scripted({"text": "Let me check.", "tool_calls": [RULE]}, {"tool_calls": [close()]})

    turn = master(provider)

    assert (turn.narration, turn.model_calls, turn.attempts) == (CALM, 2, 1)
    assert [(c.name, c.ok) for c in turn.tool_calls] == [("lookup_rule", True), ("log_event", True)]
    assert turn.closure.to_dict() == {"ok": True, "violations": []}
    assert turn.events[-1].kind == "master" and turn.events[-1].text == CALM
    assert tool_messages(provider.requests[1])[0]["ok"] is True


def test_the_fixed_part_sits_above_the_breakpoint_and_no_secret_is_sent():
    provider = scripted({"tool_calls": [RULE]}, {"tool_calls": [close()]})

    master(provider, cap=8)

    first, second = provider.requests
    assert first.breakpoint == 1 and first.cache_tail and first.tools == offered(provider)
    assert first.messages[0].content == brief("en").fixed(8)
    assert "I hum an old song" in first.messages[1].content
    assert second.messages[:2] == first.messages and second.tools == first.tools
    sent = json.dumps([[m.to_dict() for m in r.messages] for r in provider.requests])
    world = demo_world()
    assert world.game_master is not None
    assert not [s for s in _demo_secrets(world.game_master) if s in sent]


def test_calls_past_the_cap_are_not_run_and_a_last_call_forces_log_event():
    provider = scripted({"tool_calls": [RULE, RULE, RULE]}, {"tool_calls": [RULE, close()]})

    turn = master(provider, cap=2)

    assert [(c.name, c.ok) for c in turn.tool_calls] == [
        ("lookup_rule", True),
        ("lookup_rule", True),
        ("lookup_rule", False),
        ("lookup_rule", False),
        ("log_event", True),
    ]
    assert turn.tool_calls[2].error == brief("en").t("not_run_cap")
    assert turn.tool_calls[3].error == brief("en").t("not_run_forced")
    last = provider.requests[1]
    assert (last.tool_choice, last.tools) == ({"name": "log_event"}, offered(provider))
    assert last.messages[-1].content == brief("en").t("nudge_cap", cap=2)
    assert turn.narration == CALM and turn.model_calls == 2


def test_a_reply_without_log_event_is_not_done_and_the_forced_call_closes_it():
    provider = scripted({"text": "You hum."}, {"tool_calls": [close()]})

    turn = master(provider)

    assert provider.requests[0].tool_choice == "auto"
    assert provider.requests[1].tool_choice == {"name": "log_event"}
    assert provider.requests[1].messages[-1].content == brief("en").t("nudge_close")
    assert turn.narration == CALM and "You hum." not in turn.narration


def test_when_even_the_forced_call_brings_no_log_event_the_engine_closes_the_turn():
    # The forced call writes nothing at all: a text reply there would be the narration (#37).
    provider = scripted({"tool_calls": [RULE]}, {"text": "Nothing."}, {"text": ""})

    turn = master(provider)

    assert turn.fallback and turn.model_calls == 3 and turn.attempts == 0
    assert turn.closure.to_dict() == {"ok": False, "violations": []}
    assert turn.narration and "Nothing." not in turn.narration
    assert turn.events[-1].text == turn.narration  # the fallback is logged as the event
    assert 2 <= len(turn.suggestions) <= 3


def test_a_rejected_narration_goes_back_naming_the_rule_with_every_tool_then_passes():
    provider = scripted({"tool_calls": [close(LATER)]}, {"tool_calls": [close(CALM_TOO)]})

    turn = master(provider)

    assert (turn.narration, turn.attempts, turn.model_calls) == (CALM_TOO, 2, 2)
    assert turn.closure.ok
    answer = tool_messages(provider.requests[1])[0]
    assert answer["ok"] is False and brief("en").reasons(["time-advanced"]) in answer["error"]
    assert answer["error"] == brief("en").t("rejected", reasons=brief("en").reasons([TIME]))
    retry = provider.requests[1]
    assert (retry.tool_choice, retry.tools) == ("auto", offered(provider))
    assert [e.text for e in turn.events] == [CALM_TOO]  # the rejected one was never logged


TIME = "time-advanced"
PLEDGE = "Hilda takes your dagger as a pledge and counts out four coins."
PAWN = {"name": "pawn_item", "arguments": {"item": "dagger", "to": "hilda"}}


def ren_master(provider: Provider, action: str) -> MasterTurn:
    """Ren at the Wayfarer's Rest, Hilda behind the bar, his dagger at his belt."""
    world = demo_world()
    scene = scene_for(world, new_state(world), "ren")
    return asyncio.run(run_master(scene, action, provider, context="(the tavern)"))


def test_a_master_corrects_an_unregistered_deal_with_pawn_item_on_the_retry():
    provider = scripted({"tool_calls": [close(PLEDGE)]}, {"tool_calls": [PAWN, close(PLEDGE)]})

    turn = ren_master(provider, "I offer Hilda my dagger as a pledge for a loan")

    assert not turn.fallback and turn.closure.ok and turn.narration == PLEDGE
    assert [(c.name, c.ok) for c in turn.tool_calls] == [
        ("log_event", False),
        ("pawn_item", True),
        ("log_event", True),
    ]
    assert brief("en").reasons(["unregistered-deal"]) in turn.tool_calls[0].error
    assert provider.requests[1].tool_choice == "auto"
    assert turn.changes["items"] and (turn.attempts, turn.model_calls) == (2, 2)


def test_the_masters_structured_claims_are_checked_against_what_the_tools_did():
    """A quiet narration whose ``claims`` say a clue was learnt, with no grant_clue behind it."""
    claims = {"learned": ["the chalice"]}
    provider = scripted(
        {"tool_calls": [close(CALM, claims=claims)]}, {"tool_calls": [close(CALM_TOO)]}
    )

    turn = master(provider)

    assert (turn.narration, turn.attempts) == (CALM_TOO, 2)
    assert turn.tool_calls[0].name == "log_event" and not turn.tool_calls[0].ok
    assert brief("en").reasons(["failed-tool-narrated"]) in turn.tool_calls[0].error


def test_rejections_up_to_the_cap_end_in_a_forced_log_event_then_the_template():
    provider = scripted(
        {"tool_calls": [RULE, close(LATER)]},
        {"tool_calls": [RULE, close(LATER)]},
        {"tool_calls": [RULE, close(LATER)]},
    )

    turn = master(provider)

    assert turn.fallback and turn.attempts == gm_loop.MAX_ATTEMPTS == 3
    assert [r.tool_choice for r in provider.requests] == ["auto", "auto", {"name": "log_event"}]
    assert turn.closure.to_dict() == {"ok": False, "violations": [TIME]}
    assert LATER not in turn.narration
    assert [c.ok for c in turn.tool_calls] == [True, False, True, False, False, False]
    assert turn.tool_calls[4].error == brief("en").t("not_run_forced")
    last = tool_messages(provider.requests[2])[-1]["error"]
    assert last == brief("en").t("rejected_last", reasons=brief("en").reasons([TIME]))


def test_a_rejection_past_the_tool_cap_is_retried_with_log_event_only():
    provider = scripted({"tool_calls": [RULE, close(LATER)]}, {"tool_calls": [close(CALM_TOO)]})

    turn = master(provider, cap=1)

    assert provider.requests[1].tool_choice == {"name": "log_event"}
    assert (turn.narration, turn.attempts, turn.fallback) == (CALM_TOO, 2, False)


def test_a_failed_tool_changes_nothing_and_its_error_goes_back_to_the_master():
    provider = scripted(
        {"tool_calls": [NOWHERE]}, {"tool_calls": [close("You look for a way; there is none.")]}
    )

    turn = master(provider)

    failed = turn.tool_calls[0]
    assert (failed.name, failed.ok) == ("move_character", False) and failed.error
    answer = tool_messages(provider.requests[1])[0]
    assert answer == {"ok": False, "error": failed.error, **answer} and not answer["ok"]
    assert "location" not in turn.changes and turn.closure.ok


def test_an_empty_narration_is_not_a_closure():
    provider = scripted({"tool_calls": [close("  ")]}, {"tool_calls": [close()]})

    turn = master(provider)

    assert (turn.narration, turn.attempts) == (CALM, 2)
    assert turn.tool_calls[0].error == brief("en").t("empty")


def test_calls_after_log_event_in_the_same_reply_are_not_run():
    provider = scripted({"tool_calls": [close(), NOWHERE]})

    turn = master(provider)

    assert turn.tool_calls[1].ok is False
    assert turn.tool_calls[1].error == brief("en").t("not_run_closed")


def test_usage_and_cost_are_summed_over_every_call_of_the_loop():
    usage = Usage(input_tokens=10, output_tokens=3, cache_read_tokens=100, cost=0.25)
    provider = scripted({"tool_calls": [RULE]}, {"tool_calls": [close()]}, usage=usage)

    turn = master(provider)

    assert turn.usage == Usage(20, 6, 200, 0, 0.5)


def test_the_narration_streams_only_after_the_check_passed(monkeypatch):
    seen: list[str] = []
    real_check = gm_loop.check_closure

    def check(narration: str, *args: Any) -> Any:
        seen.append("check")
        return real_check(narration, *args)

    async def delta(piece: str) -> None:
        seen.append(piece)

    monkeypatch.setattr(gm_loop, "check_closure", check)
    provider = scripted({"tool_calls": [close(LATER)]}, {"tool_calls": [close(CALM_TOO)]})

    turn = master(provider, on_delta=delta)

    assert seen[:2] == ["check", "check"] and "check" not in seen[2:]
    assert "".join(seen[2:]) == turn.narration == CALM_TOO


def test_the_fallback_is_built_from_what_the_tools_applied():
    provider = scripted({"tool_calls": [RULE]}, {"text": ""}, {"text": ""})
    turn = master(provider)

    world = demo_world()
    scene = scene_for(world, new_state(world), "ada")
    call = ToolCall("t1", RULE["name"], RULE["arguments"])
    facts = TurnFacts([(call, execute(call, scene))], [], "ada", ["ren"], "en")
    assert turn.fallback and turn.narration == fallback_closure(facts, scene)


@pytest.mark.parametrize("language", ["es", "zh"])
def test_the_brief_is_in_the_worlds_language(language):
    provider = scripted({"tool_calls": [close("Tarareas.")]})
    world = demo_world()
    scene = scene_for(world, new_state(world), "ada", language)

    asyncio.run(run_master(scene, "tarareo", provider, context="(escena)"))

    fixed = provider.requests[0].messages[0].content
    assert fixed == brief(language).fixed(8) and "log_event" in fixed
    assert fixed != brief("en").fixed(8)


# --- through play_gm_action -------------------------------------------------------------------


def test_a_master_action_with_a_scripted_provider_goes_through_the_loop():
    provider = scripted({"tool_calls": [close(CALM, suggestions=["Hum louder", "Look"])]})
    world = demo_world()

    result = play(world, new_state(world), "I hum an old song", "ada", provider=provider)

    assert (result.kind, result.model_calls, result.narration) == ("master", 1, CALM)
    assert result.events[0].kind == "action" and result.events[-1].kind == "master"
    assert result.suggestions == ["Hum louder", "Look"]
    line = result.to_dict(master=True)
    assert line["tool_calls"][0]["ok"] and line["closure"]["ok"] and line["attempts"] == 1


def test_a_turn_streams_the_checked_narration_in_pieces_then_the_suggestions():
    provider = scripted({"tool_calls": [close(CALM, suggestions=["Hum louder", "Look"])]})
    world = demo_world()
    action = PlayerAction("message", "I hum an old song")
    turn = Turn(world, new_state(world), [], action, provider, clock=FakeClock(), rng=SeededRng())

    async def drain() -> list[object]:
        return [event async for event in turn.events()]

    events = asyncio.run(drain())

    deltas = [e.text for e in events if isinstance(e, Delta)]
    assert len(deltas) > 1 and "".join(deltas) == CALM
    assert [type(e).__name__ for e in events[len(deltas) :]] == ["ChoicesEvent", "Done"]


def test_a_risky_act_goes_to_the_live_master_which_alone_asks_whom_or_for_a_check():
    """Issue 33 §2: with a live master the engine never answers a risky act itself, neither
    "Whom do you want to attack?" nor "Roll Persuasion (DC 15)"."""
    whom = "Whom do you mean: the innkeeper, the moneylender or the stable hand?"
    provider = scripted({"tool_calls": [close(whom)]})
    world = demo_world()

    waited = play(world, new_state(world), "wait until evening", "ren", provider=provider)
    result = play(world, waited.state, "attack", "ren", provider=provider)

    assert (result.kind, result.model_calls, len(provider.requests)) == ("master", 1, 1)
    assert result.narration == whom and result.pending is None
    assert result.state.gm is not None and result.state.gm.pending == {}


def test_a_turn_that_fails_midway_leaves_the_world_as_it_was():
    provider = scripted({"tool_calls": [{"name": "hold_item", "arguments": {"item": "mace"}}]})
    world = demo_world()
    state = new_state(world)

    with pytest.raises(RepliesExhausted):
        play(world, state, "I twirl my mace", "ada", provider=provider)  # raising it: a move

    assert state.gm is None and state.turn == 0


def test_a_roll_consequence_is_narrated_through_the_loop_knowing_the_roll():
    world = demo_world()
    asked = play(world, new_state(world), "climb the well", "ada")
    provider = scripted({"tool_calls": [close("You reach for the stones.")]})

    rolled = play(world, asked.state, {"roll": True}, "ada", provider=provider)

    assert rolled.model_calls == 1 and rolled.rolls[0].check == "athletics"
    assert "athletics" in provider.requests[0].messages[1].content.lower()
    assert rolled.narration.startswith("Athletics: d20")
    assert rolled.narration.endswith("You reach for the stones.") or rolled.attempts == 2


def test_offline_the_master_is_a_plain_closure_with_suggestions():
    world = demo_world()

    result = play(world, new_state(world), "I hum an old song", "ada")

    assert (result.kind, result.model_calls) == ("master", 1)
    assert result.narration == "You do as you said: “I hum an old song”. Nothing changes."
    assert 2 <= len(result.suggestions) <= 3 and result.usage.cost == 0


# --- record and replay ------------------------------------------------------------------------

ROUTE = ["I hum an old song", "go north", "I warm my hands by the fire", "I hum again"]


async def _session(provider: Provider, seed: int) -> list[str]:
    world = demo_world()
    state = SessionState.initial(world)
    lines = []
    for action in ROUTE:
        result = await play_gm_action(world, state, "ada", action, provider=provider, rng_seed=seed)
        state = result.state
        lines.append(json.dumps(result.to_dict(master=True), ensure_ascii=False))
    return lines


def test_a_recording_replays_the_session_byte_for_byte_with_the_same_dice_seed():
    replies = [
        {"tool_calls": [RULE]},
        {"tool_calls": [close()]},
        {"tool_calls": [close("The hearth crackles, warm and low.")]},
        {"text": "…"},
        {"tool_calls": [close(CALM_TOO)]},
    ]
    recording = Recording()
    recorded = asyncio.run(
        _session(RecordingProvider(ScriptedProvider(parse_replies(replies)), recording), 9)
    )

    replay = ReplayProvider(Recording.from_json(recording.to_json()))
    replayed = asyncio.run(_session(replay, 9))

    assert replayed == recorded and replay.misses == []
    assert len(recording) == 5


def test_a_missing_tool_call_id_still_gets_its_answer():
    call = ToolCall("", "lookup_rule", {"topic": "advantage"})

    class NoIds:
        name = model = "no-ids"

        def __init__(self) -> None:
            self.calls = 0

        async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
            self.calls += 1
            yield Chunk(tool_calls=[call if self.calls == 1 else ToolCall("x", **close())])
            yield Chunk(usage=Usage())

    turn = master(NoIds())

    assert [c.ok for c in turn.tool_calls] == [True, True]


# --- through the real SDKs --------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_the_loop_runs_through_both_sdks_against_the_loopback_server(protocol):
    world = demo_world()
    with ModelServer() as server:
        server.script(
            [
                Reply(text="Let me see.", chunk_size=5, tool_calls=(RULE,)),
                Reply(text="", chunk_size=7, tool_calls=(close(),)),
            ]
        )
        provider = (
            OpenAICompatProvider("k", base_url=server.openai_url, model="m")
            if protocol == "openai"
            else AnthropicProvider("k", base_url=server.anthropic_url, model="m")
        )
        result = await play_gm_action(
            world, new_state(world), "ada", "I hum an old song", provider=provider, rng_seed=1
        )
        await provider.aclose()

    assert (result.narration, result.model_calls, result.attempts) == (CALM, 2, 1)
    assert [c.name for c in result.tool_calls] == ["lookup_rule", "log_event"]
    assert result.usage.cache_read_tokens > 0  # the second call read the first from cache
    assert len(server.requests) == 2
