"""The ``PromptBlock``: one piece of the prompt with its step (seed 004 "提示词组装顺序"), role
and token count.

Every part of prompt assembly builds blocks, so the type and the two small constructors live here,
below all of them, where none has to import another.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from engine.tokens import estimate_tokens


@dataclass(slots=True)
class PromptBlock:
    """One piece of the prompt, for the studio's live preview."""

    step: int
    label: str
    role: str
    content: str
    tokens: int
    entry_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def make_block(
    step: int, label: str, role: str, content: str, entry_id: str | None = None
) -> PromptBlock:
    return PromptBlock(step, label, role, content, estimate_tokens(content), entry_id)


def add_block(
    blocks: list[PromptBlock],
    step: int,
    label: str,
    role: str,
    content: str,
    entry_id: str | None = None,
) -> None:
    if content:
        blocks.append(make_block(step, label, role, content, entry_id))
