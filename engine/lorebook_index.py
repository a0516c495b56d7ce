"""A world compiled for scanning (seed 004 "关键词匹配"): entry tables, keyword ids, memoised
hits, and the per-content-hash cache of ``compile_lorebook``.

Building the tables is separate from ``scan``, which reads them on every turn, so each can be
read on its own.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from engine.lorebook_matcher import Keyword, KeywordMatcher, is_word_char
from engine.macros import character_name
from engine.world import Entry, SetEffect, ToggleEntryAction, WorldDefinition

_MEMO_SIZE = 10_000  # texts per lorebook; a 500-message chat and its fired entries fit
_CACHE_SIZE = 16
# (every keyword id found, the ids among them with a whole-word occurrence)
Hits = tuple[tuple[int, ...], tuple[int, ...]]
NO_HITS: Hits = ((), ())


@dataclass(frozen=True, slots=True)
class CompiledEntry:
    """An entry with the fields the scan reads flattened out (it reads them thousands of times)."""

    index: int
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


class Lorebook:
    """A world compiled for scanning: keyword matcher, entry tables, defaults, ``{{char}}``."""

    def __init__(self, world: WorldDefinition):
        self.world = world
        self.char_name = character_name(world)
        self.defaults: dict[str, Any] = {v.id: v.default_value for v in world.variables}
        self.dynamic_ids = _toggled_entry_ids(world)
        self.entries: list[CompiledEntry] = []
        self.always: list[int] = []
        self.condition_only: list[int] = []
        self.keywords: list[Keyword] = []
        ci_ids: dict[str, int] = {}
        cs_ids: dict[str, int] = {}
        primary_of: list[list[int]] = []
        secondary_of: list[list[int]] = []

        def keyword_id(raw: str, case_sensitive: bool) -> int | None:
            text = " ".join(raw.split())
            if not text:
                return None
            ids = cs_ids if case_sensitive else ci_ids
            key = text if case_sensitive else text.lower()
            if key not in ids:
                ids[key] = len(self.keywords)
                self.keywords.append(Keyword(key, is_word_char(key[0]), is_word_char(key[-1])))
                primary_of.append([])
                secondary_of.append([])
            return ids[key]

        for index, entry in enumerate(world.entries):
            primary: list[tuple[int, str]] = []
            secondary: list[tuple[int, str]] = []
            if entry.role != "greeting" and entry.section == "chat-history":
                for raw in entry.keywords:
                    kid = keyword_id(raw, entry.case_sensitive)
                    if kid is not None and kid not in (p[0] for p in primary):
                        primary.append((kid, raw))
                        primary_of[kid].append(index)
                if primary:
                    for raw in entry.secondary_keywords:
                        kid = keyword_id(raw, entry.case_sensitive)
                        if kid is not None and kid not in (s[0] for s in secondary):
                            secondary.append((kid, raw))
                            secondary_of[kid].append(index)
                elif entry.conditions:
                    self.condition_only.append(index)
            elif entry.role != "greeting":
                self.always.append(index)
            self.entries.append(
                CompiledEntry(
                    index=index,
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
            )
        self.primary_of = [tuple(x) for x in primary_of]
        self.secondary_of = [tuple(x) for x in secondary_of]
        self.matchers = [
            KeywordMatcher(ids, self.keywords, case_sensitive)
            for ids, case_sensitive in ((ci_ids, False), (cs_ids, True))
            if ids
        ]
        self._memo: dict[str, Hits] = {}
        self._memo_lock = threading.Lock()
        self._sources: dict[int, tuple[dict[int, str], dict[int, str]]] = {}
        # Other modules' per-world derived data (e.g. the prompt's static format text).
        self.derived: dict[str, Any] = {}

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


_cache: OrderedDict[str, Lorebook] = OrderedDict()
_cache_lock = threading.Lock()


def compile_lorebook(world: WorldDefinition) -> Lorebook:
    """Compile ``world`` for scanning, or return the cached compilation of the same content."""
    key = world.content_hash
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    compiled = Lorebook(world)
    with _cache_lock:
        _cache[key] = compiled
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return compiled


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
