"""Which entries go into the prompt and why (seed 004 "条目与分区", "关键词匹配", "条件").

``compile_lorebook(world)`` builds, once per world content hash, one keyword matcher for every
``chat-history`` entry; ``scan`` runs it over the recent chat and returns the entries that fire,
each with the reason the studio shows.

Semantics, as decided here:

- Sections ``system-presets``, ``examples`` and ``post-history`` are always sent; with
  conditions, only while the conditions hold. ``chat-history`` entries fire when a primary
  keyword matches the scanned text (and the secondary logic and the conditions agree), or, when
  they have no keywords but have conditions, whenever the conditions hold. A chat-history entry
  with neither never fires. ``greeting`` entries are the session's first message, never prompt
  text, so they never fire. Disabled entries never fire; ``entry_toggles`` override ``enabled``.
- The scanned text is the last ``scan_depth`` messages of both roles (default
  ``settings.lorebookScanDepth``; 0 scans nothing). Matching is on substrings, case-insensitive
  unless the entry is ``caseSensitive``; runs of whitespace count as one space on both sides, so
  ``"old mill"`` also matches ``"old\\nmill"``.
- ``matchWholeWords`` requires the characters just outside the match not to be word characters,
  and only at a keyword edge that is itself a word character of a script written with spaces.
  A keyword edge in a CJK-like script (Han, kana, hangul, Thai...) matches anywhere, so ``酒馆``
  matches inside ``去酒馆吧`` and ``Kai`` matches in ``Kai说``.
- Secondary keywords (same case and whole-word options as the entry): ``AND_ANY`` at least one
  matches, ``AND_ALL`` all match, ``NOT_ANY`` none matches, ``NOT_ALL`` not all match.
- Recursion: up to ``lorebookRecursionDepth`` more passes, each scanning the raw content of the
  chat-history entries fired by the previous pass. ``preventRecursion`` entries' content is not
  scanned; ``excludeRecursion`` entries can only fire from the chat. Secondary keywords may be
  satisfied by the chat or by recursed content.

The matcher: all keywords of one case group go into a trie, emitted as a single regular
expression wrapped in a lookahead, ``(?=(trie))``, and run with ``finditer``. The lookahead
tries every start position (so overlapping keywords are all found) and the greedy trie reports
the longest keyword starting there; the shorter keywords that are prefixes of it are added from
a table built at compile time. The regex engine's cost grows with the text, not with the number
of keywords. Results are memoised per text (chat messages and entry contents recur turn after
turn), so a turn only pays for the text it has not seen.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.conditions import check_conditions, describe_conditions
from engine.macros import character_name
from engine.session import Message
from engine.tokens import NO_SPACE_SCRIPTS
from engine.world import Entry, SetEffect, ToggleEntryAction, WorldDefinition

_WORD_CHAR = re.compile(rf"[^\W{NO_SPACE_SCRIPTS}]")
_MAX_TRIE_KEYWORD = 64  # longer keywords are searched one by one (keeps the regex shallow)
_MEMO_SIZE = 10_000  # texts per lorebook; a 500-message chat and its fired entries fit
_CACHE_SIZE = 16
# (every keyword id found, the ids among them with a whole-word occurrence)
Hits = tuple[tuple[int, ...], tuple[int, ...]]
_NO_HITS: Hits = ((), ())


class Fired(NamedTuple):
    """An entry that goes into the prompt, and why."""

    entry_id: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"entry": self.entry_id, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class _Keyword:
    text: str  # whitespace-normalised; lower-cased unless case-sensitive
    check_left: bool
    check_right: bool


@dataclass(frozen=True, slots=True)
class _CompiledEntry:
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


class _Matcher:
    """Every keyword of one case group; ``find`` maps keyword id → has a whole-word match."""

    def __init__(self, ids: dict[str, int], keywords: list[_Keyword], case_sensitive: bool):
        self.case_sensitive = case_sensitive
        self.keywords = keywords
        self.ids = ids
        short = {text: kid for text, kid in ids.items() if len(text) <= _MAX_TRIE_KEYWORD}
        self.long = [(text, kid) for text, kid in ids.items() if len(text) > _MAX_TRIE_KEYWORD]
        self.prefixes: dict[int, tuple[int, ...]] = {}
        self.regex: re.Pattern[str] | None = None
        if short:
            trie = _build_trie(short)
            self.prefixes = _prefix_table(trie, short)
            self.regex = _compile_uncached("(?=(" + _trie_pattern(trie) + "))")

    def normalise(self, text: str) -> str:
        text = " ".join(text.split())
        return text if self.case_sensitive else text.lower()

    def find(self, text: str, hits: dict[int, bool]) -> None:
        norm = self.normalise(text)
        keywords, ids, prefixes = self.keywords, self.ids, self.prefixes
        if self.regex is not None:
            for match in self.regex.finditer(norm):
                start = match.start()
                for kid in prefixes[ids[match.group(1)]]:
                    if not hits.get(kid):
                        kw = keywords[kid]
                        hits[kid] = _bounded(norm, start, start + len(kw.text), kw)
        for text_, kid in self.long:
            start = norm.find(text_)
            while start != -1 and not hits.get(kid):
                hits[kid] = _bounded(norm, start, start + len(text_), keywords[kid])
                start = norm.find(text_, start + 1)


class Lorebook:
    """A world compiled for scanning: keyword matcher, entry tables, defaults, ``{{char}}``."""

    def __init__(self, world: WorldDefinition):
        self.world = world
        self.char_name = character_name(world)
        self.defaults: dict[str, Any] = {v.id: v.default_value for v in world.variables}
        self.dynamic_ids = _toggled_entry_ids(world)
        self.entries: list[_CompiledEntry] = []
        self.always: list[int] = []
        self.condition_only: list[int] = []
        self.keywords: list[_Keyword] = []
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
                self.keywords.append(_Keyword(key, _is_word_char(key[0]), _is_word_char(key[-1])))
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
                _CompiledEntry(
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
            _Matcher(ids, self.keywords, case_sensitive)
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
        found = (tuple(seen), tuple(k for k, whole in seen.items() if whole)) if seen else _NO_HITS
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


def scan(
    lorebook: Lorebook,
    messages: Sequence[Message],
    values: Mapping[str, Any],
    entry_toggles: Mapping[str, bool] | None = None,
    scan_depth: int | None = None,
) -> list[Fired]:
    """List the entries that fire for this chat and state, in world order, each with its reason.

    Never raises on odd input: empty chats, unknown variables and empty keywords simply match
    nothing.
    """
    lb = lorebook
    entries = lb.entries
    depth = lb.world.settings.lorebook_scan_depth if scan_depth is None else scan_depth
    window = list(messages[-depth:]) if depth > 0 else []
    state = {**lb.defaults, **values}
    toggles = entry_toggles or {}
    fired: dict[int, str] = {}

    def enabled(c: _CompiledEntry) -> bool:
        return toggles.get(c.id, c.enabled) if toggles else c.enabled

    def conditions_hold(c: _CompiledEntry) -> bool:
        return check_conditions(c.entry.conditions, c.entry.condition_logic, state)

    def condition_reason(c: _CompiledEntry) -> str:
        described = describe_conditions(c.entry.conditions, c.entry.condition_logic, state)
        return "condition " + described

    for index in itertools.chain(lb.always, lb.condition_only):
        c = entries[index]
        if not enabled(c):
            continue
        if c.conditional:
            if conditions_hold(c):
                fired[index] = condition_reason(c)
        else:
            fired[index] = f"always ({c.entry.section})"

    # keyword id → where it was first seen: a message offset (-1 = latest) or an entry id.
    # Oldest to newest, so a later message overwrites: the offset kept is the most recent one.
    chat_any: dict[int, int] = {}
    chat_word: dict[int, int] = {}
    for offset, message in zip(range(-len(window), 0), window, strict=True):
        found, whole = lb.hits(message.content)
        if found:
            chat_any.update(dict.fromkeys(found, offset))
            if whole:
                chat_word.update(dict.fromkeys(whole, offset))

    frontier: list[int] = [i for i in lb.condition_only if i in fired]
    waiting: set[int] = set()
    candidates = set(itertools.chain.from_iterable(map(lb.primary_of.__getitem__, chat_any)))
    for index in sorted(candidates):
        c = entries[index]
        if not (toggles.get(c.id, c.enabled) if toggles else c.enabled):
            continue
        chat = chat_word if c.whole else chat_any
        best: tuple[int, str] | None = None
        for kid, text in c.primary_pairs:
            at = chat.get(kid)
            if at is not None and (best is None or at > best[0]):  # the most recent message
                best = (at, text)
        if best is None:
            continue
        if c.secondary and not _secondary_ok(c, chat):
            if c.logic in ("AND_ANY", "AND_ALL"):
                waiting.add(index)  # recursed content may still supply a secondary keyword
            continue
        if c.conditional and not conditions_hold(c):
            continue
        at, keyword = best
        reason = f'keyword "{keyword}" in message {at} ({window[at].role})'
        fired[index] = reason + ("; " + condition_reason(c) if c.conditional else "")
        frontier.append(index)

    seen_any: Mapping[int, int | str] = chat_any
    seen_word: Mapping[int, int | str] = chat_word
    for _ in range(lb.world.settings.lorebook_recursion_depth):
        # keyword → the first frontier entry (world order) whose content holds it
        from_any: dict[int, int | str] = {}
        from_word: dict[int, int | str] = {}
        for index in sorted(frontier, reverse=True):
            if not entries[index].prevent:
                any_source, word_source = lb.content_sources(index)
                from_any.update(any_source)
                from_word.update(word_source)
        new = (from_any.keys() - seen_any.keys()) | (from_word.keys() - seen_word.keys())
        seen_any = {**from_any, **seen_any}  # what the chat (or an earlier pass) saw wins
        seen_word = {**from_word, **seen_word}
        frontier = []
        # a new primary keyword, or a new secondary one for an entry that only lacked that
        candidates = set(itertools.chain.from_iterable(map(lb.primary_of.__getitem__, new)))
        candidates.update(
            waiting.intersection(
                itertools.chain.from_iterable(map(lb.secondary_of.__getitem__, new))
            )
        )
        for index in sorted(candidates):
            c = entries[index]
            if index in fired or c.exclude or not enabled(c):
                continue
            seen = seen_word if c.whole else seen_any
            if not any(kid in seen for kid, _ in c.primary_pairs):
                continue
            if c.secondary and not _secondary_ok(c, seen):
                if c.logic in ("AND_ANY", "AND_ALL"):
                    waiting.add(index)
                continue
            if c.conditional and not conditions_hold(c):
                continue
            source, keyword = _recursion_source(c, seen, new)
            reason = f'recursion from entry "{source}" (keyword "{keyword}")'
            fired[index] = reason + ("; " + condition_reason(c) if c.conditional else "")
            frontier.append(index)
        if not frontier:
            break

    return [Fired(entries[i].id, fired[i]) for i in sorted(fired)]


def _secondary_ok(c: _CompiledEntry, seen: Mapping[int, object]) -> bool:
    matched = [kid in seen for kid in c.secondary]
    logic = c.logic
    if logic == "AND_ANY":
        return any(matched)
    if logic == "AND_ALL":
        return all(matched)
    if logic == "NOT_ANY":
        return not any(matched)
    return not all(matched)  # NOT_ALL


def _recursion_source(
    c: _CompiledEntry, seen: Mapping[int, int | str], new: set[int]
) -> tuple[str, str]:
    """The entry whose content fired ``c`` and the keyword it supplied (a new one first)."""
    pairs = (*c.primary_pairs, *c.secondary_pairs)
    for kid, text in (*((k, t) for k, t in pairs if k in new), *pairs):
        source = seen.get(kid)
        if isinstance(source, str):
            return source, text
    return "?", pairs[0][1]


def _is_word_char(char: str) -> bool:
    return _WORD_CHAR.match(char) is not None


def _bounded(text: str, start: int, end: int, kw: _Keyword) -> bool:
    if kw.check_left and start > 0 and _WORD_CHAR.match(text, start - 1):
        return False
    return not (kw.check_right and end < len(text) and _WORD_CHAR.match(text, end))


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


# --- the trie regex -----------------------------------------------------------------------

_Trie = dict[str, Any]
_END = ""  # key of the terminal marker; never a character


def _build_trie(words: Iterable[str]) -> _Trie:
    root: _Trie = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[_END] = word
    return root


def _trie_pattern(node: _Trie) -> str:
    """A regex matching exactly the trie's words, preferring the longest at each position."""
    branches = [
        re.escape(char) + _trie_pattern(child) for char, child in sorted(node.items()) if char
    ]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if _END in node:
        return (body if len(branches) > 1 else "(?:" + body + ")") + "?"
    return body


def _prefix_table(trie: _Trie, ids: dict[str, int]) -> dict[int, tuple[int, ...]]:
    """For each word, itself and every shorter word that is a prefix of it."""
    table: dict[int, tuple[int, ...]] = {}
    for word, kid in ids.items():
        node = trie
        found: list[int] = []
        for char in word:
            node = node[char]
            if _END in node:
                found.append(ids[node[_END]])
        table[kid] = tuple(reversed(found))
    return table


def _compile_uncached(pattern: str) -> re.Pattern[str]:
    """Compile without entering ``re``'s module cache, which would keep every world's (large)
    pattern alive long after its lorebook left our own cache."""
    compiler = getattr(re, "_compiler", None)
    compile_fn = getattr(compiler, "compile", None)
    if callable(compile_fn):
        compiled = compile_fn(pattern, 0)
        if isinstance(compiled, re.Pattern):
            return compiled
    return re.compile(pattern)
