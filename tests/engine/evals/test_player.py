"""The automatic player (engine.evals.player, engine.evals.sight): seed 001's 40 % of break
attempts, words from what the character sees, a model player with its tactic in the prompt."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

from engine.evals.player import (
    INVENTED,
    TACTICS,
    ModelPlayer,
    PlayerView,
    ScriptedPlayer,
    break_text,
    player_request,
)
from engine.evals.sight import default_route, parse_route, player_view
from engine.llm.base import ChatRequest, Chunk, Usage
from engine.session import SessionState
from tests.engine.evals.worlds import brackenford, lantern

VIEW = PlayerView(
    character="Ren Ashby",
    place="Pell's General Store",
    exits=("out",),
    npcs=("the shopkeeper",),
    items_here=(),
    carried=("dagger",),
    lacks=("silver chalice",),
    goods=("hooded lantern",),
    others=("Ada Thorne",),
)


async def test_four_moves_in_ten_try_to_break_the_game():
    player = ScriptedPlayer()
    moves = [await player.next_move(VIEW, random.Random(n)) for n in range(1000)]

    breaks = [m for m in moves if m.tactic]
    assert 370 <= len(breaks) <= 430
    assert {m.tactic for m in breaks} == set(TACTICS)


async def test_the_same_rng_gives_the_same_move():
    player = ScriptedPlayer()

    first = await player.next_move(VIEW, random.Random("g1:4"))
    again = await player.next_move(VIEW, random.Random("g1:4"))

    assert (first.text, first.tactic) == (again.text, again.tactic)


def test_each_tactic_is_worded_from_what_the_character_sees():
    rng = random.Random(1)
    said = {t: {break_text(t, VIEW, rng) for _ in range(20)} for t in TACTICS}

    assert any("hooded lantern" in s for s in said["haggle"])
    assert all("silver chalice" in s for s in said["claim-item"])
    assert any("Ada Thorne" in s for s in said["act-for-others"])
    assert all(any(x in s for x in INVENTED) for s in said["nonexistent"])
    assert any("the shopkeeper" in s for s in said["lie"])


def test_plain_moves_press_a_suggestion_or_move_about():
    view = PlayerView(exits=("north",), npcs=("Hilda Brant",), suggestions=("Order a drink",))
    player = ScriptedPlayer(break_share=0)
    rng = random.Random(5)
    said = {player_move(player, view, rng) for _ in range(60)}

    assert "Order a drink" in said
    assert "go north" in said
    assert "I greet Hilda Brant and ask how things are." in said


def player_move(player, view, rng):
    from engine.evals.player import scripted_move

    return scripted_move(view, rng, player.break_share).text


def test_the_view_names_strangers_by_trade_and_lists_what_he_lacks():
    world = brackenford()
    state = SessionState.initial(world)

    view = player_view(world, state, "ada")

    assert view.character == "Ada Thorne"
    assert view.place == "Market Square"
    assert view.npcs == ("the moneylender",)  # Greta, whose name Ada has not heard
    assert "mace" in view.carried and "mace" not in view.lacks
    assert view.others == ("Ren Ashby",)
    assert set(view.exits) == {"north", "east", "west", "in"}


def test_the_view_of_a_plain_world_knows_its_characters():
    view = player_view(lantern(), SessionState.initial(lantern()), None, "It rains.", ["Wait"])

    assert view.npcs == ("Mira Ashgrove",)
    assert view.narration == "It rains." and view.suggestions == ("Wait",)


def test_the_default_route_has_ten_actions_from_the_world():
    route = default_route(brackenford())

    assert len(route) == 10
    assert route[:3] == [
        "I look around.",
        "I ask Hilda Brant what news there is.",
        "take coil of rope",
    ]
    assert "go south" in route


def test_a_route_is_one_action_per_line_without_blanks_or_comments():
    assert parse_route(" go north \n\n# a note\nI wait.\n") == ["go north", "I wait."]


class Echo:
    name = "echo"
    model = "echo-1"

    def __init__(self, text: str) -> None:
        self.text = text
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        yield Chunk(text=self.text)
        yield Chunk(usage=Usage(input_tokens=50, output_tokens=9, cost=0.0001))


async def test_the_model_player_is_told_the_tactic_and_its_first_line_is_the_move():
    provider = Echo("I wave my silver chalice at everyone.\nExtra chatter.")
    player = ModelPlayer(provider, break_share=1.0)

    move = await player.next_move(VIEW, random.Random(2))

    assert move.text == "I wave my silver chalice at everyone."
    assert move.tactic in TACTICS
    assert move.usage.cost == 0.0001
    assert "try to break the game" in provider.requests[0].messages[0].content


async def test_a_silent_model_player_falls_back_to_the_scripted_move():
    move = await ModelPlayer(Echo("  \n"), break_share=0).next_move(VIEW, random.Random(2))

    assert move.text == player_move(ScriptedPlayer(0), VIEW, random.Random(2))


def test_the_player_prompt_without_a_tactic_asks_to_play_along():
    request = player_request(VIEW, None)

    assert "Play along" in request.messages[0].content
    assert "You carry: dagger." in request.messages[1].content
