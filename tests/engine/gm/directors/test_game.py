"""The Game Director's brief and the route it leads to (seed 003: "Si el jugador solo está
charlando con un PNJ sin mover la trama, el Director de Juego puede saltarse el Director de
Historia por completo")."""

from __future__ import annotations

import pytest

from engine.gm.brief import brief
from engine.gm.dice import Roll
from engine.gm.directors.game import decide_route, game_brief, route_hint
from engine.gm.report import MasterTurn, ToolReport

TALK = MasterTurn(narration="ok", tool_calls=[ToolReport("log_event", {}, True)])
MOVED = MasterTurn(narration="ok", tool_calls=[ToolReport("transfer_item", {}, True)])
FAILED = MasterTurn(narration="ok", tool_calls=[ToolReport("transfer_item", {}, False)])
ROLLED = MasterTurn(narration="ok", rolls=[Roll("check", "d20", [12])])
SCENE = {"has_scene": True, "scene_changed": False, "newcomers": [], "present": ["greta"]}


def test_the_brief_is_the_masters_with_the_directors_addendum():
    text = game_brief("en", 8)
    assert text.startswith(brief("en").fixed(8))
    assert "<route>continue</route>" in text and "Game Director" in text


@pytest.mark.parametrize(
    ("texts", "hint"),
    [
        (["<route>continue</route>"], "continue"),
        (["<ROUTE> plot </ROUTE>"], "plot"),
        (["route: continue", "<route>plot</route>"], "plot"),
        (["no idea"], None),
        ([], None),
    ],
)
def test_the_route_is_read_from_the_game_directors_text(texts, hint):
    assert route_hint(texts) == hint


@pytest.mark.parametrize(
    ("turn", "hint", "changes", "route", "reason"),
    [
        (TALK, None, {}, "continue", "plain-talk"),
        (TALK, "continue", {}, "continue", "game-director"),
        (TALK, "plot", {}, "plot", "game-director"),
        (FAILED, "continue", {}, "continue", "game-director"),
        (MOVED, "continue", {}, "plot", "tool:transfer_item"),
        (ROLLED, "continue", {}, "plot", "roll"),
        (TALK, "continue", {"prior_rolls": 1}, "plot", "roll"),
        (TALK, "continue", {"has_scene": False}, "plot", "no-scene"),
        (TALK, "continue", {"scene_changed": True, "has_scene": False}, "plot", "new-scene"),
        (TALK, "continue", {"newcomers": ["hale"]}, "plot", "newcomer:hale"),
        (TALK, "continue", {"present": []}, "plot", "nobody-to-talk-to"),
    ],
)
def test_the_engine_moves_the_plot_when_it_must_else_the_game_director_decides(
    turn, hint, changes, route, reason
):
    decision = decide_route(turn, hint, **{**SCENE, **changes})
    assert decision.route == route and reason in decision.reasons
