"""engine.gm.play and the Turn's delegation: kinds, model calls, pending checks and rolls."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from engine.gm.play import GMError, play_gm_action
from engine.llm.base import ChatRequest, Chunk, ProviderError, Usage
from engine.llm.offline import OfflineProvider
from engine.session import SessionState, ToolCall
from engine.turn import PlayerAction, Turn, TurnFailed
from engine.world import load_world
from tests.conftest import FakeClock, SeededRng
from tests.engine.gm.worlds import demo_world, new_state, play, play_all, tiny_world


class CountingProvider:
    """A live-like provider that records each request and closes the turn with log_event."""

    name = "counting"
    model = "counting-1"

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        arguments = {
            "narration": "The narrator speaks.",
            "suggestions": ["Look closer", "Walk away"],
        }
        yield Chunk(tool_calls=[ToolCall("c1", "log_event", arguments)])
        yield Chunk(usage=Usage(input_tokens=10, output_tokens=4, cost=0.001))


def test_an_engine_move_makes_no_model_call():
    provider = CountingProvider()
    world = demo_world()
    result = play(world, new_state(world), "go south", "ren", provider=provider)
    assert (result.kind, result.model_calls, provider.requests) == ("engine", 0, [])


def test_anything_else_goes_to_the_master_with_the_scene_context():
    provider = CountingProvider()
    world = demo_world()
    result = play(world, new_state(world), "I hum an old song", "ren", provider=provider)
    assert (result.kind, result.model_calls) == ("master", 1)
    assert result.narration == "The narrator speaks."
    assert result.suggestions == ["Look closer", "Walk away"]
    turn = provider.requests[0].messages[1]
    assert turn.role == "user" and result.context in turn.content
    assert provider.requests[0].player_text == "I hum an old song"
    assert result.events[0].text == 'Ren Ashby: "I hum an old song"'


def test_offline_the_narrator_is_the_offline_provider():
    world = demo_world()
    result = play(world, new_state(world), "I hum an old song", "ren")
    assert (result.kind, result.model_calls) == ("master", 1)
    assert result.narration == "You do as you said: “I hum an old song”. Nothing changes."
    assert result.usage.cost == 0


def test_offline_the_offline_master_asks_for_a_check_and_the_roll_resolves_it():
    world = demo_world()
    asked, rolled = play_all(world, ["climb the well", {"roll": True}], "ada")
    assert (asked.kind, asked.model_calls, asked.rolls) == ("master", 1, [])
    assert asked.usage.cost == 0
    assert asked.narration == "That is risky. Roll Athletics (DC 15)."
    assert asked.suggestions == ["Roll"]
    assert asked.changes["pending"]["check"] == "athletics"
    assert rolled.kind == "master" and rolled.changes["pending"] is None
    roll = rolled.rolls[0]
    assert (roll.die, roll.dc, roll.modifier, roll.hidden) == ("d20", 15, 2, False)
    assert rolled.narration.startswith(
        f"Athletics: d20 {roll.faces[0]} + 2 = {roll.total} vs DC 15"
    )
    assert rolled.state.gm is not None and rolled.state.gm.pending == {}


def test_the_roll_repeats_with_the_same_seed():
    world = demo_world()
    first = play_all(world, ["climb the well", {"roll": True}], "ada", rng_seed=11)[-1]
    again = play_all(world, ["climb the well", {"roll": True}], "ada", rng_seed=11)[-1]
    assert first.rolls[0].to_dict() == again.rolls[0].to_dict()


@pytest.mark.parametrize("text", ["trepo el pozo", "爬井"])
def test_risky_verbs_are_read_in_spanish_and_chinese(text):
    world = demo_world()
    result = play(world, new_state(world), text, "ada")
    assert result.kind == "master" and result.changes["pending"]["check"] == "athletics"


def test_an_attack_rolls_to_hit_then_damage_and_moves_trust():
    world = tiny_world()
    for seed in range(30):
        result = play_all(world, ["attack the guard", {"roll": True}], rng_seed=seed)[-1]
        hit = result.rolls[0]
        assert hit.dc == 10 and hit.check == "attack"
        if hit.outcome in ("success", "critical-success"):
            assert result.rolls[1].kind == "damage" and result.rolls[1].die.endswith("d8")
            assert "npcHp" in result.changes
            break
    else:
        pytest.fail("no hit in 30 seeds")
    assert result.changes["trust"] == {"guard": -40}


def test_attack_with_several_people_about_asks_whom_at_no_cost():
    world = demo_world()
    result = play_all(world, ["wait until evening", "attack"], "ren")[-1]
    assert (result.kind, result.model_calls) == ("ask", 0)
    assert (
        result.narration
        == "Whom do you want to attack? Here: Hilda Brant, Greta Vell, stable hand."
    )
    assert result.state.gm is not None and result.state.gm.pending == {}


def test_attack_with_nobody_here_is_refused():
    world = tiny_world()
    result = play(world, new_state(world), "attack", "lin")
    assert (result.kind, result.narration) == ("refused", "There is nobody here to attack.")


def test_a_search_is_a_hidden_roll_that_finds_hidden_points():
    world = tiny_world()
    result = play(world, new_state(world), "search the hall", rng_seed=4)
    assert result.kind == "master" and result.rolls[0].hidden is True
    assert "HIDDEN" not in result.narration and "d20" not in result.narration
    if result.rolls[0].total >= 10:
        assert result.changes["discovered"] == ["hall:panel"]
        assert result.narration == "You find: a sliding panel."


def test_forcing_a_locked_way_opens_it_on_success():
    world = tiny_world()
    for seed in range(40):
        result = play_all(world, ["force the east door", {"roll": True}, "go east"], rng_seed=seed)
        if result[1].rolls[0].outcome == "success":
            assert result[1].changes["unlocked"] == ["hall>east"]
            assert result[2].location == "vault"
            return
    pytest.fail("no success in 40 seeds")


def test_rolling_with_nothing_pending_is_refused():
    world = tiny_world()
    result = play(world, new_state(world), {"roll": True})
    assert (result.kind, result.narration) == ("refused", "There is no roll waiting.")


def test_another_action_drops_a_pending_check():
    world = demo_world()
    result = play_all(world, ["climb the well", "look around"], "ada")[-1]
    assert result.changes["pending"] is None
    assert result.state.gm is not None and result.state.gm.pending == {}


def test_a_live_provider_narrates_the_consequence_of_a_roll_in_one_call():
    provider = CountingProvider()
    world = demo_world()
    asked = play(world, new_state(world), "climb the well", "ada")  # offline: a pending check
    rolled = play(world, asked.state, {"roll": True}, "ada", provider=provider)
    assert rolled.model_calls == 1 and len(provider.requests) == 1
    assert "The server already rolled" in provider.requests[0].messages[-1].content
    assert rolled.narration.endswith("The narrator speaks.")


def test_only_the_masters_actions_count_toward_the_daily_quota():
    world = demo_world()
    kinds = play_all(world, ["go south", "drop", "take the moon", "I hum", "climb"], "ren")
    assert [(r.kind, r.counts_toward_quota) for r in kinds] == [
        ("engine", False),
        ("ask", False),
        ("refused", False),
        ("master", True),
        ("master", True),
    ]


def test_the_creator_sees_hidden_rolls_the_player_does_not():
    world = tiny_world()
    result = play(world, new_state(world), "search")
    assert result.to_dict()["rolls"][0]["hidden"] is True
    assert result.player_rolls() == []


def test_unknown_character_and_bad_actions_raise():
    world = tiny_world()
    with pytest.raises(GMError, match="unknown character 'zed' \\(the world has: kai, lin\\)"):
        play(world, new_state(world), "look", "zed")
    with pytest.raises(GMError, match="an action is a string"):
        play(world, new_state(world), {"dance": True})
    plain = load_world({"name": "Plain"})
    with pytest.raises(GMError, match="no gameMaster block"):
        asyncio.run(play_gm_action(plain, SessionState.initial(plain), "kai", "look"))


def test_the_gm_state_lives_in_the_session_state_as_json():
    world = demo_world()
    result = play(world, new_state(world), "take the rope", "ren")
    saved = result.state.model_dump(mode="json")
    assert saved["gm"]["items"]["rope"] == {
        "character": "ren",
        "location": None,
        "npc": None,
        "point": None,
    }
    restored = SessionState.model_validate(saved)
    assert play(world, restored, "drop the rope", "ren").kind == "engine"


# --- the Turn delegates ------------------------------------------------------------------------


def run_turn(world, state, action: PlayerAction, character: str | None = None):
    turn = Turn(
        world,
        state,
        [],
        action,
        OfflineProvider("en"),
        clock=FakeClock(),
        rng=SeededRng(),
        seed=5,
        character_id=character,
    )
    events = asyncio.run(_drain(turn))
    assert turn.result is not None
    return turn.result, events


async def _drain(turn: Turn) -> list[object]:
    return [event async for event in turn.events()]


def test_a_turn_in_a_game_master_world_is_played_by_the_engine():
    world = demo_world()
    result, events = run_turn(world, new_state(world), PlayerAction("message", "go south"), "ren")
    assert result.gm.kind == "engine" and result.gm.model_calls == 0
    assert result.text.startswith("You go south to Market Square.")
    assert result.state.turn == 1 and result.state.gm.characters["ren"].location == "square"
    assert [type(e).__name__ for e in events] == ["Delta", "ChoicesEvent", "Done"]


def test_a_turn_action_rolls_and_clicks():
    world = demo_world()
    first, _ = run_turn(world, new_state(world), PlayerAction("message", "climb the well"), "ada")
    rolled, _ = run_turn(world, first.state, PlayerAction("action", action_id="roll"), "ada")
    assert rolled.gm.rolls and rolled.gm.kind == "master"
    clicked, _ = run_turn(
        world, new_state(world), PlayerAction("action", action_id="click:location:square")
    )
    assert clicked.gm.location == "square"  # the first character, Ren


def test_a_start_in_a_game_master_world_keeps_the_greeting():
    world = demo_world()
    result, _ = run_turn(world, new_state(world), PlayerAction("start"))
    assert result.gm is None and result.text.startswith("Rain drums on the roof")


class FailingProvider:
    name = "failing"
    model = "failing-1"

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        raise ProviderError("The model is overloaded right now.", status=529, retryable=True)
        yield Chunk()  # pragma: no cover - makes this an async generator


def test_a_failed_narrator_call_fails_the_turn_and_applies_nothing():
    world = demo_world()
    state = new_state(world)
    turn = Turn(
        world,
        state,
        [],
        PlayerAction("message", "I hum an old song"),
        FailingProvider(),
        clock=FakeClock(),
        rng=SeededRng(),
        character_id="ren",
    )
    with pytest.raises(TurnFailed) as caught:
        asyncio.run(_drain(turn))
    assert (caught.value.message, caught.value.retryable) == (
        "The model is overloaded right now.",
        True,
    )
    assert state.gm is None and state.turn == 0


# --- the scene the master's tools see; typing the Roll button's word ----------------------------


def test_a_clue_locked_by_a_world_variable_opens_when_the_variable_says_so():
    from engine.llm.scripted import ScriptedProvider, parse_replies
    from tests.engine.gm.worlds import demo_data

    data = demo_data()
    data["variables"] = [{"id": "bell-rung", "type": "boolean", "defaultValue": False}]
    data["gameMaster"]["clues"].append(
        {
            "id": "bell-rope",
            "name": "The bell rope",
            "text": "The bell rope is cut clean.",
            "anchor": {"location": "the-wayfarer"},
            "requires": [
                {"type": "condition", "variableId": "bell-rung", "operator": "eq", "value": True}
            ],
        }
    )
    world = load_world(data)
    grant = {"name": "grant_clue", "arguments": {"clue": "bell-rope"}}
    close = {"name": "log_event", "arguments": {"narration": "You look at the rope."}}
    replies = [{"text": "", "tool_calls": [grant]}, {"text": "", "tool_calls": [close]}]
    state = new_state(world)
    state.values["bell-rung"] = True
    provider = ScriptedProvider(parse_replies(replies))
    result = play(world, state, "I hum an old song", "ren", provider=provider)
    first = result.tool_calls[0]
    assert (first.name, first.ok, first.error) == ("grant_clue", True, "")
    assert result.state.gm is not None and "bell-rope" in result.state.gm.characters["ren"].clues


@pytest.mark.parametrize(
    ("language", "typed"),
    [
        ("en", "roll"),
        ("en", "Roll"),
        ("es", "tirar"),
        ("es", "Tiro"),
        ("zh", "掷骰"),
        ("en", "tiro"),
    ],
)
def test_typing_the_roll_word_while_a_check_waits_rolls_it(language, typed):
    world = demo_world().model_copy(update={"language": language})
    state = new_state(world)
    asked = play(world, state, "climb the well", "ada", rng_seed=5)
    assert asked.pending is not None
    by_word = play(world, asked.state, typed, "ada", rng_seed=5)
    by_button = play(world, asked.state, {"roll": True}, "ada", rng_seed=5)
    assert by_word.to_dict()["rolls"] == by_button.to_dict()["rolls"] != []
    assert (by_word.kind, by_word.narration) == (by_button.kind, by_button.narration)
    assert by_word.changes["pending"] is None


def test_the_roll_word_in_a_sentence_or_with_nothing_waiting_is_no_roll():
    world = demo_world()
    asked = play(world, new_state(world), "climb the well", "ada")
    rolled_barrel = play(world, asked.state, "roll the barrel away", "ada")
    assert rolled_barrel.rolls == [] and rolled_barrel.changes["pending"] is None
    nothing = play(world, new_state(world), "roll", "ada")
    assert nothing.kind == "master" and nothing.rolls == []
