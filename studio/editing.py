"""Editor verbs the per-item services do not cover: list order, presets and tag colours.

Each write validates through ``studio.worlds`` / ``studio.items`` (so through the engine's
models) and raises WorldValidationError with field paths on bad input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils.translation import gettext

from engine.world import WorldValidationError
from studio.assets import store_audio_asset
from studio.models import AudioTrack, Entry, RootComponentFile, World, WorldItem
from studio.presets import Preset
from studio.worlds import (
    create_item,
    move_item,
    rename_root_file,
    save_root_file,
    touch,
    update_world,
)

Direction = Literal["up", "down"]


def reorder_items(world: World, model: type[WorldItem], pks: Sequence[int]) -> None:
    """Put the world's ``model`` rows in the order of ``pks``; rows left out keep their turn after.

    Unknown primary keys raise WorldValidationError and nothing moves.
    """
    rows = {row.pk: row for row in model.objects.filter(world=world)}
    unknown = [pk for pk in pks if pk not in rows]
    if unknown:
        raise WorldValidationError([f"order: unknown item {unknown[0]}"])
    ordered = [rows[pk] for pk in dict.fromkeys(pks)]
    ordered += sorted(
        (row for pk, row in rows.items() if pk not in set(pks)),
        key=lambda r: (r.position, r.pk),
    )
    for position, row in enumerate(ordered):
        row.position = position
    with transaction.atomic():
        model.objects.bulk_update(ordered, ["position"])
        touch(world)


def move_by_one(model: type[WorldItem], item: WorldItem, direction: Direction) -> None:
    """Swap ``item`` with its neighbour above or below (the keyboard fallback of drag and drop)."""
    pks = list(model.objects.filter(world=item.world).values_list("pk", flat=True))
    index = pks.index(item.pk) + (-1 if direction == "up" else 1)
    if 0 <= index < len(pks):
        move_item(model, item, index)


def reorder_root_files(world: World, pks: Sequence[int]) -> None:
    """Order the custom UI's files (their order in ``rootComponent.files``)."""
    files = {f.pk: f for f in world.root_files.all()}
    if any(pk not in files for pk in pks):
        raise WorldValidationError(["order: unknown file"])
    ordered = [files[pk] for pk in dict.fromkeys(pks)]
    ordered += [f for pk, f in files.items() if pk not in set(pks)]
    for position, file in enumerate(ordered):
        file.position = position
    with transaction.atomic():
        RootComponentFile.objects.bulk_update(ordered, ["position"])
        touch(world)


def move_root_file(file: RootComponentFile, direction: Direction) -> None:
    pks = list(file.world.root_files.values_list("pk", flat=True))
    index = pks.index(file.pk)
    target = index + (-1 if direction == "up" else 1)
    if 0 <= target < len(pks):
        pks[index], pks[target] = pks[target], pks[index]
        reorder_root_files(file.world, pks)


def add_preset(world: World, preset: Preset) -> Entry:
    """Add one of the official presets as an entry; twice is refused (``id: already added``)."""
    if Entry.objects.filter(world=world, key=preset.entry_id).exists():
        message = gettext("the preset '%(name)s' is already in this world")
        raise WorldValidationError(["id: " + message % {"name": preset.title}])
    return create_item(world, Entry, preset.entry)


def set_tag_color(world: World, tag: str, color: str) -> World:
    """Add a custom tag (or recolour it) with a Tailwind colour class ``bg-<color>-500``."""
    tags = list(world.custom_tags)
    if tag not in tags:
        tags.append(tag)
    colors = {**world.custom_tag_colors, tag: f"bg-{color}-500"}
    return update_world(world, {"customTags": tags, "customTagColors": colors})


def remove_tag(world: World, tag: str) -> World:
    """Forget a custom tag and its colour; entries keep the tag text."""
    tags = [t for t in world.custom_tags if t != tag]
    colors = {k: v for k, v in world.custom_tag_colors.items() if k != tag}
    return update_world(world, {"customTags": tags, "customTagColors": colors})


def add_uploaded_track(
    world: World, upload: UploadedFile[bytes], *, name: str, kind: str
) -> AudioTrack:
    """Store an uploaded audio file and add a track playing it (``url = @asset:<uid>``).

    A file that is not audio or is too large raises WorldValidationError on ``file``.
    """
    with transaction.atomic():
        asset = store_audio_asset(world, upload)
        data = {"name": name or asset.original_name, "type": kind, "url": asset.ref}
        return create_item(world, AudioTrack, {**data, "loop": kind != "sfx"})


def update_root_file(file: RootComponentFile, path: str, source: str) -> RootComponentFile:
    """Rename (when ``path`` changed) and rewrite one custom UI file, both or neither."""
    with transaction.atomic():
        if path != file.path:
            rename_root_file(file, path)
        return save_root_file(file.world, file.path, source)


def move_tag(world: World, tag: str, direction: Direction) -> World:
    """Swap a custom tag with its neighbour (tags have no other order than the list's)."""
    tags = list(world.custom_tags)
    if tag not in tags:
        raise WorldValidationError(["tag: " + gettext("unknown tag '%(tag)s'") % {"tag": tag}])
    index = tags.index(tag)
    target = index + (-1 if direction == "up" else 1)
    if 0 <= target < len(tags):
        tags[index], tags[target] = tags[target], tags[index]
    return update_world(world, {"customTags": tags})


def duplicate_root_file(file: RootComponentFile) -> RootComponentFile:
    """Copy a custom UI file next to itself as ``<stem>-copy<suffix>`` (then -copy-2…)."""
    stem, dot, suffix = file.path.rpartition(".")
    if not dot or "/" in suffix:
        stem, dot, suffix = file.path, "", ""
    taken = set(file.world.root_files.values_list("path", flat=True))
    n, path = 1, f"{stem}-copy{dot}{suffix}"
    while path in taken:
        n += 1
        path = f"{stem}-copy-{n}{dot}{suffix}"
    return save_root_file(file.world, path, file.source)
