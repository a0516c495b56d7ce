"""The Status panel of a game-master session (issue 33 §4): the character's sheet as his player
may read it, projected by the engine (``engine.gm.status``) and drawn by
templates/play/partials/gm_status.html. The page draws it once and htmx fetches it again each
time the state or the scene changes (``fabula:state``, ``fabula:scene``).
"""

from __future__ import annotations

from django.utils.translation import get_language

from engine.gm.play import ensure_gm_state
from engine.gm.status import CharacterStatus, character_status
from engine.world import WorldDefinition
from play.gm import character_of
from play.models import Session
from play.sessions import state_of, world_of


def status_of(session: Session, world: WorldDefinition | None = None) -> CharacterStatus | None:
    """The sheet of the character ``session`` plays, in the page's language; None in a plain
    world. Before the first action the block's starting state stands in (nothing is saved)."""
    world = world or world_of(session)
    character = character_of(session, world)
    if character is None or world.game_master is None:
        return None
    state = state_of(session)
    if state.gm is None or character not in state.gm.characters:
        ensure_gm_state(world, state)
    assert state.gm is not None
    return character_status(state.gm, world.game_master, character, get_language() or "en")
