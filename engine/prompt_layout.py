"""Where blocks go and what is kept: fired entries sorted into their steps, directives by
position, the oldest history dropped to fit ``maxContext``, and blocks merged into messages.

These are the rules of placement and trimming of seed 004 "提示词组装顺序", kept apart from the
text of the blocks themselves.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from engine.lorebook import Fired, Lorebook
from engine.prompt_blocks import PromptBlock
from engine.session import InjectedDirective, Message
from engine.world import Entry

_SECTION_RANK = {"system-presets": 0, "examples": 1, "chat-history": 2, "post-history": 3}
_POSITIONS = ("top", "before_char", "after_char", "auto", "depth", "bottom")


def place_entries(lorebook: Lorebook, fired: list[Fired]) -> dict[int, list[Entry]]:
    """Sort fired entries into steps 1, 4, 6, 10 and 13; ``fired`` is in world order and the
    sorts are stable, so equal positions keep world order."""
    places: dict[int, list[Entry]] = {1: [], 4: [], 6: [], 10: [], 13: []}
    entries = lorebook.world.entries_by_id
    dynamic_ids = lorebook.dynamic_ids
    for item in fired:
        entry = entries[item.entry_id]
        section = entry.section
        if section == "chat-history":
            places[6 if entry.depth is None else 10].append(entry)
        elif section == "post-history":
            places[13].append(entry)
        elif entry.conditions or entry.id in dynamic_ids:
            places[6].append(entry)
        else:
            places[1 if section == "system-presets" else 4].append(entry)
    for step, items in places.items():
        if step == 6:
            items.sort(key=lambda e: (_SECTION_RANK[e.section], e.position))
        else:
            items.sort(key=lambda e: e.position)
    return places


def directives_by_position(
    directives: Mapping[str, InjectedDirective],
) -> dict[str, list[InjectedDirective]]:
    grouped: dict[str, list[InjectedDirective]] = {p: [] for p in _POSITIONS}
    for directive in directives.values():
        position = directive.position if directive.position in grouped else "auto"
        grouped[position].append(directive)
    return grouped


def first_kept(costs: list[int], budget: int) -> int:
    """Index of the oldest history message to keep so that the history fits in ``budget``."""
    total = sum(costs)
    start = 0
    while total > budget and start < len(costs) - 1:
        total -= costs[start]
        start += 1
    return start


def history_blocks(
    history: Sequence[Message],
    costs: list[int],
    kept_from: int,
    injected: list[tuple[int, PromptBlock]],
) -> list[PromptBlock]:
    kept = len(history) - kept_from
    at: dict[int, list[PromptBlock]] = {}
    for depth, block in injected:
        at.setdefault(max(0, kept - 1 - depth), []).append(block)
    out: list[PromptBlock] = []
    for offset, index in enumerate(range(kept_from, len(history))):
        if at:
            out.extend(at.pop(offset, ()))
        message = history[index]
        label = f"message {index} ({message.role})"
        out.append(PromptBlock(10, label, message.role, message.content, costs[index]))
    for offset in sorted(at):
        out.extend(at[offset])
    return out


def merge_blocks(blocks: list[PromptBlock], above: int) -> tuple[list[Message], int]:
    """Messages from blocks, merging adjacent system blocks of one step (not in the history)."""
    top = _merge_runs(blocks[:above])
    return top + _merge_runs(blocks[above:]), len(top)


def _merge_runs(blocks: list[PromptBlock]) -> list[Message]:
    messages: list[Message] = []
    for key, run in itertools.groupby(blocks, _merge_key):
        if key is None:
            messages.extend(Message(b.role, b.content) for b in run)
        else:
            messages.append(Message("system", "\n\n".join(b.content for b in run)))
    return messages


def _merge_key(block: PromptBlock) -> int | None:
    return block.step if block.role == "system" and block.step != 10 else None
