"""The scene a player finds when he sits down at a table (issue 33 §5; seed 001 "Multijugador",
"todo lo determinista cuesta cero").

A player who joins a table starts in the middle of a story the others began. His first message
is his character's place as the engine's look describes it (``engine.gm.space.describe``): the
place, who is there as he knows them (strangers described, not named), the things and the ways
on, in the session's language, at no cost. Reading it changes nothing: no event is logged, the
clock does not move.
"""

from __future__ import annotations

from engine.gm.play import GMError, ensure_gm_state
from engine.gm.scene import Scene
from engine.gm.space import describe
from engine.gm.words import lexicon
from engine.session import SessionState
from engine.world import WorldDefinition


def opening_scene(
    world: WorldDefinition, state: SessionState, character_id: str, language: str | None = None
) -> str:
    """Describe where ``character_id`` stands now, as he perceives it (``language``: the
    narration's, the world's by default). GMError for a world without a game-master block or
    a character it does not have; ``state`` is never changed."""
    copy = state.model_copy(deep=True)
    gm_state = ensure_gm_state(world, copy)
    assert world.game_master is not None
    if character_id not in gm_state.characters:
        raise GMError(f"unknown character '{character_id}'")
    world_lex = lexicon(world.language or "en")
    lex = lexicon(language) if language else world_lex
    scene = Scene(world.game_master, gm_state, character_id, lex, world_lex, values=copy.values)
    return describe(scene)
