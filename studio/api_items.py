"""API routes for the lists of a world (entries, variables, rules, …), one set per kind.

Each kind gets list, create, get, replace (PUT), change (PATCH), delete, move and duplicate;
bodies are the item's world JSON, validated by its engine model. The single objects (BGM
playlist, custom UI and its files) and the audio upload of a track are below. Reads are the
owner's too: others see a published world through its versions, never the live draft.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.http import Http404
from ninja import Body, File, Router, Status
from ninja.files import UploadedFile

from studio import worlds
from studio.access import get_draft_for_user, get_world_for_user
from studio.assets import store_audio_asset
from studio.models import (
    AudioTrack,
    BGMPlaylist,
    Component,
    ConditionalBGM,
    Entry,
    EntryFolder,
    Reaction,
    RootComponentFile,
    Rule,
    Variable,
    World,
    WorldItem,
)
from studio.parts import item_to_dict, part_for
from studio.schemas import ApiRequest, ItemOut, MoveIn, RootFileIn, RootFileOut

KINDS: dict[str, type[WorldItem]] = {
    "entries": Entry,
    "variables": Variable,
    "rules": Rule,
    "reactions": Reaction,
    "audio-tracks": AudioTrack,
    "conditional-bgm": ConditionalBGM,
    "folders": EntryFolder,
    "components": Component,
}
M = TypeVar("M", bound=WorldItem)


def get_item(world: World, model: type[M], pk: int) -> M:
    item = model.objects.filter(world=world, pk=pk).first()
    if item is None:
        raise Http404(f"{part_for(model).noun} not found")
    item.world = world
    return item


def _out(item: WorldItem) -> dict[str, Any]:
    return ItemOut.of(item, item_to_dict(item))


def add_item_routes(router: Router) -> None:
    for kind, model in KINDS.items():
        _add_kind(router, kind, model)
    router.add_router("", extras)


def _add_kind(router: Router, kind: str, model: type[WorldItem]) -> None:
    noun = part_for(model).noun
    name = kind.replace("-", "_")
    many = f"/worlds/{{int:world_id}}/{kind}"
    one = f"{many}/{{int:pk}}"
    opts: dict[str, Any] = {"tags": [kind]}

    @router.get(many, response=list[ItemOut], operation_id=f"list_{name}", **opts)
    def list_items(request: ApiRequest, world_id: int) -> list[dict[str, Any]]:
        world = get_draft_for_user(request.auth, world_id)
        return [_out(item) for item in model.objects.filter(world=world)]

    @router.post(many, response={201: ItemOut}, operation_id=f"create_{name}", **opts)
    def create(request: ApiRequest, world_id: int, payload: Body[dict[str, Any]]) -> Any:
        world = get_world_for_user(request.auth, world_id, write=True)
        return Status(201, _out(worlds.create_item(world, model, payload)))

    @router.get(one, response=ItemOut, operation_id=f"get_{name}", **opts)
    def get(request: ApiRequest, world_id: int, pk: int) -> dict[str, Any]:
        return _out(get_item(get_draft_for_user(request.auth, world_id), model, pk))

    @router.put(one, response=ItemOut, operation_id=f"replace_{name}", **opts)
    def replace(
        request: ApiRequest, world_id: int, pk: int, payload: Body[dict[str, Any]]
    ) -> dict[str, Any]:
        item = get_item(get_world_for_user(request.auth, world_id, write=True), model, pk)
        return _out(worlds.update_item(item, payload, partial=False))

    @router.patch(one, response=ItemOut, operation_id=f"update_{name}", **opts)
    def update(
        request: ApiRequest, world_id: int, pk: int, payload: Body[dict[str, Any]]
    ) -> dict[str, Any]:
        item = get_item(get_world_for_user(request.auth, world_id, write=True), model, pk)
        return _out(worlds.update_item(item, payload))

    @router.delete(one, response={204: None}, operation_id=f"delete_{name}", **opts)
    def delete(request: ApiRequest, world_id: int, pk: int) -> Any:
        item = get_item(get_world_for_user(request.auth, world_id, write=True), model, pk)
        worlds.delete_item(item)
        return Status(204, None)

    @router.post(f"{one}/move", response=list[ItemOut], operation_id=f"move_{name}", **opts)
    def move(request: ApiRequest, world_id: int, pk: int, payload: MoveIn) -> Any:
        world = get_world_for_user(request.auth, world_id, write=True)
        worlds.move_item(model, get_item(world, model, pk), payload.position)
        return [_out(item) for item in model.objects.filter(world=world)]

    @router.post(f"{one}/duplicate", response={201: ItemOut}, operation_id=f"copy_{name}", **opts)
    def duplicate(request: ApiRequest, world_id: int, pk: int) -> Any:
        item = get_item(get_world_for_user(request.auth, world_id, write=True), model, pk)
        return Status(201, _out(worlds.duplicate_item(item)))

    for view in (list_items, create, get, replace, update, delete, move, duplicate):
        view.__doc__ = f"{view.__name__.replace('_', ' ').capitalize()}: {noun} of a world."


extras = Router()


@extras.post(
    "/worlds/{int:world_id}/audio-tracks/{int:pk}/asset",
    response=ItemOut,
    tags=["audio-tracks"],
    summary="Upload a track's audio file (sets its url to @asset:<uid>)",
)
def upload_track_audio(
    request: ApiRequest, world_id: int, pk: int, file: File[UploadedFile]
) -> dict[str, Any]:
    world = get_world_for_user(request.auth, world_id, write=True)
    track = get_item(world, AudioTrack, pk)
    asset = store_audio_asset(world, file)
    return _out(worlds.update_item(track, {"url": asset.ref}))


@extras.get("/worlds/{int:world_id}/bgm-playlist", response=dict[str, Any] | None, tags=["bgm"])
def get_playlist(request: ApiRequest, world_id: int) -> dict[str, Any] | None:
    world = get_draft_for_user(request.auth, world_id)
    playlist = BGMPlaylist.objects.filter(world=world).first()
    return worlds.playlist_to_dict(playlist) if playlist else None


@extras.put("/worlds/{int:world_id}/bgm-playlist", response=dict[str, Any], tags=["bgm"])
def put_playlist(
    request: ApiRequest, world_id: int, payload: Body[dict[str, Any]]
) -> dict[str, Any]:
    world = get_world_for_user(request.auth, world_id, write=True)
    playlist = worlds.set_bgm_playlist(world, payload)
    assert playlist is not None
    return worlds.playlist_to_dict(playlist)


@extras.delete("/worlds/{int:world_id}/bgm-playlist", response={204: None}, tags=["bgm"])
def delete_playlist(request: ApiRequest, world_id: int) -> Any:
    worlds.set_bgm_playlist(get_world_for_user(request.auth, world_id, write=True), None)
    return Status(204, None)


ROOT = "/worlds/{int:world_id}/root-component"


@extras.get(ROOT, response=dict[str, Any] | None, tags=["custom-ui"])
def get_root_component(request: ApiRequest, world_id: int) -> dict[str, Any] | None:
    return worlds.root_component_dict(get_draft_for_user(request.auth, world_id))


@extras.put(ROOT, response=dict[str, Any] | None, tags=["custom-ui"])
def put_root_component(
    request: ApiRequest, world_id: int, payload: Body[dict[str, Any]]
) -> dict[str, Any] | None:
    """Set the custom UI's name and entry file (files are edited one by one below)."""
    world = get_world_for_user(request.auth, world_id, write=True)
    meta = {k: v for k, v in payload.items() if k != "files"}
    return worlds.root_component_dict(worlds.update_root_component(world, meta))


@extras.delete(ROOT, response={204: None}, tags=["custom-ui"])
def delete_root_component(request: ApiRequest, world_id: int) -> Any:
    worlds.update_root_component(get_world_for_user(request.auth, world_id, write=True), None)
    return Status(204, None)


def _file_out(file: RootComponentFile) -> dict[str, Any]:
    return {"pk": file.pk, "path": file.path, "source": file.source}


def _get_file(world: World, pk: int) -> RootComponentFile:
    file = world.root_files.filter(pk=pk).first()
    if file is None:
        raise Http404("file not found")
    file.world = world
    return file


@extras.get(f"{ROOT}/files", response=list[RootFileOut], tags=["custom-ui"])
def list_root_files(request: ApiRequest, world_id: int) -> list[dict[str, Any]]:
    world = get_draft_for_user(request.auth, world_id)
    return [_file_out(f) for f in world.root_files.all()]


@extras.post(f"{ROOT}/files", response={201: RootFileOut}, tags=["custom-ui"])
def save_root_file(request: ApiRequest, world_id: int, payload: RootFileIn) -> Any:
    """Create a file, or overwrite the file at that path."""
    world = get_world_for_user(request.auth, world_id, write=True)
    return Status(201, _file_out(worlds.save_root_file(world, payload.path, payload.source)))


@extras.get(f"{ROOT}/files/{{int:pk}}", response=RootFileOut, tags=["custom-ui"])
def get_root_file(request: ApiRequest, world_id: int, pk: int) -> dict[str, Any]:
    return _file_out(_get_file(get_draft_for_user(request.auth, world_id), pk))


@extras.put(f"{ROOT}/files/{{int:pk}}", response=RootFileOut, tags=["custom-ui"])
def put_root_file(request: ApiRequest, world_id: int, pk: int, payload: RootFileIn) -> Any:
    """Rename and/or rewrite a file."""
    world = get_world_for_user(request.auth, world_id, write=True)
    file = _get_file(world, pk)
    if payload.path != file.path:
        file = worlds.rename_root_file(file, payload.path)
    return _file_out(worlds.save_root_file(world, file.path, payload.source))


@extras.delete(f"{ROOT}/files/{{int:pk}}", response={204: None}, tags=["custom-ui"])
def delete_root_file(request: ApiRequest, world_id: int, pk: int) -> Any:
    world = get_world_for_user(request.auth, world_id, write=True)
    worlds.delete_root_file(_get_file(world, pk))
    return Status(204, None)
