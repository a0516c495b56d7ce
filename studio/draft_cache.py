"""The draft's WorldDefinition and compiled lorebook, kept per process between previews
(issue 14 §2).

Building a 5,000-entry draft from its rows and compiling its keywords took about a second on
every preview. Here each process keeps, per world, the definition, its compiled lorebook and the
``World.updated`` stamp it was read at:

- A preview with nothing changed costs one query: the stamp, compared with the cached one. Every
  write to a draft bumps it (``studio.items.touch``, or ``World.save``'s ``auto_now``), so a
  cache whose stamp differs from the database is never served, whichever process wrote.
- An edit of one entry, variable or rule made in this process is patched into the cached
  definition from ``touch``, inside the writer's transaction: the world row is locked and its
  old stamp must still be the cached one (else another process wrote since, and the cache is
  dropped). The next preview derives the lorebook incrementally (``Lorebook.derive``).
- Anything else (reordering, folders, bulk writes, a rolled-back save) leaves the database
  stamp different from the cached one, and the next preview re-reads the rows, still compiling
  the lorebook incrementally from the previous one.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save

from engine.lorebook import Lorebook, compile_lorebook
from engine.lorebook_index import replace_parts
from engine.world import WorldDefinition, load_world, validate_part
from studio.items import touch_listeners
from studio.models import Entry, Rule, Variable, World, WorldItem
from studio.parts import PARTS, item_to_dict, part_for
from studio.worlds import world_to_dict

# The lists an edit is patched into; an edit of any other list re-reads the rows.
PATCHABLE: tuple[type[WorldItem], ...] = (Entry, Variable, Rule)
_MAX_WORLDS = 16  # each holds a definition and its compiled keywords


@dataclass(frozen=True)
class Draft:
    """One world's cached draft: what a preview needs, and the rows it was read from."""

    stamp: datetime
    definition: WorldDefinition
    order: dict[str, tuple[tuple[int, int], ...]]  # field → (pk, position) of each row, in order
    lorebook: Lorebook | None = None  # compiled on the first preview after a change
    parent: Lorebook | None = None  # the previous compilation, to derive it from


@dataclass(frozen=True)
class Change:
    """A row saved or deleted in this thread, waiting for its ``touch``. Only its id is kept:
    the patch reads the row as it is then, so a change noted without a ``touch`` (bulk code
    paths) can never put an old value back."""

    model: type[WorldItem]
    pk: int


_drafts: dict[int, Draft] = {}
_lock = threading.Lock()
_pending = threading.local()


def draft_world(world: World) -> tuple[WorldDefinition, Lorebook]:
    """The draft's definition and compiled lorebook, re-read only when the stamp moved."""
    stamp = World.objects.filter(pk=world.pk).values_list("updated", flat=True).first()
    with _lock:
        draft = _drafts.get(world.pk)
    if draft is None or draft.stamp != stamp:
        draft = _reload(world.pk, draft)
    if draft.lorebook is None:
        compiled = draft.parent.derive(draft.definition) if draft.parent else None
        draft = replace(draft, lorebook=compiled or compile_lorebook(draft.definition), parent=None)
        _store(world.pk, draft, expected=draft.stamp)
    assert draft.lorebook is not None
    return draft.definition, draft.lorebook


def current_definition(world: World) -> WorldDefinition | None:
    """The cached draft if it was read at ``world.updated`` (the stamp of this ``world`` object,
    as its request loaded it), else None; no query either way. For the editor's pickers, which
    would otherwise read 5,000 entry ids again on every keystroke's preview: they show the world
    as this request sees it, like the rows they would have read."""
    with _lock:
        draft = _drafts.get(world.pk)
    return draft.definition if draft is not None and draft.stamp == world.updated else None


def forget(world_pk: int | None = None) -> None:
    """Drop one world's cached draft, or all (tests; a process that wants its memory back)."""
    with _lock:
        if world_pk is None:
            _drafts.clear()
        else:
            _drafts.pop(world_pk, None)


def _reload(world_pk: int, previous: Draft | None) -> Draft:
    """Read the draft from its rows: the world row first, so its stamp is never newer than
    the rows read after it (a write in between makes the next preview read again)."""
    world = World.objects.get(pk=world_pk)
    rows = {part.alias: list(getattr(world, part.related).all()) for part in PARTS}
    definition = load_world(world_to_dict(world, rows))
    order = {
        part.field: tuple((row.pk, row.position) for row in rows[part.alias])
        for part in PARTS
        if part.model in PATCHABLE
    }
    parent = (previous.lorebook or previous.parent) if previous is not None else None
    draft = Draft(world.updated, definition, order, parent=parent)
    _store(world_pk, draft)
    return draft


def _store(world_pk: int, draft: Draft, expected: datetime | None = None) -> None:
    with _lock:
        current = _drafts.get(world_pk)
        if expected is not None and (current is None or current.stamp != expected):
            return  # someone replaced it meanwhile; theirs is at least as new
        _drafts[world_pk] = draft
        while len(_drafts) > _MAX_WORLDS:
            del _drafts[next(iter(_drafts))]


# --- patching an edit made in this process --------------------------------------------------


def _changes() -> dict[int, list[Change]]:
    found: dict[int, list[Change]] | None = getattr(_pending, "changes", None)
    if found is None:
        found = _pending.changes = {}
    return found


def _saved(sender: type[WorldItem], instance: WorldItem, **_: Any) -> None:
    _changes().setdefault(instance.world_id, []).append(Change(sender, instance.pk))


def _deleted(sender: type[WorldItem], instance: WorldItem, **_: Any) -> None:
    _changes().setdefault(instance.world_id, []).append(Change(sender, instance.pk))


def _touched(world: World, stamp: datetime) -> None:
    """``studio.items.touch`` is about to write ``stamp``: patch this world's cached draft with
    the rows this thread changed, or drop it when that cannot be done safely."""
    changes = _changes().pop(world.pk, [])
    with _lock:
        draft = _drafts.pop(world.pk, None)
    if draft is None or not changes or not transaction.get_connection().in_atomic_block:
        return
    locked = World.objects.select_for_update().filter(pk=world.pk)
    if locked.values_list("updated", flat=True).first() != draft.stamp:
        return  # another process wrote since this copy was read
    patched = _patched(draft, changes)
    if patched is not None:
        _store(world.pk, replace(patched, stamp=stamp))


def _patched(draft: Draft, changes: Sequence[Change]) -> Draft | None:
    """The draft with the changed rows applied as they now are in the database, or None when
    one of them cannot be placed."""
    changes = list(dict.fromkeys(changes))
    if any(change.model not in PATCHABLE for change in changes):
        return None
    current: dict[tuple[type[WorldItem], int], WorldItem] = {}
    for model in {change.model for change in changes}:
        pks = [change.pk for change in changes if change.model is model]
        current.update(((model, row.pk), row) for row in model.objects.filter(pk__in=pks))
    lists: dict[str, list[Any]] = {}
    order = dict(draft.order)
    for change in changes:
        field = change.model.definition_field
        items = lists.setdefault(field, list(getattr(draft.definition, field)))
        rows = list(order[field])
        if not _apply(change, current.get((change.model, change.pk)), items, rows):
            return None
        order[field] = tuple(rows)
    definition = replace_parts(draft.definition, **lists)
    return Draft(draft.stamp, definition, order, parent=draft.lorebook or draft.parent)


def _apply(
    change: Change, row: WorldItem | None, items: list[Any], rows: list[tuple[int, int]]
) -> bool:
    """Apply one change to a list and its (pk, position) rows; False when the row moved (or
    was inserted mid-list), which only a re-read can place."""
    index = next((i for i, (pk, _) in enumerate(rows) if pk == change.pk), None)
    if row is None:  # deleted (or saved, then deleted, in this transaction)
        if index is None:
            return False
        del items[index], rows[index]
        return True
    item = validate_part(part_for(change.model).schema, item_to_dict(row))
    if index is None:
        if rows and row.position <= rows[-1][1]:
            return False
        items.append(item)
        rows.append((row.pk, row.position))
        return True
    if rows[index][1] != row.position:
        return False
    items[index] = item
    return True


for _model in (part.model for part in PARTS):
    post_save.connect(_saved, sender=_model, dispatch_uid=f"draft_cache_save_{_model.__name__}")
    post_delete.connect(_deleted, sender=_model, dispatch_uid=f"draft_cache_del_{_model.__name__}")
if _touched not in touch_listeners:
    touch_listeners.append(_touched)
