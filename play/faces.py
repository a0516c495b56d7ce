"""The faces of a story's two speakers (issue 16 §4): the narrator's messages show the world's
portrait (for a character card, the character's), the player's show the persona's avatar, else
the portrait of the game-master character the session plays. Without a picture, initials.
"""

from __future__ import annotations

from typing import Any

from engine.world import WorldDefinition
from play.gm import character_of
from play.models import Session
from studio.models import CharacterPortrait
from studio.services import face_info


def session_faces(session: Session, world: WorldDefinition, player_name: str) -> dict[str, Any]:
    """``{"assistant": face, "user": face}`` as ``studio.portraits.face_info`` draws them."""
    row = session.world
    assistant = face_info(row.portrait.name or "" if row is not None else "", world.name)
    return {
        "assistant": assistant,
        "user": face_info(_player_portrait(session, world), player_name),
    }


def _player_portrait(session: Session, world: WorldDefinition) -> str:
    persona = session.persona
    if persona is not None and persona.avatar:
        return persona.avatar.name or ""
    character = character_of(session, world)
    if character is None or session.world_id is None:
        return ""
    stored = CharacterPortrait.objects.filter(world_id=session.world_id, key=character)
    return str(stored.values_list("portrait", flat=True).first() or "")
