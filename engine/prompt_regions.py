"""The blocks of one prompt, region by region (seed 004 "提示词组装顺序"): above the breakpoint
(steps 1-4), below it (6-9), injected into the history (10) and after it (11-13), as
``engine.prompt``'s docstring orders them.

``Assembly`` holds what every region reads (the compiled lorebook, the values, the macro
context, where each fired entry goes) so ``assemble_prompt`` stays a short recipe.
"""

from __future__ import annotations

from typing import Any

from engine.lorebook import Lorebook
from engine.macros import MacroContext, expand_macros, format_persona, user_name
from engine.prompt_blocks import PromptBlock, add_block, make_block
from engine.prompt_examples import add_examples
from engine.prompt_formats import dynamic_format, static_format
from engine.prompt_layout import directives_by_position
from engine.session import SessionState
from engine.tokens import estimate_tokens
from engine.world import Entry

START_MARKER = "[Start a new Chat]"


class Assembly:
    """The blocks of one prompt, region by region."""

    def __init__(
        self,
        lorebook: Lorebook,
        session: SessionState,
        values: dict[str, Any],
        ctx: MacroContext,
        places: dict[int, list[Entry]],
    ):
        self.lorebook = lorebook
        self.world = lorebook.world
        self.session = session
        self.values = values
        self.ctx = ctx
        self.places = places
        self.directives = directives_by_position(session.directives)
        self.names = (user_name(self.world, ctx), ctx.char or lorebook.char_name)
        # macro-free entry text never changes: keep it, with its token count, per world
        self.plain: dict[str, tuple[str, int]] = lorebook.derived.setdefault("plain_entries", {})

    def expand(self, text: str) -> str:
        if "{{" not in text:
            return text.strip()
        return expand_macros(self.world, text, self.values, self.ctx).strip()

    def entry_block(self, step: int, entry: Entry) -> PromptBlock | None:
        known = self.plain.get(entry.id)
        if known is None:
            if "{{" in entry.content:
                text = self.expand(entry.content)
                known = (text, estimate_tokens(text))
            else:
                text = entry.content.strip()
                known = self.plain[entry.id] = (text, estimate_tokens(text))
        if not known[0]:
            return None
        return PromptBlock(step, entry.name or entry.id, entry.api_role, *known, entry.id)

    def add_entries(self, blocks: list[PromptBlock], step: int, entries: list[Entry]) -> None:
        for entry in entries:
            if entry.section == "examples":
                add_examples(blocks, step, entry, self.names, self.expand)
                continue
            block = self.entry_block(step, entry)
            if block is not None:
                blocks.append(block)

    def add_directives(self, blocks: list[PromptBlock], step: int, position: str) -> None:
        for directive in self.directives[position]:
            label = f"directive {directive.id} ({directive.position})"
            add_block(blocks, step, label, "system", self.expand(directive.content))

    def above(self) -> list[PromptBlock]:
        """Steps 1-4: what only the world and the persona decide."""
        blocks: list[PromptBlock] = []
        self.add_entries(blocks, 1, self.places[1])
        persona_text = format_persona(self.ctx.persona)
        if persona_text:
            add_block(blocks, 2, "persona", "system", f"<persona>\n{persona_text}\n</persona>")
        static: tuple[str, int | None] | None = self.lorebook.derived.get("static_format")
        if static is None:
            text = static_format(self.world)
            static = (text, None if "{{" in text else estimate_tokens(text))
            self.lorebook.derived["static_format"] = static
        if static[1] is None:
            add_block(blocks, 3, "static format", "system", self.expand(static[0]))
        elif static[0]:
            blocks.append(PromptBlock(3, "static format", "system", static[0], static[1]))
        self.add_entries(blocks, 4, self.places[4])
        return blocks

    def below(self) -> list[PromptBlock]:
        """Steps 6-9: triggered entries between the top/before/after directives, summaries."""
        blocks: list[PromptBlock] = []
        self.add_directives(blocks, 6, "top")
        self.add_directives(blocks, 6, "before_char")
        self.add_entries(blocks, 6, self.places[6])
        self.add_directives(blocks, 6, "after_char")
        add_block(blocks, 7, "start of chat", "system", START_MARKER)
        summary = self.session.compaction_summary.strip()
        if summary:
            text = f"<story-summary>\n{summary}\n</story-summary>"
            add_block(blocks, 8, "story summary", "system", text)
        memory = self.session.session_memory.strip()
        if memory:
            text = f"<session-memory>\n{memory}\n</session-memory>"
            add_block(blocks, 9, "session memory", "system", text)
        return blocks

    def injected(self) -> list[tuple[int, PromptBlock]]:
        """Step 10's depth-injected entries and directives, with their depth."""
        out: list[tuple[int, PromptBlock]] = []
        for entry in self.places[10]:
            block = self.entry_block(10, entry)
            if block is not None:
                out.append((entry.depth or 0, block))
        for directive in self.directives["depth"]:
            content = self.expand(directive.content)
            if content:
                label = f"directive {directive.id} (depth)"
                out.append((directive.depth or 0, make_block(10, label, "system", content)))
        return out

    def after(self) -> list[PromptBlock]:
        """Steps 11-13: auto directives, pending context, current state, post-history, bottom."""
        blocks: list[PromptBlock] = []
        self.add_directives(blocks, 11, "auto")
        for index, item in enumerate(self.session.pending_context):
            add_block(blocks, 11, f"pending context {index}", item.role, self.expand(item.content))
        add_block(blocks, 12, "dynamic format", "system", dynamic_format(self.world, self.values))
        self.add_entries(blocks, 13, self.places[13])
        self.add_directives(blocks, 13, "bottom")
        return blocks
