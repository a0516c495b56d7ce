"""Prompt assembly in the 13-step order of seed 004 "提示词组装顺序", with the cache breakpoint.

Steps, top to bottom (each ``PromptBlock`` carries its step number):

 1. ``system-presets`` entries without conditions, by ``position`` (then world order)
 2. the active persona, as a ``<persona>`` block
 3. the static format block: ``<behavior-rules>`` (every variable with its type, range,
    description and behaviour rules), ``<directive-syntax>``, ``<audio-tracks>``
 4. ``examples`` entries without conditions: each ``<START>`` block becomes an
    ``[Example Chat]`` marker and user/assistant messages (lines ``{{user}}:``/``{{char}}:`` or
    prefixed with the user's or the character's name; other lines continue the line before)
 5. the cache breakpoint: ``PromptResult.breakpoint`` is the number of messages above it
 6. state-dependent entries: keyword-triggered ``chat-history`` entries without ``depth``,
    system-presets and examples that have conditions or that a rule/reaction can toggle
 7. ``[Start a new Chat]``
 8. ``state.compaction_summary`` as ``<story-summary>`` (omitted when empty)
 9. ``state.session_memory`` as ``<session-memory>`` (omitted when empty)
10. the chat history, with triggered ``chat-history`` entries that have a ``depth`` d inserted
    before ``history[len - 1 - d]``: depth 0 sits immediately before the latest message (seed
    004), a depth reaching past the oldest message puts the entry at the top of the history
11. ``state.pending_context`` (one-shot context from rules, with its role)
12. the dynamic format block: ``<current-state>``, every variable's current value
13. ``post-history`` entries (with or without conditions), by position

Where rule-injected directives (``state.directives``) go, by ``position``; all are system
messages below the breakpoint, so injecting or removing one never invalidates the cache:

- ``top`` → the first blocks after the breakpoint (start of step 6)
- ``before_char`` → just before the triggered entries of step 6
- ``after_char`` → just after them (still step 6)
- ``auto`` → step 11, before the pending context
- ``depth`` → into the history at the directive's ``depth`` (0 when unset), after entries there
- ``bottom`` → after the post-history entries (step 13)
- anything else → as ``auto``

Every entry, directive and context text goes through ``expand_macros``; chat messages and the
persona do not. Each entry is sent with its ``apiRole``. Adjacent system blocks of the same step
merge into one message (never in the history, never across the breakpoint). Above the
breakpoint the text depends only on the world, the persona and the macros the creator put there,
so it is byte-identical turn after turn. When the estimate exceeds ``settings.maxContext``, the
oldest history messages are dropped (never the latest one, never a fixed block) and listed in
``dropped``.

This module holds the recipe and its inputs; the regions' blocks are ``engine.prompt_regions``',
placement, trimming and merging ``engine.prompt_layout``'s, the example chats
``engine.prompt_examples``' and the format texts ``engine.prompt_formats``'.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.lorebook import Fired, Lorebook, compile_lorebook, scan
from engine.macros import MacroContext
from engine.prompt_blocks import PromptBlock as PromptBlock
from engine.prompt_examples import EXAMPLE_MARKER as EXAMPLE_MARKER
from engine.prompt_examples import parse_examples as parse_examples
from engine.prompt_formats import AUDIO_SYNTAX as AUDIO_SYNTAX
from engine.prompt_formats import DIRECTIVE_SYNTAX as DIRECTIVE_SYNTAX
from engine.prompt_layout import first_kept, history_blocks, merge_blocks, place_entries
from engine.prompt_regions import START_MARKER as START_MARKER
from engine.prompt_regions import Assembly
from engine.session import Message, Persona, SessionState
from engine.tokens import estimate_tokens
from engine.world import WorldDefinition

STEP_NAMES = {
    1: "system presets",
    2: "persona",
    3: "static format",
    4: "examples",
    5: "cache breakpoint",
    6: "triggered entries",
    7: "start of chat",
    8: "story summary",
    9: "session memory",
    10: "chat history",
    11: "pending context",
    12: "dynamic format",
    13: "post-history",
}


@dataclass
class PromptResult:
    """The assembled messages, the cache breakpoint and how they came about."""

    messages: list[Message]
    breakpoint: int
    fired: list[Fired]
    dropped: list[int]
    tokens: int
    blocks: list[PromptBlock]

    def to_dict(self) -> dict[str, Any]:
        return {
            "messages": [m.to_dict() for m in self.messages],
            "breakpoint": self.breakpoint,
            "fired": [f.to_dict() for f in self.fired],
            "dropped": list(self.dropped),
            "tokens": self.tokens,
        }


def assemble_prompt(
    world: WorldDefinition,
    history: Sequence[Message],
    state: SessionState | Mapping[str, Any] | None = None,
    *,
    persona: Persona | None = None,
    context: MacroContext | None = None,
) -> PromptResult:
    """Assemble the prompt for the next AI reply.

    ``state`` is a SessionState, its JSON form, or a plain ``{variable: value}`` dict. Odd input
    never raises: unknown variables are ignored, failing macros stay literal.
    """
    lorebook = compile_lorebook(world)
    session = _session_state(state)
    values = {**lorebook.defaults, **session.values}
    ctx = _macro_context(lorebook, session, history, persona, context)
    fired = scan(lorebook, history, values, session.entry_toggles)
    parts = Assembly(lorebook, session, values, ctx, place_entries(lorebook, fired))

    above, below, injected, after = parts.above(), parts.below(), parts.injected(), parts.after()
    fixed = sum(b.tokens for b in itertools.chain(above, below, after))
    fixed += sum(b.tokens for _, b in injected)
    costs = [estimate_tokens(m.content) for m in history]
    kept_from = first_kept(costs, world.settings.max_context - fixed)
    blocks = above + below + history_blocks(history, costs, kept_from, injected) + after
    messages, breakpoint = merge_blocks(blocks, len(above))
    return PromptResult(
        messages=messages,
        breakpoint=breakpoint,
        fired=fired,
        dropped=list(range(kept_from)),
        tokens=sum(estimate_tokens(m.content) for m in messages),
        blocks=blocks,
    )


# --- inputs -------------------------------------------------------------------------------


def _session_state(state: SessionState | Mapping[str, Any] | None) -> SessionState:
    if state is None:
        return SessionState()
    if isinstance(state, SessionState):
        return state
    if isinstance(state.get("values"), dict) and set(state) <= set(SessionState.model_fields):
        return SessionState.model_validate(dict(state))
    return SessionState(values=dict(state))


def _macro_context(
    lorebook: Lorebook,
    session: SessionState,
    history: Sequence[Message],
    persona: Persona | None,
    context: MacroContext | None,
) -> MacroContext:
    ctx = context or MacroContext(turn=session.turn)
    updates: dict[str, Any] = {}
    if persona is not None:
        updates["persona"] = persona
    if not ctx.messages:
        updates["messages"] = list(history)
    if ctx.char is None:
        updates["char"] = lorebook.char_name
    if ctx.rng is None:
        updates["rng"] = random.Random(f"{ctx.seed or 0}:{ctx.turn}")
    return dataclasses.replace(ctx, **updates) if updates else ctx
