"""Playing evaluated actions (engine.evals.runner): a route through the game master and through
a plain world, the automatic player's games, latency from the injected timer, failures."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from engine.evals.player import ScriptedPlayer
from engine.evals.runner import ActionFailed, play_game, play_step
from engine.llm.base import ChatRequest, Chunk, ProviderError
from engine.llm.scripted import ScriptedProvider, ScriptedReply
from engine.session import SessionState
from tests.engine.evals.worlds import brackenford, lantern, table

CLOSE = ScriptedReply(tool_calls=(("log_event", {"narration": "Hilda nods at you."}),))


async def test_a_route_plays_each_action_once_in_the_game_master_world():
    transcript = await play_game(
        table(brackenford()), route=["I look around.", "I hum.", "go south"]
    )

    steps = transcript.steps
    assert [s.kind for s in steps] == ["engine", "master", "engine"]
    assert [s.location for s in steps] == ["the-wayfarer", "the-wayfarer", "the-wayfarer"]
    assert steps[1].narration == "You do as you said: “I hum”. Nothing changes."
    assert steps[1].present == ["hilda"]
    assert steps[2].present == ["hilda", "greta"]  # the square, where Greta is this morning
    assert transcript.character == "ren" and transcript.model == "offline"


async def test_the_tool_calling_master_closes_through_log_event_and_its_usage_is_kept():
    provider = ScriptedProvider([CLOSE])

    played = await play_step(table(brackenford(), provider), state(), [], "I hum.", index=0)

    step = played.step
    assert step.narration == "Hilda nods at you."
    assert step.model_calls == 1 and step.attempts == 1
    assert step.closure == {"ok": True, "violations": []}
    assert step.tool_calls[0]["name"] == "log_event"
    assert step.usage["input_tokens"] > 0


def state():
    return SessionState.initial(brackenford())


async def test_playing_a_step_leaves_its_input_state_alone_and_measures_latency():
    before = state()
    snapshot = before.model_dump(mode="json")

    played = await play_step(table(brackenford()), before, [], "go south", index=4, tactic="lie")

    assert before.model_dump(mode="json") == snapshot
    assert played.state.gm.characters["ren"].location == "square"
    assert played.step.latency_ms == 250.0  # one tick of the test timer
    assert (played.step.index, played.step.tactic) == (4, "lie")


async def test_a_plain_world_plays_through_the_turn_and_keeps_the_history():
    first = await play_step(
        table(lantern()), SessionState.initial(lantern()), [], "I sit.", index=0
    )
    second = await play_step(table(lantern()), first.state, first.history, "I wait.", index=1)

    assert first.step.kind == "narrator" and first.step.model_calls == 1
    assert first.step.narration.startswith("You sit.")
    assert [m.role for m in second.history] == ["user", "assistant", "user", "assistant"]


async def test_auto_play_with_the_scripted_player_is_the_same_game_for_the_same_seed():
    one = await play_game(table(brackenford(), seed=7), player=ScriptedPlayer(), actions=12)
    two = await play_game(table(brackenford(), seed=7), player=ScriptedPlayer(), actions=12)

    assert [s.action for s in one.steps] == [s.action for s in two.steps]
    assert len(one.steps) == 12
    assert any(s.tactic for s in one.steps)


class Down:
    name = "down"
    model = "down-1"

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        raise ProviderError("The model is overloaded right now.", status=529, retryable=True)
        yield Chunk()  # pragma: no cover - an async generator


async def test_a_provider_error_is_an_action_failed_saying_whether_to_retry():
    with pytest.raises(ActionFailed) as failed:
        await play_step(table(brackenford(), Down()), state(), [], "I hum.", index=0)

    assert failed.value.retryable
    assert failed.value.message == "The model is overloaded right now."


async def test_a_game_stops_at_its_first_failed_action():
    transcript = await play_game(
        table(brackenford(), Down()), route=["go south", "I hum.", "I sing."]
    )

    assert [s.failed for s in transcript.steps] == [False, True]
    assert transcript.steps[1].error == "The model is overloaded right now."
