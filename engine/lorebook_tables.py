"""The per-entry tables of a compiled lorebook: each entry flattened for the scan, and which
entries each keyword id fires (issue 14 §2: updated in place of one edited entry).

A keystroke in the studio's entry editor changes one entry of thousands; rebuilding the
keyword → entries tables for all of them costs tens of milliseconds (and wakes the garbage
collector), so ``patched_tables`` copies the parent's tables and moves only the changed
entries' ids. Entries that moved (an insert or a delete mid-list) rebuild them whole.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.lorebook_keywords import KeywordTable
from engine.world import Entry, WorldDefinition

Tables = tuple[list[int], list[int], list[tuple[int, ...]], list[tuple[int, ...]]]


@dataclass(frozen=True, slots=True)
class CompiledEntry:
    """An entry with the fields the scan reads flattened out (it reads them thousands of times).

    It holds no position in the world, so an edit elsewhere (an insert, a delete) reuses it as is.
    """

    entry: Entry
    id: str
    enabled: bool
    whole: bool
    conditional: bool
    exclude: bool
    prevent: bool
    primary_pairs: tuple[tuple[int, str], ...]  # (keyword id, keyword as written)
    secondary_pairs: tuple[tuple[int, str], ...]
    secondary: tuple[int, ...]
    logic: str


class Compiled(Protocol):
    """What these functions read of the parent compilation (an `engine.lorebook_index.Lorebook`).

    A protocol rather than the class, so that the dependency runs one way: lorebook_index
    builds on this module, never the reverse.
    """

    @property
    def entries(self) -> Sequence[CompiledEntry]: ...
    @property
    def always(self) -> Sequence[int]: ...
    @property
    def condition_only(self) -> Sequence[int]: ...
    @property
    def primary_of(self) -> Sequence[tuple[int, ...]]: ...
    @property
    def secondary_of(self) -> Sequence[tuple[int, ...]]: ...


def compile_entries(
    world: WorldDefinition, table: KeywordTable, parent: Compiled | None
) -> tuple[list[CompiledEntry], list[int] | None]:
    """Every entry compiled, reusing the parent's compiled form of each unchanged entry; and
    the indices that differ from the parent's, or None when entries moved (or no parent)."""
    previous = parent.entries if parent is not None else []
    entries = world.entries
    if len(entries) < len(previous):
        return _compile_moved(entries, table, previous), None
    # The usual edit keeps every other entry object: find the few that differ by identity.
    pairs = enumerate(zip(entries, previous, strict=False))
    differ = [i for i, (e, c) in pairs if e is not c.entry]
    differ += range(len(previous), len(entries))
    out = list(previous)
    changed: list[int] | None = [] if parent is not None else None
    for index in differ:
        entry = entries[index]
        old = previous[index] if index < len(previous) else None
        if old is None or old.id != entry.id:
            if any(c.id == entry.id for c in previous):
                return _compile_moved(entries, table, previous), None
            old = None
        compiled = old if old is not None and old.entry == entry else _compile_entry(entry, table)
        if index < len(out):
            out[index] = compiled
        else:
            out.append(compiled)
        if changed is not None and compiled is not old:
            changed.append(index)
    return out, changed


def _compile_moved(
    entries: Sequence[Entry], table: KeywordTable, previous: Sequence[CompiledEntry]
) -> list[CompiledEntry]:
    """Entries that moved, were deleted or inserted: matched to the parent's by id."""
    by_id = {c.id: c for c in previous}
    out = []
    for entry in entries:
        old = by_id.get(entry.id)
        reuse = old is not None and (old.entry is entry or old.entry == entry)
        out.append(old if reuse and old is not None else _compile_entry(entry, table))
    return out


def _compile_entry(entry: Entry, table: KeywordTable) -> CompiledEntry:
    primary: list[tuple[int, str]] = []
    secondary: list[tuple[int, str]] = []
    if entry.role != "greeting" and entry.section == "chat-history":
        for raw in entry.keywords:
            kid = table.id_of(raw, entry.case_sensitive)
            if kid is not None and kid not in (p[0] for p in primary):
                primary.append((kid, raw))
        for raw in entry.secondary_keywords if primary else ():
            kid = table.id_of(raw, entry.case_sensitive)
            if kid is not None and kid not in (s[0] for s in secondary):
                secondary.append((kid, raw))
    return CompiledEntry(
        entry=entry,
        id=entry.id,
        enabled=entry.enabled,
        whole=entry.match_whole_words,
        conditional=bool(entry.conditions),
        exclude=entry.exclude_recursion,
        prevent=entry.prevent_recursion,
        logic=entry.secondary_keyword_logic,
        primary_pairs=tuple(primary),
        secondary_pairs=tuple(secondary),
        secondary=tuple(s[0] for s in secondary),
    )


def entry_tables(entries: list[CompiledEntry], keyword_count: int) -> Tables:
    """Which entries are always sent, fire on conditions only, or list each keyword id."""
    always: list[int] = []
    condition_only: list[int] = []
    primary_of: list[list[int]] = [[] for _ in range(keyword_count)]
    secondary_of: list[list[int]] = [[] for _ in range(keyword_count)]
    for index, c in enumerate(entries):
        entry = c.entry
        if entry.role == "greeting":
            continue
        if entry.section != "chat-history":
            always.append(index)
        elif c.primary_pairs:
            for kid, _ in c.primary_pairs:
                primary_of[kid].append(index)
            for kid in c.secondary:
                secondary_of[kid].append(index)
        elif entry.conditions:
            condition_only.append(index)
    return always, condition_only, [tuple(x) for x in primary_of], [tuple(x) for x in secondary_of]


def patched_tables(
    parent: Compiled, entries: Sequence[CompiledEntry], changed: Sequence[int], keyword_count: int
) -> Tables:
    """The parent's tables with the entries at ``changed`` indices replaced (or appended)."""
    always, condition_only = list(parent.always), list(parent.condition_only)
    grow = [()] * (keyword_count - len(parent.primary_of))
    primary_of: list[tuple[int, ...]] = [*parent.primary_of, *grow]
    secondary_of: list[tuple[int, ...]] = [*parent.secondary_of, *grow]
    for index in changed:
        if index < len(parent.entries):
            old = parent.entries[index]
            for kid, _ in old.primary_pairs:
                primary_of[kid] = tuple(i for i in primary_of[kid] if i != index)
            for kid in old.secondary:
                secondary_of[kid] = tuple(i for i in secondary_of[kid] if i != index)
            for listed in (always, condition_only):
                if index in listed:
                    listed.remove(index)
        _place(entries[index], index, always, condition_only, primary_of, secondary_of)
    return always, condition_only, primary_of, secondary_of


def _place(
    c: CompiledEntry,
    index: int,
    always: list[int],
    condition_only: list[int],
    primary_of: list[tuple[int, ...]],
    secondary_of: list[tuple[int, ...]],
) -> None:
    """File one entry into the tables, keeping each list in world order (as a full build)."""
    entry = c.entry
    if entry.role == "greeting":
        return
    if entry.section != "chat-history":
        bisect.insort(always, index)
    elif c.primary_pairs:
        for kid, _ in c.primary_pairs:
            primary_of[kid] = _inserted(primary_of[kid], index)
        for kid in c.secondary:
            secondary_of[kid] = _inserted(secondary_of[kid], index)
    elif entry.conditions:
        bisect.insort(condition_only, index)


def _inserted(indices: tuple[int, ...], index: int) -> tuple[int, ...]:
    at = bisect.bisect_left(indices, index)
    return (*indices[:at], index, *indices[at:])
