"""The studio's live tools on a draft: the prompt preview and the directive tester.

They run the engine exactly as a turn would (``engine.prompt.assemble_prompt``,
``engine.directives.parse_reply``). The preview may overlay the entry being typed in the editor
before it is saved, so the creator sees its effect as they type.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from engine.lorebook import compile_lorebook
from engine.lorebook_index import replace_parts
from engine.macros import MacroContext
from engine.prompt import STEP_NAMES, PromptBlock, PromptResult, assemble_prompt
from engine.session import Message, Persona, SessionState
from engine.world import (
    Entry,
    WorldDefinition,
    WorldValidationError,
    unknown_condition_variables,
    validate_part,
)
from studio.draft_cache import draft_world
from studio.models import World
from studio.preview import sample_state
from studio.scenes import ScenePreview

CACHE_STEP = 5


@dataclass
class DraftEntry:
    """An entry as typed in the editor: ``key`` is the saved id it replaces (None when new)."""

    key: str | None
    data: dict[str, Any]


@dataclass
class Preview:
    result: PromptResult
    state: SessionState
    reasons: dict[str, str]
    names: dict[str, str]
    split: int  # blocks before this index are above the cache breakpoint
    cached_tokens: int
    draft_errors: list[str] = field(default_factory=list)
    scene: ScenePreview | None = None  # worlds with a gameMaster block (issue 10 §3)

    @property
    def above(self) -> list[PromptBlock]:
        return self.result.blocks[: self.split]

    @property
    def below(self) -> list[PromptBlock]:
        return self.result.blocks[self.split :]


# The 13 steps of seed 004 "提示词组装顺序", as the studio labels them (translated).
STEP_LABELS = {
    1: _("System presets"),
    2: _("Active persona"),
    3: _("Static format"),
    4: _("Examples"),
    5: _("Cache breakpoint"),
    6: _("Triggered entries"),
    7: _("Start of chat"),
    8: _("Story summary"),
    9: _("Session memory"),
    10: _("Chat history"),
    11: _("Pending context"),
    12: _("Dynamic format"),
    13: _("Post-history"),
}


def step_name(step: int) -> str:
    return str(STEP_LABELS.get(step) or STEP_NAMES.get(step, str(step)))


def _with_draft(definition: WorldDefinition, draft: DraftEntry) -> WorldDefinition:
    """The definition with the typed entry in place of the saved one (appended when new).

    Only that entry is validated, with the checks ``load_world`` would make of it (its
    conditions' variables, a unique id); the rest is the cached, already valid draft, and its
    lorebook is derived from the cached one, so a keystroke compiles one entry's keywords.
    """
    entry = validate_part(Entry, {"id": draft.key or "draft-entry", **draft.data})
    entries = list(definition.entries)
    by_id = definition.entries_by_id  # cached on the draft: no scan of every entry per keystroke
    index = _position(entries, by_id.get(draft.key or ""))
    path = f"entries[{index}]."
    errors = unknown_condition_variables(entry.conditions, definition.variables_by_id, path)
    clash = by_id.get(entry.id)
    if clash is not None and entry.id != draft.key:
        first = _position(entries, clash)
        errors.append(f"{path}id: duplicate id '{entry.id}' (first used at entries[{first}])")
    if errors:
        raise WorldValidationError(errors)
    entries[index : index + 1] = [entry]
    world = replace_parts(definition, entries=entries)
    if entry.id == draft.key or (draft.key or "") not in by_id:
        world.__dict__["entries_by_id"] = {**by_id, entry.id: entry}  # same order as entries
    compile_lorebook(world, parent=definition)
    return world


def _position(entries: list[Entry], entry: Entry | None) -> int:
    """Where ``entry`` is (by identity: pydantic's ``==`` would compare every field), or the end."""
    return next((i for i, e in enumerate(entries) if e is entry), len(entries))


def draft_definition(world: World, draft: DraftEntry | None) -> tuple[WorldDefinition, list[str]]:
    """The draft's WorldDefinition, with the unsaved entry laid over it when it is valid."""
    definition, _lorebook = draft_world(world)
    if draft is None:
        return definition, []
    try:
        return _with_draft(definition, draft), []
    except WorldValidationError as exc:
        return definition, exc.errors


def preview_prompt(
    world: World,
    *,
    chat: list[Message],
    values: Mapping[str, Any],
    persona: Persona | None = None,
    draft: DraftEntry | None = None,
    memory: str = "",
) -> Preview:
    """Assemble the prompt for a sample chat, state and persona, as the next turn would;
    ``memory`` (a playtest's session memory) fills step 9 when the sample state has none."""
    definition, draft_errors = draft_definition(world, draft)
    state = sample_state(definition, values)
    if memory and not state.session_memory:
        state = state.model_copy(update={"session_memory": memory})
    context = MacroContext(
        turn=state.turn, now=timezone.now(), seed=0, rng=random.Random(0), persona=persona
    )
    result = assemble_prompt(definition, chat, state, persona=persona, context=context)
    split = sum(1 for block in result.blocks if block.step < CACHE_STEP)
    return Preview(
        result=result,
        state=state,
        reasons={f.entry_id: f.reason for f in result.fired},
        names=_names(definition, result),
        split=split,
        cached_tokens=sum(b.tokens for b in result.blocks[:split]),
        draft_errors=draft_errors,
    )


def _names(definition: WorldDefinition, result: PromptResult) -> dict[str, str]:
    """Display names of the fired entries (the only ones the preview names)."""
    by_id = definition.entries_by_id
    return {f.entry_id: by_id[f.entry_id].name or f.entry_id for f in result.fired}


def default_values(world: World) -> dict[str, Any]:
    """Every variable's default value, from the rows (the sample state the editor starts with)."""
    empty: dict[str, Any] = {"number": 0, "string": "", "boolean": False, "json": {}}
    return {
        key: empty[kind] if value is None else value
        for key, kind, value in world.variables.values_list("key", "type", "default_value")
    }


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@dataclass
class Tried:
    """What a pasted reply would do: clean text, state diff, audio cues, skipped directives."""

    text: str
    before: dict[str, Any]
    after: dict[str, Any]
    diff: list[tuple[str, Any, Any]]
    audio: list[str]
    skipped: list[tuple[str, str]]


def _slot(variable_id: str, path: Any) -> str:
    return ".".join([variable_id, *(str(p) for p in path or ())])


def _cue(cue: Any) -> str:
    data = cue.to_dict() if hasattr(cue, "to_dict") else dict(vars(cue))
    parts = [str(data.pop(k)) for k in ("trackId", "track_id", "action") if data.get(k)]
    parts += [f"{k}={v}" for k, v in data.items() if v not in (None, "", [], {})]
    return " ".join(parts)


def try_reply(world: World, *, reply: str, values: Mapping[str, Any]) -> Tried:
    """Parse a model reply against a sample state as a turn would, without saving anything."""
    from engine.directives import parse_reply

    definition, _lorebook = draft_world(world)
    before = sample_state(definition, values).values
    result = parse_reply(definition, reply, json.loads(json.dumps(before)))
    return Tried(
        text=result.text,
        before=before,
        after=dict(result.state),
        diff=[(_slot(c.variable_id, c.path), c.old, c.new) for c in result.changes],
        audio=[_cue(cue) for cue in result.audio],
        skipped=[(s.source, s.reason) for s in result.skipped],
    )
