"""World rows ⇄ `engine.world.WorldDefinition`, import and export, and the draft's header.

Every write goes through the engine's pydantic models (``load_world`` for whole worlds,
``validate_part`` for one piece), so a bad value raises ``WorldValidationError`` with field
paths and nothing is saved. The per-item verbs (create, update, delete, duplicate, move) live in
``studio.items`` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone
from django.utils.translation import gettext

from engine import world as schema
from engine.world import WorldDefinition, WorldValidationError, export_world, load_world
from studio.items import (
    create_item,
    delete_item,
    duplicate_item,
    move_item,
    suggest_key,
    touch,
    update_item,
)
from studio.models import BGMPlaylist, RootComponentFile, World, new_uid
from studio.parts import PARTS, item_to_dict, row_values

# The header: top-level fields edited on the World row itself (JSON key → column).
HEADER_COLUMNS = {
    "name": "name",
    "description": "description",
    "author": "author",
    "language": "language",
    "editorMode": "editor_mode",
    "customTags": "custom_tags",
    "customTagColors": "custom_tag_colors",
    "customUI": "custom_ui",
}
# The gameMaster block has no rows of its own: the draft keeps it whole in ``World.extra``.
_KNOWN_TOP_LEVEL = {f.alias or n for n, f in WorldDefinition.model_fields.items()} - {"gameMaster"}


# --- whole worlds ------------------------------------------------------------------------


def world_to_dict(world: World, rows: Mapping[str, list[Any]] | None = None) -> dict[str, Any]:
    """The draft as raw world JSON, before validation; ``rows`` (part alias → its rows in
    order) when the caller already read them (``studio.draft_cache`` keeps their ids)."""
    data: dict[str, Any] = {k: v for k, v in world.extra.items() if k not in _KNOWN_TOP_LEVEL}
    data.update(id=world.uid, version=world.schema_version, settings=dict(world.settings))
    data.update({key: getattr(world, column) for key, column in HEADER_COLUMNS.items()})
    if data["language"] is None:
        del data["language"]
    for part in PARTS:
        items = rows[part.alias] if rows is not None else getattr(world, part.related).all()
        data[part.alias] = [item_to_dict(row) for row in items]
    if not data["reactions"] and world.extra.get("reactions", []) is None:
        data["reactions"] = None
    data["rootComponent"] = root_component_dict(world)
    playlist = BGMPlaylist.objects.filter(world=world).first()
    data["bgmPlaylist"] = playlist_to_dict(playlist) if playlist else None
    return data


def world_to_definition(world: World) -> WorldDefinition:
    """Build the engine's WorldDefinition from the draft rows."""
    return load_world(world_to_dict(world))


def export_world_json(world: World) -> dict[str, Any]:
    """The draft as schema 20.0.0 JSON, the same shape `engine.world.export_world` writes."""
    return export_world(world_to_definition(world))


def _definition_from(source: Mapping[str, Any] | WorldDefinition) -> WorldDefinition:
    # A WorldDefinition built in code (interop, tests) is re-checked: duplicate ids are only
    # caught on the JSON form.
    if isinstance(source, WorldDefinition):
        return load_world(export_world(source))
    return load_world(source)


def import_world(owner: User, source: Mapping[str, Any] | WorldDefinition) -> World:
    """Create a draft for ``owner`` from world JSON or a WorldDefinition.

    Invalid input raises WorldValidationError with every field path; nothing is created.
    """
    definition = _definition_from(source)
    with transaction.atomic():
        world = World(owner=owner, uid=definition.id or new_uid())
        _write_content(world, definition)
    return world


def replace_world_content(world: World, source: Mapping[str, Any] | WorldDefinition) -> World:
    """Replace everything in the draft (keeping its id, owner and versions) with ``source``."""
    definition = _definition_from(source)
    with transaction.atomic():
        for part in PARTS:
            part.model.objects.filter(world=world).delete()
        RootComponentFile.objects.filter(world=world).delete()
        BGMPlaylist.objects.filter(world=world).delete()
        _write_content(world, definition)
    return world


def _write_content(world: World, definition: WorldDefinition) -> None:
    data = export_world(definition)
    for key, column in HEADER_COLUMNS.items():
        setattr(world, column, data.get(key))
    world.schema_version = definition.version
    world.settings = data["settings"]
    world.extra = {k: v for k, v in data.items() if k not in _KNOWN_TOP_LEVEL}
    if definition.reactions is None:
        world.extra["reactions"] = None
    _set_root_meta(world, definition.root_component)
    world.save()
    for part in PARTS:
        items = getattr(definition, part.field) or []
        part.model.objects.bulk_create(
            part.model(world=world, position=i, **row_values(part, item))
            for i, item in enumerate(items)
        )
    if definition.root_component:
        RootComponentFile.objects.bulk_create(
            RootComponentFile(world=world, path=path, source=source, position=i)
            for i, (path, source) in enumerate(definition.root_component.files.items())
        )
    if definition.bgm_playlist:
        BGMPlaylist.objects.create(world=world, **_playlist_values(definition.bgm_playlist))


def create_world(owner: User, data: Mapping[str, Any]) -> World:
    """Create an empty draft from header fields (``name`` required)."""
    return import_world(owner, _validated_header({"name": "", **data}))


def update_world(world: World, data: Mapping[str, Any]) -> World:
    """Change header fields (name, description, author, language, editorMode, tags…)."""
    current = {key: getattr(world, column) for key, column in HEADER_COLUMNS.items()}
    header = _validated_header({**current, **data})
    for key, column in HEADER_COLUMNS.items():
        setattr(world, column, header.get(key))
    world.save()
    return world


def update_settings(world: World, data: Mapping[str, Any]) -> World:
    """Merge ``data`` into the generation settings (temperature, topP, maxTokens…)."""
    settings = schema.validate_part(schema.Settings, {**world.settings, **data})
    world.settings = export_world(WorldDefinition(name="x", settings=settings))["settings"]
    world.save(update_fields=["settings", "updated"])
    return world


def _validated_header(data: Mapping[str, Any]) -> dict[str, Any]:
    unknown = [f"{key}: unknown field" for key in data if key not in HEADER_COLUMNS]
    if unknown:
        raise WorldValidationError(unknown)
    header = {k: v for k, v in data.items() if k != "language" or v is not None}
    definition = schema.validate_part(WorldDefinition, header)
    exported = export_world(definition)
    return {key: exported.get(key) for key in HEADER_COLUMNS}


class WorldInUseError(Exception):
    """The world cannot be deleted: play sessions still run on its published versions."""


def delete_world(world: World) -> None:
    """Delete a draft with its versions; refused while sessions use one of the versions."""
    try:
        with transaction.atomic():
            world.delete()
    except ProtectedError:
        raise WorldInUseError(
            "players have sessions on this world's published versions; unpublish it instead"
        ) from None


def duplicate_world(owner: User, world: World) -> World:
    """Copy a draft into a new draft of ``owner`` with a fresh id."""
    data = world_to_dict(world)
    data.update(id=new_uid(), name=f"{world.name} (copy)"[:200])
    return import_world(owner, data)


# --- rootComponent and bgmPlaylist (single objects, not lists) -------------------------


def root_component_dict(world: World) -> dict[str, Any] | None:
    if not world.has_root_component:
        return None
    files = {f.path: f.source for f in world.root_files.all()}
    return {
        **world.root_component_extra,
        "id": world.root_component_key,
        "name": world.root_component_name,
        "entryFile": world.root_component_entry_file,
        "files": files,
        "updatedAt": world.root_component_updated_at,
    }


def _set_root_meta(world: World, root: schema.RootComponent | None) -> None:
    world.has_root_component = root is not None
    if root is None:
        world.root_component_extra = {}
        return
    data = root.model_dump(mode="json", by_alias=True)
    world.root_component_key = data.pop("id")
    world.root_component_name = data.pop("name")
    world.root_component_entry_file = data.pop("entryFile")
    world.root_component_updated_at = data.pop("updatedAt")
    data.pop("files")
    world.root_component_extra = data


def update_root_component(world: World, data: Mapping[str, Any] | None) -> World:
    """Set the custom UI's name and entry file (``None`` removes the UI and its files)."""
    with transaction.atomic():
        if data is None:
            RootComponentFile.objects.filter(world=world).delete()
            _set_root_meta(world, None)
        else:
            current = root_component_dict(world) or {"id": new_uid(), "files": {}}
            merged = {**current, **data, "updatedAt": _now_iso()}
            _set_root_meta(world, schema.validate_part(schema.RootComponent, merged))
        world.save()
    return world


def save_root_file(world: World, path: str, source: str) -> RootComponentFile:
    """Create or overwrite one file of the custom UI (turning the UI on if it was off)."""
    _check_path(path)
    with transaction.atomic():
        if not world.has_root_component:
            _set_root_meta(world, schema.RootComponent(id=new_uid()))
        world.root_component_updated_at = _now_iso()
        world.save()
        file, created = RootComponentFile.objects.get_or_create(
            world=world, path=path, defaults={"source": source, "position": _next_file(world)}
        )
        if not created:
            file.source = source
            file.save(update_fields=["source"])
    return file


def rename_root_file(file: RootComponentFile, new_path: str) -> RootComponentFile:
    _check_path(new_path)
    world = file.world
    if new_path != file.path and world.root_files.filter(path=new_path).exists():
        raise WorldValidationError(
            ["path: " + gettext("'%(path)s' already exists") % {"path": new_path}]
        )
    with transaction.atomic():
        if world.root_component_entry_file == file.path:
            world.root_component_entry_file = new_path
        world.root_component_updated_at = _now_iso()
        world.save()
        file.path = new_path
        file.save(update_fields=["path"])
    return file


def delete_root_file(file: RootComponentFile) -> None:
    world = file.world
    remaining = world.root_files.exclude(pk=file.pk)
    if world.root_component_entry_file == file.path and remaining.exists():
        raise WorldValidationError(
            [
                "entryFile: "
                + gettext("'%(path)s' is the entry file; choose another entry file first")
                % {"path": file.path}
            ]
        )
    with transaction.atomic():
        file.delete()
        world.root_component_updated_at = _now_iso()
        world.save()


def _check_path(path: str) -> None:
    parts = path.split("/")
    if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise WorldValidationError(
            ["path: " + gettext("'%(path)s' is not a relative file path") % {"path": path}]
        )


def _next_file(world: World) -> int:
    last = world.root_files.order_by("-position").values_list("position", flat=True).first()
    return 0 if last is None else last + 1


def _now_iso() -> str:
    return timezone.now().isoformat().replace("+00:00", "Z")


def playlist_to_dict(playlist: BGMPlaylist) -> dict[str, Any]:
    return {
        **playlist.extra,
        "tracks": playlist.tracks,
        "playMode": playlist.play_mode,
        "gapSeconds": playlist.gap_seconds,
        "autoPlay": playlist.auto_play,
        "waitForFirstMessage": playlist.wait_for_first_message,
    }


def _playlist_values(playlist: schema.BGMPlaylist) -> dict[str, Any]:
    data = playlist.model_dump(mode="json", by_alias=True)
    return {
        "tracks": data.pop("tracks"),
        "play_mode": data.pop("playMode"),
        "gap_seconds": data.pop("gapSeconds"),
        "auto_play": data.pop("autoPlay"),
        "wait_for_first_message": data.pop("waitForFirstMessage"),
        "extra": data,
    }


def set_bgm_playlist(world: World, data: Mapping[str, Any] | None) -> BGMPlaylist | None:
    """Create, replace or (with ``None``) remove the BGM playlist."""
    if data is None:
        BGMPlaylist.objects.filter(world=world).delete()
        touch(world)
        return None
    values = _playlist_values(schema.validate_part(schema.BGMPlaylist, data))
    playlist, _ = BGMPlaylist.objects.update_or_create(world=world, defaults=values)
    touch(world)
    return playlist


__all__ = [
    "PARTS",
    "WorldInUseError",
    "create_item",
    "create_world",
    "delete_item",
    "delete_root_file",
    "delete_world",
    "duplicate_item",
    "duplicate_world",
    "export_world_json",
    "import_world",
    "item_to_dict",
    "move_item",
    "rename_root_file",
    "replace_world_content",
    "save_root_file",
    "set_bgm_playlist",
    "suggest_key",
    "touch",
    "update_item",
    "update_root_component",
    "update_settings",
    "update_world",
    "world_to_definition",
    "world_to_dict",
]
