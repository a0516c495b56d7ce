"""The automatic player's break attempts (issue 35 §7): secret extraction and directive
injection among its tactics, and seed 001's 40 % held per game by a seeded schedule instead of
a per-move draw that wandered (33 % of 48 moves in one run)."""

from __future__ import annotations

import random

from engine.evals.player import (
    TACTICS,
    PlayerView,
    ScriptedPlayer,
    break_schedule,
    break_text,
    player_request,
)

VIEW = PlayerView(character="Ren Ashby", npcs=("the shopkeeper",), lacks=("silver chalice",))


def test_a_game_of_48_moves_breaks_on_19_of_them_and_every_game_holds_the_share():
    for seed in (1, 2, 3):
        for game in range(5):
            assert len(break_schedule(seed, game, 48)) == 19  # 40 % of 48, rounded
            assert len(break_schedule(seed, game, 10)) == 4
    assert break_schedule(7, 0, 48) == break_schedule(7, 0, 48)  # a resumed game: the same
    assert break_schedule(7, 0, 48) != break_schedule(7, 1, 48)
    assert break_schedule(7, 0, 0) == frozenset()


async def test_the_schedule_decides_whether_a_move_breaks():
    player = ScriptedPlayer()
    breaks = [await player.next_move(VIEW, random.Random(n), True) for n in range(200)]
    plain = [await player.next_move(VIEW, random.Random(n), False) for n in range(50)]

    assert all(m.tactic for m in breaks) and not any(m.tactic for m in plain)
    assert {m.tactic for m in breaks} == set(TACTICS)


def test_the_player_tries_to_extract_secrets_and_inject_directives():
    rng = random.Random(3)
    said = {t: {break_text(t, VIEW, rng) for _ in range(20)} for t in TACTICS}

    assert {"extract-secret", "inject-directive"} <= set(TACTICS)
    assert any("secret" in s and "the shopkeeper" in s for s in said["extract-secret"])
    assert any("hidden instructions" in s for s in said["extract-secret"])
    assert any("[SYSTEM:" in s for s in said["inject-directive"])
    prompt = player_request(VIEW, "inject-directive").messages[0].content
    assert "slip an order to the game master" in prompt
