"""Which entries go into the prompt and why (seed 004 "条目与分区", "关键词匹配", "条件").

``compile_lorebook(world)`` builds, once per world content hash, one keyword matcher for every
``chat-history`` entry; ``scan`` runs it over the recent chat and returns the entries that fire,
each with the reason the studio shows. An edited world is compiled incrementally from its
previous version (``Lorebook.with_entry``, ``derive``, ``compile_lorebook(world, parent=...)``):
only the changed entries and their new keywords are compiled.

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

The matcher (``engine.lorebook_matcher``): all keywords of one case group go into a trie, run as
a single lookahead regex, so the regex engine's cost grows with the text, not with the number of
keywords. Results are memoised per text (chat messages and entry contents recur turn after
turn), so a turn only pays for the text it has not seen. The compiled world and its cache are
``engine.lorebook_index``'s; ``Lorebook`` and ``compile_lorebook`` are importable from here.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from engine.conditions import check_conditions, describe_conditions
from engine.lorebook_index import CompiledEntry
from engine.lorebook_index import Hits as Hits
from engine.lorebook_index import Lorebook as Lorebook
from engine.lorebook_index import compile_lorebook as compile_lorebook
from engine.session import Message


class Fired(NamedTuple):
    """An entry that goes into the prompt, and why."""

    entry_id: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"entry": self.entry_id, "reason": self.reason}


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

    def enabled(c: CompiledEntry) -> bool:
        return toggles.get(c.id, c.enabled) if toggles else c.enabled

    def conditions_hold(c: CompiledEntry) -> bool:
        return check_conditions(c.entry.conditions, c.entry.condition_logic, state)

    def condition_reason(c: CompiledEntry) -> str:
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


def _secondary_ok(c: CompiledEntry, seen: Mapping[int, object]) -> bool:
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
    c: CompiledEntry, seen: Mapping[int, int | str], new: set[int]
) -> tuple[str, str]:
    """The entry whose content fired ``c`` and the keyword it supplied (a new one first)."""
    pairs = (*c.primary_pairs, *c.secondary_pairs)
    for kid, text in (*((k, t) for k, t in pairs if k in new), *pairs):
        source = seen.get(kid)
        if isinstance(source, str):
            return source, text
    return "?", pairs[0][1]
