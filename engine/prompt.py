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
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.lorebook import Fired, Lorebook, compile_lorebook, scan
from engine.macros import MacroContext, expand_macros, format_persona, format_value, user_name
from engine.session import InjectedDirective, Message, Persona, SessionState
from engine.tokens import estimate_tokens
from engine.world import Entry, Variable, WorldDefinition

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
EXAMPLE_MARKER = "[Example Chat]"
START_MARKER = "[Start a new Chat]"
DIRECTIVE_SYNTAX = """<directive-syntax>
Write state changes as bracket directives at the end of your reply, using variable ids; the \
engine applies them and hides them from the player.
[id: set value] or [id: value] - replace the value (numbers plain, strings in "double quotes", \
true/false, JSON inline)
[id: +N] / [id: -N] / [id: *N] - add to, subtract from, multiply a number
[id: toggle] - flip a boolean
[id: append "text"] - add text to the end of a string
[id: merge {"key": "value"}] - shallow-merge into a JSON object
[id: push value] - append to a JSON array
[id: delete "key"] or [id: delete N] - remove a key or an array index
[id.path.to.field: op value] - change a nested field of a JSON variable
</directive-syntax>"""
AUDIO_SYNTAX = (
    "Control audio with [audio: track-id play], [audio: track-id stop], "
    "[audio: track-id crossfade seconds], [audio: track-id volume 0-1] and "
    "[audio: track-id play chain:next-track-id]."
)
_START = re.compile(r"<START>", re.IGNORECASE)
_SECTION_RANK = {"system-presets": 0, "examples": 1, "chat-history": 2, "post-history": 3}
_POSITIONS = ("top", "before_char", "after_char", "auto", "depth", "bottom")


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
    parts = _Assembly(lorebook, session, values, ctx, _place_entries(lorebook, fired))

    above, below, injected, after = parts.above(), parts.below(), parts.injected(), parts.after()
    fixed = sum(b.tokens for b in itertools.chain(above, below, after))
    fixed += sum(b.tokens for _, b in injected)
    costs = [estimate_tokens(m.content) for m in history]
    kept_from = _first_kept(costs, world.settings.max_context - fixed)
    blocks = above + below + _history_blocks(history, costs, kept_from, injected) + after
    messages, breakpoint = _merge(blocks, len(above))
    return PromptResult(
        messages=messages,
        breakpoint=breakpoint,
        fired=fired,
        dropped=list(range(kept_from)),
        tokens=sum(estimate_tokens(m.content) for m in messages),
        blocks=blocks,
    )


class _Assembly:
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
        self.directives = _directives_by_position(session.directives)
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
                _add_examples(blocks, step, entry, self.names, self.expand)
                continue
            block = self.entry_block(step, entry)
            if block is not None:
                blocks.append(block)

    def add_directives(self, blocks: list[PromptBlock], step: int, position: str) -> None:
        for directive in self.directives[position]:
            label = f"directive {directive.id} ({directive.position})"
            _add(blocks, step, label, "system", self.expand(directive.content))

    def above(self) -> list[PromptBlock]:
        """Steps 1-4: what only the world and the persona decide."""
        blocks: list[PromptBlock] = []
        self.add_entries(blocks, 1, self.places[1])
        persona_text = format_persona(self.ctx.persona)
        if persona_text:
            _add(blocks, 2, "persona", "system", f"<persona>\n{persona_text}\n</persona>")
        static: tuple[str, int | None] | None = self.lorebook.derived.get("static_format")
        if static is None:
            text = _static_format(self.world)
            static = (text, None if "{{" in text else estimate_tokens(text))
            self.lorebook.derived["static_format"] = static
        if static[1] is None:
            _add(blocks, 3, "static format", "system", self.expand(static[0]))
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
        _add(blocks, 7, "start of chat", "system", START_MARKER)
        summary = self.session.compaction_summary.strip()
        if summary:
            text = f"<story-summary>\n{summary}\n</story-summary>"
            _add(blocks, 8, "story summary", "system", text)
        memory = self.session.session_memory.strip()
        if memory:
            text = f"<session-memory>\n{memory}\n</session-memory>"
            _add(blocks, 9, "session memory", "system", text)
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
                out.append((directive.depth or 0, _block(10, label, "system", content)))
        return out

    def after(self) -> list[PromptBlock]:
        """Steps 11-13: auto directives, pending context, current state, post-history, bottom."""
        blocks: list[PromptBlock] = []
        self.add_directives(blocks, 11, "auto")
        for index, item in enumerate(self.session.pending_context):
            _add(blocks, 11, f"pending context {index}", item.role, self.expand(item.content))
        _add(blocks, 12, "dynamic format", "system", _dynamic_format(self.world, self.values))
        self.add_entries(blocks, 13, self.places[13])
        self.add_directives(blocks, 13, "bottom")
        return blocks


def parse_examples(text: str, user: str, char: str) -> list[list[tuple[str, str]]]:
    """Split example text on ``<START>`` into chats of (role, raw text) messages.

    Lines starting ``{{user}}:`` or ``<user name>:`` are the user's, ``{{char}}:`` or
    ``<character name>:`` the assistant's; any other line continues the message before it, or,
    before the first speaker, becomes a system note. Text without speakers is one system note.
    """
    prefixes = [("{{user}}:", "user"), ("{{char}}:", "assistant")]
    if user:
        prefixes.append((f"{user}:", "user"))
    if char:
        prefixes.append((f"{char}:", "assistant"))
    prefixes.sort(key=lambda p: -len(p[0]))
    chats: list[list[tuple[str, str]]] = []
    for chunk in _START.split(text):
        messages: list[tuple[str, str]] = []
        for line in chunk.splitlines():
            role, rest = _speaker(line, prefixes)
            if role is None:
                if messages:
                    messages[-1] = (messages[-1][0], messages[-1][1] + "\n" + line)
                elif line.strip():
                    messages.append(("system", line))
            elif messages and messages[-1][0] == role and role != "system":
                messages[-1] = (role, messages[-1][1] + "\n" + rest)
            else:
                messages.append((role, rest))
        messages = [(role, body.strip()) for role, body in messages if body.strip()]
        if messages:
            chats.append(messages)
    return chats


# --- placement ----------------------------------------------------------------------------


def _place_entries(lorebook: Lorebook, fired: list[Fired]) -> dict[int, list[Entry]]:
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


def _directives_by_position(
    directives: Mapping[str, InjectedDirective],
) -> dict[str, list[InjectedDirective]]:
    grouped: dict[str, list[InjectedDirective]] = {p: [] for p in _POSITIONS}
    for directive in directives.values():
        position = directive.position if directive.position in grouped else "auto"
        grouped[position].append(directive)
    return grouped


def _first_kept(costs: list[int], budget: int) -> int:
    """Index of the oldest history message to keep so that the history fits in ``budget``."""
    total = sum(costs)
    start = 0
    while total > budget and start < len(costs) - 1:
        total -= costs[start]
        start += 1
    return start


def _history_blocks(
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


def _merge(blocks: list[PromptBlock], above: int) -> tuple[list[Message], int]:
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


# --- blocks -------------------------------------------------------------------------------


def _block(
    step: int, label: str, role: str, content: str, entry_id: str | None = None
) -> PromptBlock:
    return PromptBlock(step, label, role, content, estimate_tokens(content), entry_id)


def _add(
    blocks: list[PromptBlock],
    step: int,
    label: str,
    role: str,
    content: str,
    entry_id: str | None = None,
) -> None:
    if content:
        blocks.append(_block(step, label, role, content, entry_id))


def _add_examples(
    blocks: list[PromptBlock],
    step: int,
    entry: Entry,
    names: tuple[str, str],
    expand: Callable[[str], str],
) -> None:
    label = _entry_label(entry)
    for chat in parse_examples(entry.content, *names):
        _add(blocks, step, label, "system", EXAMPLE_MARKER, entry.id)
        for role, text in chat:
            _add(blocks, step, label, role, expand(text), entry.id)


def _entry_label(entry: Entry) -> str:
    return entry.name or entry.id


def _speaker(line: str, prefixes: list[tuple[str, str]]) -> tuple[str | None, str]:
    stripped = line.lstrip()
    folded = stripped.lower()
    for prefix, role in prefixes:
        if folded.startswith(prefix.lower()):
            return role, stripped[len(prefix) :].strip()
    return None, line


def _static_format(world: WorldDefinition) -> str:
    parts: list[str] = []
    if world.variables:
        rules = "\n\n".join(_describe_variable(v) for v in world.variables)
        parts.append(f"<behavior-rules>\n{rules}\n</behavior-rules>")
        parts.append(DIRECTIVE_SYNTAX)
    if world.audio_tracks:
        tracks = "\n".join(
            f"- {t.id} ({t.type}){': ' + t.name if t.name else ''}" for t in world.audio_tracks
        )
        parts.append(f"<audio-tracks>\n{AUDIO_SYNTAX}\n{tracks}\n</audio-tracks>")
    return "\n\n".join(parts)


def _describe_variable(variable: Variable) -> str:
    kind: str = variable.type
    if kind == "number":
        low, high = variable.min, variable.max
        if low is not None and high is not None:
            kind += f", {format_value(low)} to {format_value(high)}"
        elif low is not None:
            kind += f", min {format_value(low)}"
        elif high is not None:
            kind += f", max {format_value(high)}"
    name = f" {variable.name}" if variable.name and variable.name != variable.id else ""
    head = f"[{variable.id}]{name} ({kind})"
    if variable.description.strip():
        head += f": {variable.description.strip()}"
    rules = variable.behavior_rules.strip()
    return f"{head}\n{rules}" if rules else head


def _dynamic_format(world: WorldDefinition, values: Mapping[str, Any]) -> str:
    if not world.variables:
        return ""
    lines = [
        f"{v.id}: {format_value(values.get(v.id), as_json=v.type == 'json')}"
        for v in world.variables
    ]
    return "<current-state>\n" + "\n".join(lines) + "\n</current-state>"


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
