"""``/api/worlds/{id}/game-master``: the draft's whole ``gameMaster`` block (issue 10 §1).

GET reads it (``null`` when the world has none; the owner only, like every draft read), PUT
replaces it after the engine's models and linter (422 with ``gameMaster.<path>: message`` lines,
nothing saved), DELETE removes it.
"""

from __future__ import annotations

from typing import Any

from ninja import Body, Router, Status

from studio.access import get_draft_for_user, get_world_for_user
from studio.gamemaster import disable_game_master, game_master_data, save_game_master
from studio.schemas import ApiRequest

router = Router(tags=["game-master"])
PATH = "/worlds/{int:world_id}/game-master"


@router.get(PATH, response=dict[str, Any] | None, summary="The gameMaster block")
def get_game_master(request: ApiRequest, world_id: int) -> dict[str, Any] | None:
    return game_master_data(get_draft_for_user(request.auth, world_id))


@router.put(PATH, response=dict[str, Any], summary="Replace the gameMaster block")
def put_game_master(
    request: ApiRequest, world_id: int, payload: Body[dict[str, Any]]
) -> dict[str, Any] | None:
    world = get_world_for_user(request.auth, world_id, write=True)
    save_game_master(world, payload)
    return game_master_data(world)


@router.delete(PATH, response={204: None}, summary="Remove the gameMaster block")
def delete_game_master(request: ApiRequest, world_id: int) -> Any:
    disable_game_master(get_world_for_user(request.auth, world_id, write=True))
    return Status(204, None)
