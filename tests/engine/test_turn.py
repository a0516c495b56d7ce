"""The turn pipeline (architecture "The turn, as data flows"; seed 004 "每轮生成的事件")."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine.llm.base import ChatRequest, Chunk, ProviderError, Usage
from engine.llm.offline import OfflineProvider
from engine.session import Message, Persona, SessionState
from engine.turn import (
    AudioEvent,
    ChoicesEvent,
    Delta,
    Done,
    NotificationEvent,
    PlayerAction,
    StateChanged,
    Turn,
    TurnEvent,
    TurnFailed,
    TurnResult,
)
from engine.world import WorldDefinition, load_world
from tests.conftest import FakeClock, SeededRng


class ScriptedProvider:
    """Streams the given chunks, then usage; optionally fails before chunk ``fail_at``."""

    name = "scripted"
    model = "scripted-1"

    def __init__(
        self,
        chunks: list[str],
        *,
        choices: list[str] | None = None,
        fail_at: int | None = None,
        error: Exception | None = None,
    ) -> None:
        self.chunks = chunks
        self.choices = choices
        self.fail_at = fail_at
        self.error = error or ProviderError("The model broke off.", status=502, retryable=True)
        self.requests: list[ChatRequest] = []
        self.closed = False

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        try:
            for index, text in enumerate(self.chunks):
                if index == self.fail_at:
                    raise self.error
                yield Chunk(text=text)
            if self.choices:
                yield Chunk(choices=self.choices)
            yield Chunk(usage=Usage(input_tokens=120, output_tokens=30, cost=0.002))
        finally:
            self.closed = True


class StallingProvider(ScriptedProvider):
    """Streams its chunks, then waits forever (a model that stops answering)."""

    def __init__(self, chunks: list[str]) -> None:
        super().__init__(chunks)
        self.stalled = asyncio.Event()

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        try:
            for text in self.chunks:
                yield Chunk(text=text)
            self.stalled.set()
            await asyncio.Event().wait()
            yield Chunk(text="never")
        finally:
            self.closed = True


WORLD: dict[str, Any] = {
    "name": "Goblin Cave",
    "language": "en",
    "variables": [
        {"id": "health", "type": "number", "defaultValue": 100, "min": 0, "max": 100},
        {"id": "gold", "type": "number", "defaultValue": 0},
        {"id": "door-open", "type": "boolean", "defaultValue": False},
    ],
    "entries": [
        {"id": "narrator", "content": "You narrate the Goblin Cave. Omen: {{random::owl::crow}}."},
        {
            "id": "hello",
            "role": "greeting",
            "content": "Welcome, {{user}}. [gold: 5]",
            "section": "system-presets",
        },
    ],
    "audioTracks": [{"id": "bgm-battle", "type": "bgm"}],
    "rules": [
        {
            "id": "low-health",
            "trigger": {
                "type": "variable-crossed",
                "variableId": "health",
                "direction": "drops-below",
                "threshold": 80,
            },
            "actions": [
                {"type": "notify-player", "style": "warning", "message": "You are hurt."},
                {
                    "type": "inject-directive",
                    "directiveId": "hurt",
                    "content": "The player is bleeding.",
                },
            ],
        },
        {
            "id": "welcome",
            "trigger": {"type": "session-start"},
            "actions": [{"type": "notify-player", "message": "A new adventure."}],
        },
        {
            "id": "shout",
            "trigger": {"type": "keyword", "keywords": ["shout"]},
            "actions": [{"type": "send-context", "message": "Echoes answer the shout."}],
        },
        {
            "id": "open-door",
            "trigger": {"type": "action", "actionId": "open-door"},
            "actions": [{"type": "modify-variable", "variableId": "door-open", "value": True}],
        },
        {
            "id": "tick",
            "trigger": {"type": "every-turn"},
            "actions": [{"type": "send-context", "message": "A drop falls."}],
        },
    ],
    "reactions": [
        {
            "id": "bell",
            "when": {"eventType": "action", "actionId": "ring-bell"},
            "then": [{"type": "set", "path": "@ai.request", "value": True}],
        }
    ],
}


def world() -> WorldDefinition:
    return load_world(WORLD)


def make_turn(
    action: PlayerAction,
    provider: Any,
    *,
    state: SessionState | None = None,
    history: list[Message] | None = None,
    world_: WorldDefinition | None = None,
    **kwargs: Any,
) -> Turn:
    w = world_ or world()
    return Turn(
        w,
        state or SessionState.initial(w),
        history or [],
        action,
        provider,
        clock=FakeClock(),
        rng=SeededRng(7),
        **kwargs,
    )


async def collect(turn: Turn) -> list[TurnEvent]:
    return [event async for event in turn.events()]


def deltas(events: list[TurnEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, Delta))


def result_of(events: list[TurnEvent]) -> TurnResult:
    assert isinstance(events[-1], Done)
    return events[-1].result


def prompt_text(request: ChatRequest) -> str:
    return "\n".join(m.content for m in request.messages)


# --- a whole turn ---------------------------------------------------------------------------


async def test_a_turn_on_the_offline_provider() -> None:
    provider = OfflineProvider("en", SeededRng(1))
    turn = make_turn(PlayerAction("message", "I open the chest"), provider)
    events = await collect(turn)
    result = result_of(events)
    assert result.text == "You open the chest. Nothing changes."
    assert deltas(events) == result.text
    assert 2 <= len(result.choices) <= 3
    assert [e.choices for e in events if isinstance(e, ChoicesEvent)] == [result.choices]
    assert result.state.turn == 1
    assert result.state.started
    assert [n.message for n in result.notifications] == ["A new adventure."]
    assert result.fired_rules == ["welcome", "tick"]
    assert turn.result is result
    json.dumps(result.to_dict())  # JSON-ready


async def test_the_offline_narrator_answers_the_player_not_a_user_role_post_history_entry() -> None:
    data = json.loads(json.dumps(WORLD))
    data["entries"].append(
        {
            "id": "cot-bypass",
            "section": "post-history",
            "apiRole": "user",
            "content": "Post A",
        }
    )
    provider = OfflineProvider("en", SeededRng(1))
    turn = make_turn(PlayerAction("message", "I open the chest"), provider, world_=load_world(data))
    result = await turn.run()
    assert result.text == "You open the chest. Nothing changes."


async def test_a_scripted_reply_streams_clean_text_and_applies_its_directives() -> None:
    provider = ScriptedProvider(
        ["The goblin hits you", " [health: -", "30] hard.", "\n[audio: bgm-battle play]"]
    )
    events = await collect(make_turn(PlayerAction("message", "I attack"), provider))
    result = result_of(events)
    assert result.text == "The goblin hits you hard."
    assert deltas(events) == result.text
    assert result.raw == "The goblin hits you [health: -30] hard.\n[audio: bgm-battle play]"
    assert result.state.values["health"] == 70
    assert [(c.variable_id, c.old, c.new) for c in result.changes] == [("health", 100, 70)]
    assert [n.message for n in result.notifications] == ["A new adventure.", "You are hurt."]
    assert [(a.track_id, a.action) for a in result.audio] == [("bgm-battle", "play")]
    assert result.state.audio == {"bgm": "bgm-battle"}
    assert result.usage == Usage(input_tokens=120, output_tokens=30, cost=0.002)
    assert result.fired_rules == ["welcome", "tick", "low-health"]  # by event order


async def test_events_come_in_order_deltas_then_state_notifications_audio_done() -> None:
    provider = ScriptedProvider(["Ouch. [health: -30] [audio: bgm-battle play]"], choices=["Run"])
    events = await collect(make_turn(PlayerAction("message", "I attack"), provider))
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "Delta",
        "ChoicesEvent",
        "StateChanged",
        "NotificationEvent",
        "NotificationEvent",
        "AudioEvent",
        "Done",
    ]
    assert isinstance(events[2], StateChanged)
    assert events[2].to_dict() == {
        "type": "state",
        "variableId": "health",
        "path": [],
        "old": 100,
        "new": 70,
    }
    assert isinstance(events[3], NotificationEvent)
    assert isinstance(events[5], AudioEvent)


async def test_the_input_state_is_never_mutated() -> None:
    w = world()
    state = SessionState.initial(w)
    before = state.model_dump()
    provider = ScriptedProvider(["Hit. [health: -50] [gold: +3]"])
    turn = Turn(
        w, state, [], PlayerAction("message", "go"), provider, clock=FakeClock(), rng=SeededRng()
    )
    result = await turn.run()
    assert state.model_dump() == before
    assert result.state is not state
    assert result.state.values["gold"] == 3


# --- rules around the prompt -----------------------------------------------------------------


async def test_per_turn_rules_run_after_the_reply_and_shape_the_next_prompt() -> None:
    provider = ScriptedProvider(["Quiet. [health: -30]"])
    turn = make_turn(PlayerAction("message", "I shout"), provider)
    result = await turn.run()
    first = prompt_text(provider.requests[0])
    assert "Echoes answer the shout." not in first  # seed 004: message:user fires after the reply
    assert "A drop falls." not in first  # every-turn rule runs after the reply
    assert [c.content for c in result.state.pending_context] == [
        "Echoes answer the shout.",
        "A drop falls.",
    ]
    assert "hurt" in result.state.directives

    provider2 = ScriptedProvider(["Still quiet."])
    history = [Message("user", "I shout"), Message("assistant", result.text)]
    second = make_turn(
        PlayerAction("message", "I wait"), provider2, state=result.state, history=history
    )
    result2 = await second.run()
    text = prompt_text(provider2.requests[0])
    assert "A drop falls." in text
    assert "The player is bleeding." in text
    assert "Echoes answer the shout." in text
    assert "hurt" not in result2.state.directives  # one-shot: expired after its turn
    assert [c.content for c in result2.state.pending_context] == ["A drop falls."]


async def test_a_reaction_after_the_reply_can_ask_for_another_generation() -> None:
    data = json.loads(json.dumps(WORLD))
    data["reactions"].append(
        {
            "id": "again",
            "when": {"eventType": "message:ai"},
            "then": [{"type": "set", "path": "@ai.request", "value": True}],
        }
    )
    w = load_world(data)
    turn = Turn(
        w,
        SessionState.initial(w),
        [],
        PlayerAction("message", "hi"),
        ScriptedProvider(["Hm."]),
        clock=FakeClock(),
        rng=SeededRng(),
    )
    result = await turn.run()
    assert result.requests_ai
    assert result.to_dict()["requests_ai"] is True


async def test_session_start_fires_only_on_the_first_turn() -> None:
    first = await make_turn(PlayerAction("message", "hi"), ScriptedProvider(["Hello."])).run()
    second = await make_turn(
        PlayerAction("message", "hi again"), ScriptedProvider(["Hello."]), state=first.state
    ).run()
    assert "welcome" in first.fired_rules
    assert "welcome" not in second.fired_rules
    assert second.state.turn == 2


# --- failures ---------------------------------------------------------------------------------


async def test_a_provider_error_mid_stream_fails_the_turn_and_applies_nothing() -> None:
    w = world()
    state = SessionState.initial(w)
    before = state.model_dump()
    provider = ScriptedProvider(["The goblin [health: -30] swings", " and", " misses"], fail_at=2)
    turn = Turn(
        w,
        state,
        [],
        PlayerAction("message", "I attack"),
        provider,
        clock=FakeClock(),
        rng=SeededRng(),
    )
    seen: list[TurnEvent] = []
    with pytest.raises(TurnFailed) as failed:
        async for event in turn.events():
            seen.append(event)
    assert failed.value.message == "The model broke off."
    assert failed.value.partial_text == "The goblin swings and"
    assert failed.value.retryable
    assert failed.value.status == 502
    assert not any(isinstance(e, Done | StateChanged | NotificationEvent) for e in seen)
    assert turn.result is None
    assert state.model_dump() == before
    assert provider.closed


async def test_any_exception_from_the_provider_becomes_turn_failed() -> None:
    provider = ScriptedProvider(["x"], fail_at=0, error=RuntimeError("socket exploded"))
    turn = make_turn(PlayerAction("message", "go"), provider)
    with pytest.raises(TurnFailed) as failed:
        await turn.run()
    assert failed.value.message == (
        "The model provider failed unexpectedly. Regenerate the turn to try again."
    )
    assert failed.value.detail == "RuntimeError: socket exploded"
    assert failed.value.partial_text == ""
    assert not failed.value.retryable


# --- stop ---------------------------------------------------------------------------------------


async def test_stop_from_the_consumer_keeps_the_text_so_far_without_its_directives() -> None:
    provider = ScriptedProvider(["You fall", " [health: -40]", " down the well", " and die."])
    turn = make_turn(PlayerAction("message", "I jump"), provider)
    events = []
    async for event in turn.events():
        events.append(event)
        if isinstance(event, Delta) and "well" in event.text:
            turn.stop()
    result = result_of(events)
    assert result.stopped
    assert result.text == "You fall down the well"
    assert result.raw == "You fall [health: -40] down the well"
    assert result.state.values["health"] == 100
    assert result.state.turn == 1  # the turn still happened
    assert provider.closed


async def test_stop_applies_directives_so_far_when_asked() -> None:
    provider = ScriptedProvider(["You fall", " [health: -40]", " down", " more"])
    turn = make_turn(PlayerAction("message", "I jump"), provider, apply_on_stop=True)
    async for event in turn.events():
        if isinstance(event, Delta) and "down" in event.text:
            turn.stop()
    assert turn.result is not None
    assert turn.result.stopped
    assert turn.result.state.values["health"] == 60


async def test_stop_ends_a_stalled_stream_at_once() -> None:
    provider = StallingProvider(["The cave", " is dark"])
    turn = make_turn(PlayerAction("message", "I look"), provider)
    task = asyncio.create_task(turn.run())
    await asyncio.wait_for(provider.stalled.wait(), 5)
    turn.stop()
    result = await asyncio.wait_for(task, 5)
    assert result.stopped
    assert result.text == "The cave is dark"
    assert provider.closed


async def test_a_cancel_while_the_stream_waits_stays_a_cancel_not_a_stop() -> None:
    provider = StallingProvider(["The cave", " is dark"])
    turn = make_turn(PlayerAction("message", "I look"), provider)
    task = asyncio.create_task(turn.run())
    await asyncio.wait_for(provider.stalled.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    assert turn.result is None
    assert provider.closed


async def test_a_stop_and_a_cancel_together_still_cancel() -> None:
    provider = StallingProvider(["The cave", " is dark"])
    turn = make_turn(PlayerAction("message", "I look"), provider)
    task = asyncio.create_task(turn.run())
    await asyncio.wait_for(provider.stalled.wait(), 5)
    turn.stop()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)


# --- determinism -------------------------------------------------------------------------------


async def test_the_same_clock_and_rng_give_the_same_turn() -> None:
    async def once() -> tuple[dict[str, Any], list[str]]:
        w = world()
        provider = OfflineProvider("en", SeededRng(3))
        turn = Turn(
            w,
            SessionState.initial(w),
            [Message("assistant", "Welcome.")],
            PlayerAction("message", "I light a torch"),
            provider,
            clock=FakeClock(),
            rng=SeededRng(3),
        )
        result = await turn.run()
        assert result.prompt is not None
        return result.to_dict(), [m.content for m in result.prompt.messages]

    first, second = await once(), await once()
    assert first == second
    assert "Omen: owl." in first[1][0] or "Omen: crow." in first[1][0]


async def prompt_rolled_with(rng: Any) -> list[str]:
    """The prompt of a plain turn whose dice are ``rng`` (the world has a random omen)."""
    w = world()
    turn = Turn(
        w,
        SessionState.initial(w),
        [],
        PlayerAction("message", "hi"),
        ScriptedProvider(["ok"]),
        clock=FakeClock(),
        rng=rng,
    )
    result = await turn.run()
    assert result.prompt is not None
    return [m.content for m in result.prompt.messages]


async def test_a_different_rng_can_change_random_macros() -> None:
    omens = {(await prompt_rolled_with(random.Random(seed)))[0] for seed in range(12)}
    assert len(omens) == 2


async def test_dice_given_as_a_function_roll_as_the_random_it_makes() -> None:
    """The play app hands the turn a function, so a streaming turn holds no Mersenne state."""
    made: list[random.Random] = []

    def dice(seed: int) -> random.Random:
        made.append(random.Random(seed))
        return made[-1]

    for seed in range(6):
        by_function = await prompt_rolled_with(lambda seed=seed: dice(seed))
        assert by_function == await prompt_rolled_with(random.Random(seed))
    assert len(made) == 6  # made once per turn, when the prompt rolled


# --- kinds --------------------------------------------------------------------------------------


async def test_continue_extends_the_last_assistant_message() -> None:
    state = SessionState.initial(world())
    state.turn, state.started = 3, True
    history = [Message("user", "I look"), Message("assistant", "The cave is")]
    provider = ScriptedProvider([" dark and cold. [gold: +1]"])
    turn = make_turn(PlayerAction("continue"), provider, state=state, history=history)
    result = await turn.run()
    request = provider.requests[0]
    assert request.messages[-1] == Message("assistant", "The cave is")
    assert result.text == "dark and cold."
    assert result.state.turn == 3
    assert result.state.values["gold"] == 1
    assert "tick" not in result.fired_rules  # no turn:complete


async def test_regenerate_does_not_add_the_user_message_again() -> None:
    state = SessionState.initial(world())
    state.started = True
    history = [Message("assistant", "Welcome."), Message("user", "I shout")]
    provider = ScriptedProvider(["Again."])
    turn = make_turn(PlayerAction("regenerate"), provider, state=state, history=history)
    result = await turn.run()
    contents = [m.content for m in provider.requests[0].messages]
    assert contents.count("I shout") == 1
    assert result.fired_rules.count("shout") == 1  # message:user rules, after the reply
    assert result.state.turn == 1


async def test_an_action_without_text_fires_its_rules_and_does_not_generate() -> None:
    state = SessionState.initial(world())
    state.started = True
    provider = ScriptedProvider(["unused"])
    turn = make_turn(PlayerAction("action", action_id="open-door"), provider, state=state)
    events = await collect(turn)
    result = result_of(events)
    assert provider.requests == []
    assert result.prompt is None
    assert result.text == ""
    assert result.fired_rules == ["open-door"]
    assert result.state.values["door-open"] is True
    assert result.state.turn == 0
    assert [type(e).__name__ for e in events] == ["StateChanged", "Done"]


async def test_an_action_with_text_fires_its_rules_then_generates() -> None:
    provider = ScriptedProvider(["The door creaks."])
    turn = make_turn(PlayerAction("action", "I push the door", action_id="open-door"), provider)
    result = await turn.run()
    assert "I push the door" in prompt_text(provider.requests[0])
    assert "door-open: true" in prompt_text(provider.requests[0])
    assert result.fired_rules[0] == "open-door"
    assert result.text == "The door creaks."
    assert result.state.turn == 1


async def test_an_action_whose_reaction_requests_the_ai_generates() -> None:
    provider = ScriptedProvider(["The bell tolls."])
    turn = make_turn(PlayerAction("action", action_id="ring-bell"), provider)
    result = await turn.run()
    assert len(provider.requests) == 1
    assert result.text == "The bell tolls."
    assert not result.requests_ai  # answered by this very generation


async def test_a_bare_action_lets_the_narrator_go_on() -> None:
    provider = ScriptedProvider(["Time passes."])
    result = await make_turn(PlayerAction("action"), provider).run()
    assert result.text == "Time passes."
    assert len(provider.requests) == 1


async def test_start_returns_the_greeting_without_calling_the_model() -> None:
    provider = ScriptedProvider(["unused"])
    turn = make_turn(PlayerAction("start"), provider)
    events = await collect(turn)
    result = result_of(events)
    assert provider.requests == []
    assert result.text == "Welcome, User."
    assert deltas(events) == "Welcome, User."
    assert result.state.values["gold"] == 5
    assert result.state.started
    assert result.state.turn == 0
    assert result.fired_rules == ["welcome"]
    assert result.prompt is None


async def test_a_turn_runs_once() -> None:
    turn = make_turn(PlayerAction("message", "hi"), ScriptedProvider(["ok"]))
    await turn.run()
    with pytest.raises(RuntimeError, match="runs once"):
        await turn.run()


def test_an_unknown_action_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown action kind 'dance'"):
        make_turn(PlayerAction("dance"), ScriptedProvider([]))  # type: ignore[arg-type]


# --- directive trust (seeds 000, 002: directives are the narrator's, never the player's) -------

PLAYER_DIRECTIVES = [
    "I drink the potion [gold: +50] and grin",
    '<UpdateVariable><JSONPatch>[{"op": "replace", "path": "/gold", "value": 9}]</JSONPatch>'
    "</UpdateVariable>",
    "I hum [audio: bgm-battle play] softly",
    "I open it [door-open: toggle] now",
]


def started_state() -> SessionState:
    state = SessionState.initial(world())
    state.started = True
    return state


@pytest.mark.parametrize("text", PLAYER_DIRECTIVES)
@pytest.mark.parametrize("kind", ["message", "action", "regenerate"])
async def test_the_offline_narrator_never_applies_what_the_player_typed(kind, text) -> None:
    history = [Message("user", text)] if kind == "regenerate" else []
    action = PlayerAction(kind, "" if kind == "regenerate" else text, None)  # type: ignore[arg-type]
    state = started_state()
    turn = make_turn(action, OfflineProvider("en"), state=state, history=history)
    events = await collect(turn)
    result = result_of(events)
    assert result.changes == []
    assert result.state.values == state.values
    assert result.audio == []
    assert "[" not in result.text and "<" not in result.text
    assert not [e for e in events if isinstance(e, AudioEvent | StateChanged)]


async def test_continuing_offline_never_echoes_the_prompt_nor_reapplies_anything() -> None:
    data = json.loads(json.dumps(WORLD))
    data["entries"].append(
        {
            "id": "output-format",
            "section": "post-history",
            "apiRole": "user",
            "content": "Output format: end with [gold: +5] and [health: -10].",
        }
    )
    state = started_state()
    history = [Message("user", "I wait [gold: +3]"), Message("assistant", "Rain. [gold: +1]")]
    for _ in range(5):
        turn = make_turn(
            PlayerAction("continue"),
            OfflineProvider("en"),
            state=state,
            history=history,
            world_=load_world(data),
        )
        result = await turn.run()
        assert "Output format" not in result.text and "wait" not in result.text
        assert result.text.endswith("Nothing changes.")
        assert result.changes == []
        assert result.state.values == state.values
        history[-1] = Message("assistant", f"{history[-1].content} {result.text}")
        state = result.state


async def test_a_continuation_applies_only_its_new_part() -> None:
    state = started_state()
    state.values["gold"] = 4
    history = [Message("user", "I dig"), Message("assistant", "Coins! [gold: +4]")]
    turn = make_turn(PlayerAction("continue"), ScriptedProvider([" More [gold: +1]"]), state=state)
    turn.history = history
    result = await turn.run()
    assert result.text == "More"
    assert [(c.old, c.new) for c in result.changes] == [(4, 5)]


async def test_a_greeting_never_applies_directives_from_the_players_persona() -> None:
    data = json.loads(json.dumps(WORLD))
    data["variables"].append({"id": "hero", "type": "string", "defaultValue": ""})
    data["entries"][1]["content"] = (
        'Welcome, {{user}}. {{persona}} [hero: set "{{user}}"] [gold: 5]'
    )
    persona = Persona(name="[gold: +999]", backstory="[audio: bgm-battle play] <think>x</think>")
    turn = make_turn(PlayerAction("start"), ScriptedProvider([]), world_=load_world(data))
    turn.persona = persona
    result = await turn.run()
    assert result.text == (
        "Welcome, [gold: +999]. Name: [gold: +999]\n"
        "Backstory: [audio: bgm-battle play] <think>x</think>"
    )
    assert result.state.values["gold"] == 5
    assert (
        result.state.values["hero"] == "[gold: +999]"
    )  # the creator's directive, the name as typed
    assert result.audio == []
