"""Verbs on the lists of a draft: entries, variables, rules, reactions, tracks, folders…

Each write validates the item through its engine model (``engine.world.Entry`` etc.) and raises
WorldValidationError with paths relative to the item (``section: must be one of …``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext

from engine import world as ew
from engine.world import WorldValidationError
from studio.models import Entry, EntryFolder, Rule, Variable, World, WorldItem
from studio.parts import Part, item_to_dict, part_for, row_values

ItemT = TypeVar("ItemT", bound=WorldItem)


# Told (world, new ``updated``) just before ``touch`` writes it, inside the writer's transaction:
# ``studio.draft_cache`` patches its copy of the draft there instead of re-reading every row.
touch_listeners: list[Callable[[World, datetime], None]] = []


def touch(world: World) -> None:
    """Bump ``updated`` after a change to one of the world's rows."""
    now = timezone.now()
    for listener in touch_listeners:
        listener(world, now)
    World.objects.filter(pk=world.pk).update(updated=now)


def suggest_key(world: World, model: type[WorldItem], name: str = "") -> str:
    """A kebab-case id, unused in the world, made from ``name`` (or the noun)."""
    base = slugify(name) or slugify(part_for(model).noun)
    base = re.sub(r"[^a-z0-9-]", "", base.replace("_", "-")).strip("-") or "item"
    base = re.sub(r"-{2,}", "-", base)
    taken = set(model.objects.filter(world=world).values_list("key", flat=True))
    key, n = base, 2
    while key in taken:
        key, n = f"{base}-{n}", n + 1
    return key


def _validate(part: Part, data: Mapping[str, Any]) -> ew.Schema:
    return ew.validate_part(part.schema, data)


def _check_conditions(world: World, item: ew.Schema) -> None:
    """An entry's or rule's conditions name variables of the world, as `engine.world.load_world`
    requires at import: a typo would otherwise never match, silently."""
    if not isinstance(item, ew.Entry | ew.Rule) or not item.conditions:
        return
    known = dict.fromkeys(Variable.objects.filter(world=world).values_list("key", flat=True))
    errors = ew.unknown_condition_variables(item.conditions, known)
    if errors:
        raise WorldValidationError(errors)


def _check_unused(variable: Variable) -> None:
    """A variable that conditions name keeps its id: deleting or renaming it is refused."""
    users = []
    for key, model in (("entries", Entry), ("rules", Rule)):
        for index, row in enumerate(model.objects.filter(world=variable.world)):
            conditions = getattr(row, "conditions", None)
            conditions = conditions if isinstance(conditions, list) else []
            users += [
                f"{key}[{index}].conditions[{n}]"
                for n, condition in enumerate(conditions)
                if isinstance(condition, dict) and condition.get("variableId") == variable.key
            ]
    users += _game_master_users(variable)
    if users:
        raise WorldValidationError(
            [
                "id: "
                + gettext("'%(id)s' is used by %(users)s; change those conditions first")
                % {"id": variable.key, "users": ", ".join(users)}
            ]
        )


def _game_master_users(variable: Variable) -> list[str]:
    """The game-master clue requirements that name ``variable`` (kept whole in World.extra)."""
    block = variable.world.extra.get("gameMaster")
    clues = block.get("clues") if isinstance(block, dict) else None
    users = []
    for index, clue in enumerate(clues if isinstance(clues, list) else []):
        needs = clue.get("requires") if isinstance(clue, dict) else None
        users += [
            f"gameMaster.clues[{index}].requires[{n}]"
            for n, need in enumerate(needs if isinstance(needs, list) else [])
            if isinstance(need, dict) and need.get("variableId") == variable.key
        ]
    return users


def _check_unique(part: Part, world: World, key: str, exclude_pk: int | None = None) -> None:
    if not part.unique_keys:
        return
    others = part.model.objects.filter(world=world, key=key)
    if exclude_pk is not None:
        others = others.exclude(pk=exclude_pk)
    if others.exists():
        message = gettext("duplicate id '%(id)s' (another %(noun)s uses it)")
        raise WorldValidationError(["id: " + message % {"id": key, "noun": part.noun}])


def _next_position(model: type[WorldItem], world: World) -> int:
    last = (
        model.objects.filter(world=world)
        .order_by("-position")
        .values_list("position", flat=True)
        .first()
    )
    return 0 if last is None else last + 1


def create_item(world: World, model: type[ItemT], data: Mapping[str, Any]) -> ItemT:
    """Add an item at the end of its list; an empty ``id`` gets one made from the name."""
    part = part_for(model)
    data = dict(data)
    if not data.get("id"):
        data["id"] = suggest_key(world, model, str(data.get("name") or ""))
    item = _validate(part, data)
    _check_conditions(world, item)
    values = row_values(part, item)
    with transaction.atomic():
        _check_unique(part, world, values["key"])
        row = model(world=world, position=_next_position(model, world), **values)
        row.save()
        touch(world)
    return row


def update_item(item: ItemT, data: Mapping[str, Any], *, partial: bool = True) -> ItemT:
    """Change an item: ``partial`` merges ``data`` into it, otherwise ``data`` replaces it."""
    part = part_for(type(item))
    current = item_to_dict(item)
    merged = {**current, **data} if partial else {"id": current["id"], **data}
    validated = _validate(part, merged)
    _check_conditions(item.world, validated)
    values = row_values(part, validated)
    if isinstance(item, Variable) and values["key"] != item.key:
        _check_unused(item)
    with transaction.atomic():
        _check_unique(part, item.world, values["key"], exclude_pk=item.pk)
        old_key = item.key
        for column, value in values.items():
            setattr(item, column, value)
        item.save()
        if isinstance(item, EntryFolder) and old_key != item.key:
            _rename_folder(item.world, old_key, item.key)
        touch(item.world)
    return item


def delete_item(item: WorldItem) -> None:
    """Remove an item; deleting a folder moves its entries and subfolders to the top level.

    A variable that conditions still name is not deleted (WorldValidationError)."""
    if isinstance(item, Variable):
        _check_unused(item)
    with transaction.atomic():
        if isinstance(item, EntryFolder):
            siblings = EntryFolder.objects.filter(world=item.world).exclude(pk=item.pk)
            if not siblings.filter(key=item.key).exists():
                _rename_folder(item.world, item.key, None)
        item.delete()
        touch(item.world)


def _rename_folder(world: World, old: str, new: str | None) -> None:
    Entry.objects.filter(world=world, folder_id=old).update(folder_id=new)
    EntryFolder.objects.filter(world=world, parent_id=old).update(parent_id=new)


def duplicate_item(item: ItemT) -> ItemT:
    """Copy an item right after itself, with a fresh id (``<id>-copy``)."""
    model = type(item)
    part = part_for(model)
    data = item_to_dict(item)
    if part.unique_keys:
        data["id"] = suggest_key(item.world, model, f"{item.key}-copy")
    else:
        data["id"] = f"{item.key}-copy"
    values = row_values(part, _validate(part, data))
    with transaction.atomic():
        copy = model(world=item.world, position=item.position + 1, **values)
        model.objects.filter(world=item.world, position__gt=item.position).update(
            position=F("position") + 1
        )
        copy.save()
        touch(item.world)
    return copy


def move_item(model: type[WorldItem], obj: WorldItem, new_position: int) -> None:
    """Move ``obj`` to index ``new_position`` of its list (clamped) and renumber the list 0..n."""
    with transaction.atomic():
        rows = list(
            model.objects.select_for_update().filter(world=obj.world).order_by("position", "pk")
        )
        rows = [r for r in rows if r.pk != obj.pk]
        index = max(0, min(new_position, len(rows)))
        rows.insert(index, obj)
        changed = []
        for position, row in enumerate(rows):
            if row.position != position or row.pk == obj.pk:
                row.position = position
                changed.append(row)
        model.objects.bulk_update(changed, ["position"])
        touch(obj.world)
