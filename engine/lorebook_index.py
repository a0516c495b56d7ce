"""A world compiled for scanning (seed 004 "关键词匹配"): entry tables, keyword ids, memoised
hits, and the caches of ``compile_lorebook`` (per definition object, and per content hash for
published versions). An edited world is derived from its previous compilation (issue 14 §2):
``engine.lorebook_keywords`` keeps the keyword ids and matchers, ``engine.lorebook_tables`` the
per-entry tables, each updated for what changed.

Building the tables is separate from ``scan``, which reads them on every turn, so each can be
read on its own.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections import OrderedDict
from typing import Any

from engine.lorebook_keywords import KeywordTable
from engine.lorebook_tables import CompiledEntry as CompiledEntry
from engine.lorebook_tables import compile_entries, entry_tables, patched_tables
from engine.macros import character_name
from engine.world import Entry, SetEffect, ToggleEntryAction, WorldDefinition

_MEMO_SIZE = 10_000  # texts per lorebook; a 500-message chat and its fired entries fit
_CACHE_SIZE = 16
# (every keyword id found, the ids among them with a whole-word occurrence)
Hits = tuple[tuple[int, ...], tuple[int, ...]]
NO_HITS: Hits = ((), ())


class Lorebook:
    """A world compiled for scanning: keyword matcher, entry tables, defaults, ``{{char}}``.

    ``parent`` (the compilation of an earlier version of the same world) makes this an
    incremental compile: entries equal to the parent's keep their compiled form and keyword
    ids, and only keywords the parent did not know are compiled (``engine.lorebook_keywords``).
    The result scans exactly like a compilation from scratch.
    """

    def __init__(self, world: WorldDefinition, parent: Lorebook | None = None):
        self.world = world
        self.char_name = character_name(world)
        self.defaults: dict[str, Any] = {v.id: v.default_value for v in world.variables}
        self.dynamic_ids = _toggled_entry_ids(world)
        self.table: KeywordTable = KeywordTable(parent.table if parent is not None else None)
        self.entries, changed = compile_entries(world, self.table, parent)
        self.keywords = self.table.keywords
        self.always, self.condition_only, self.primary_of, self.secondary_of = (
            patched_tables(parent, self.entries, changed, len(self.keywords))
            if parent is not None and changed is not None
            else entry_tables(self.entries, len(self.keywords))
        )
        self.matchers = self.table.matchers()
        self._memo: dict[str, Hits] = {}
        self._memo_lock = threading.Lock()
        if parent is not None and self.matchers is parent.matchers:
            # Same keyword ids and matchers: what a text matched is still what it matches.
            self._memo, self._memo_lock = parent._memo, parent._memo_lock
        self._sources: dict[int, tuple[dict[int, str], dict[int, str]]] = {}
        # Other modules' per-world derived data (e.g. the prompt's static format text).
        self.derived: dict[str, Any] = {}

    def with_entry(self, entry: Entry) -> Lorebook:
        """This world with ``entry`` replacing the entry of the same id (appended when new),
        compiled incrementally; this lorebook is left as it was."""
        entries = list(self.world.entries)
        index = next((i for i, e in enumerate(entries) if e.id == entry.id), len(entries))
        entries[index : index + 1] = [entry]
        return self.derive(replace_parts(self.world, entries=entries))

    def without_entry(self, entry_id: str) -> Lorebook:
        """This world without the entry ``entry_id``, compiled incrementally."""
        entries = [e for e in self.world.entries if e.id != entry_id]
        return self.derive(replace_parts(self.world, entries=entries))

    def derive(self, world: WorldDefinition) -> Lorebook:
        """``world`` (a later version of this one) compiled incrementally from this lorebook and
        remembered, so ``compile_lorebook(world)`` finds it without hashing the world."""
        return _remember(Lorebook(world, self), None)

    def hits(self, text: str) -> Hits:
        """Keyword ids found in ``text``, and those with a whole-word occurrence (memoised)."""
        found = self._memo.get(text)
        if found is not None:
            return found
        seen: dict[int, bool] = {}
        for matcher in self.matchers:
            matcher.find(text, seen)
        found = (tuple(seen), tuple(k for k, whole in seen.items() if whole)) if seen else NO_HITS
        with self._memo_lock:
            if len(self._memo) >= _MEMO_SIZE:
                for stale in list(itertools.islice(self._memo, _MEMO_SIZE // 4)):
                    self._memo.pop(stale, None)
            self._memo[text] = found
        return found

    def content_sources(self, index: int) -> tuple[dict[int, str], dict[int, str]]:
        """For recursion: keyword ids in an entry's content → its id (all, whole-word)."""
        sources = self._sources.get(index)
        if sources is None:
            found, whole = self.hits(self.entries[index].entry.content)
            entry_id = self.entries[index].id
            sources = (dict.fromkeys(found, entry_id), dict.fromkeys(whole, entry_id))
            self._sources[index] = sources
        return sources

    def clear_memo(self) -> None:
        """Forget every memoised match (the benchmark's cold runs)."""
        with self._memo_lock:
            self._memo.clear()
            self._sources.clear()


_cache: OrderedDict[str, Lorebook] = OrderedDict()  # content hash → compiled world
# id(world) → compiled world, for every compilation still alive (the studio's draft cache holds
# its own; ``_recent`` keeps the last few alive): a definition object seen before costs no
# hashing at all. A lorebook holds its world, so the id is that world's while the entry lives.
_by_object: weakref.WeakValueDictionary[int, Lorebook] = weakref.WeakValueDictionary()
_recent: OrderedDict[int, Lorebook] = OrderedDict()
_cache_lock = threading.Lock()


def compile_lorebook(world: WorldDefinition, *, parent: WorldDefinition | None = None) -> Lorebook:
    """Compile ``world`` for scanning, or return the cached compilation of the same object or
    the same content.

    ``parent``: an earlier version of this world (the studio's draft before an edit); when its
    compilation is alive, ``world`` is compiled incrementally from it and is not hashed, so an
    edit costs what it changed. Without a parent (published versions), the cache is keyed by
    ``world.content_hash``: immutable content compiles once per process.
    """
    known = _known(world)
    if known is not None:
        return known
    base = _known(parent) if parent is not None else None
    if base is not None:
        return base.derive(world)
    key = world.content_hash
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
    return _remember(cached or Lorebook(world), key)


def _known(world: WorldDefinition) -> Lorebook | None:
    with _cache_lock:
        found = _by_object.get(id(world))
        if found is None or found.world is not world:
            return None
        _recent[id(world)] = found
        _recent.move_to_end(id(world))
    return found


def _remember(compiled: Lorebook, key: str | None) -> Lorebook:
    with _cache_lock:
        _by_object[id(compiled.world)] = compiled
        _recent[id(compiled.world)] = compiled
        _recent.move_to_end(id(compiled.world))
        while len(_recent) > _CACHE_SIZE:
            _recent.popitem(last=False)
        if key is not None:
            _cache[key] = compiled
            _cache.move_to_end(key)
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return compiled


def replace_parts(world: WorldDefinition, **parts: Any) -> WorldDefinition:
    """A copy of ``world`` with some lists replaced (``entries=[...]``), without re-validating
    the rest: the items are already validated models. The copy drops the cached indexes and
    hash the original computed (``model_copy`` would carry them over, stale)."""
    copy = world.model_copy(update=parts)
    for name in [k for k in copy.__dict__ if k not in type(world).model_fields]:
        del copy.__dict__[name]
    return copy


def _toggled_entry_ids(world: WorldDefinition) -> frozenset[str]:
    """Entries whose visibility rules or reactions can switch: their text is state-dependent."""
    ids: set[str] = set()
    for rule in world.rules:
        ids.update(a.entry_id for a in rule.actions if isinstance(a, ToggleEntryAction))
    for reaction in world.reactions or []:
        for effect in reaction.then:
            if isinstance(effect, SetEffect) and effect.path.startswith("@prompt.entry."):
                ids.add(effect.path.removeprefix("@prompt.entry."))
    return frozenset(ids)
