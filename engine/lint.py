"""The world linter (issue 16 §1): what would break or never happen in a world, by JSON path.

``lint_world`` returns ``Finding``s. Errors are things that cannot work as written: a condition,
trigger or action naming a variable, entry, rule or track the world does not have, a variable
default outside its range, an empty greeting, a duplicate id, a broken ``gameMaster`` reference.
Warnings are things that work but never happen or cost money (``engine.lint_warnings``): entries
and rules that can never fire, variables nothing uses, unreachable conditional BGM, oversized
entries, a cache breakpoint that moves turn to turn.

What ``load_world`` already refuses is not checked twice: ``lint_source`` loads without the
reference checks and turns each load error into a finding, and the reference checks of
``engine.world.reference_errors`` (conditions, and the ``gameMaster`` block through
``engine.gm.lint``) are reported as findings with the same paths.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from engine.lint_refs import References
from engine.lint_text import text_warnings
from engine.lint_warnings import warning_findings
from engine.messages import Message, coded, say
from engine.world import (
    PlayAudioAction,
    SetEffect,
    ToggleEntryAction,
    ToggleRuleAction,
    WorldDefinition,
    WorldSource,
    WorldValidationError,
    export_world,
    load_world,
    reference_errors,
    unknown_condition_variables,
)

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem; ``path`` is a JSON path from the world's root (``entries[3].keywords``)."""

    severity: Severity
    path: str
    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {
            "severity": self.severity,
            "code": self.code,
            "path": self.path,
            "message": self.message,
        }

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    @property
    def said(self) -> Message:
        """The message as a code and parameters, for a reader in another language."""
        return coded(self.message)

    @property
    def hint(self) -> Message | None:
        """What to do about it, where the message itself does not say."""
        if self.code in _HINTED:
            return say(f"hint-{self.code}", name=self.said.params.get("name", ""))
        if self.code in ("invalid", "default-out-of-range", "duplicate-id", "empty-greeting"):
            return say("hint-fix-field")
        return None


# The finding codes naming a missing object: the hint says to pick one or create it.
_HINTED = frozenset({"unknown-variable", "unknown-entry", "unknown-rule", "unknown-track"})


def lint_world(world: WorldDefinition) -> list[Finding]:
    """Every error, then every warning, of ``world``; empty when all is well.

    A world built in code (interop, tests) is first re-validated from its JSON form, so what
    ``load_world`` would refuse (duplicate ids, defaults out of range) is found too.
    """
    try:
        load_world(export_world(world), check_references=False)
    except WorldValidationError as exc:
        return [load_finding(line) for line in exc.errors]
    return _lint_loaded(world)


def lint_source(source: WorldSource) -> list[Finding]:
    """Lint world JSON (text, a dict or a file path) that may not even load.

    What stops it loading comes back as error findings (nothing else is checked then); a world
    that loads gets every check of ``lint_world``.
    """
    try:
        world = load_world(source, check_references=False)
    except WorldValidationError as exc:
        return [load_finding(line) for line in exc.errors]
    return _lint_loaded(world)


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)


def load_finding(line: str) -> Finding:
    """A ``path: message`` line of WorldValidationError as an error finding."""
    path, _, message = line.partition(": ")
    if not message:
        path, message = "$", line
    if message.startswith("duplicate id"):
        code = "duplicate-id"
    elif path.endswith(".defaultValue") and message.startswith("must be between"):
        code = "default-out-of-range"
    else:
        code = "invalid"
    return Finding("error", path, code, message)


def _lint_loaded(world: WorldDefinition) -> list[Finding]:
    refs = References(world)
    errors = _reference_findings(world) + _error_findings(world, refs)
    found = warning_findings(world, refs) + text_warnings(world)
    warnings = [Finding("warning", *w) for w in found]
    return sorted(errors, key=_document_order) + sorted(warnings, key=_document_order)


_TOP_LEVEL = [f.alias or n for n, f in WorldDefinition.model_fields.items()]
_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def _document_order(finding: Finding) -> tuple[int, ...]:
    """Sort key of a path: the top-level key in schema order, then the list indexes (a stable
    sort keeps the checks' own order between fields of one item)."""
    key: list[int] = []
    for index, name in _TOKEN.findall(finding.path):
        if index:
            key.append(int(index))
        elif not key:
            key.append(_TOP_LEVEL.index(name) if name in _TOP_LEVEL else len(_TOP_LEVEL))
    return tuple(key)


def _reference_findings(world: WorldDefinition) -> list[Finding]:
    out = []
    for line in reference_errors(world):
        finding = load_finding(line)
        if finding.path.startswith("gameMaster"):
            code = "game-master"
        elif finding.message.startswith("unknown variable"):
            code = "unknown-variable"
        else:
            code = "reference"
        out.append(Finding("error", finding.path, code, finding.message))
    return out


def _error_findings(world: WorldDefinition, refs: References) -> list[Finding]:
    found: list[tuple[str, str, str]] = []
    found += _rule_errors(world, refs)
    found += _reaction_errors(world, refs)
    found += _audio_errors(world, refs)
    for index, entry in enumerate(world.entries):
        if entry.role == "greeting" and not entry.content.strip():
            found.append((f"entries[{index}].content", "empty-greeting", "the greeting is empty"))
    found += _duplicates("entryFolders", [f.id for f in world.entry_folders])
    found += _duplicates("components", [c.id for c in world.components])
    return [Finding("error", path, code, message) for path, code, message in found]


def _rule_errors(world: WorldDefinition, refs: References) -> list[tuple[str, str, str]]:
    out = []
    for index, rule in enumerate(world.rules):
        here = f"rules[{index}]"
        variable = getattr(rule.trigger, "variable_id", None)
        if variable is not None and variable not in refs.variables:
            out.append(_unknown(f"{here}.trigger.variableId", "variable", variable))
        for n, action in enumerate(rule.actions):
            path = f"{here}.actions[{n}]"
            if action.type == "modify-variable" and refs.target(action.variable_id) is None:
                out.append(_unknown(f"{path}.variableId", "variable", action.variable_id))
            elif isinstance(action, ToggleEntryAction) and action.entry_id not in refs.entries:
                out.append(_unknown(f"{path}.entryId", "entry", action.entry_id))
            elif isinstance(action, ToggleRuleAction) and action.rule_id not in refs.rules:
                out.append(_unknown(f"{path}.ruleId", "rule", action.rule_id))
            elif isinstance(action, PlayAudioAction) and not refs.is_track(action.track_id):
                out.append(_unknown(f"{path}.trackId", "track", action.track_id))
    return out


def _reaction_errors(world: WorldDefinition, refs: References) -> list[tuple[str, str, str]]:
    out = []
    for index, reaction in enumerate(world.reactions or []):
        here = f"reactions[{index}]"
        for line in unknown_condition_variables(reaction.conditions, refs.variables, f"{here}."):
            path, _, message = line.partition(": ")
            out.append((path, "unknown-variable", message))
        for n, effect in enumerate(reaction.then):
            path = f"{here}.then[{n}]"
            if isinstance(effect, SetEffect):
                out += _set_errors(path, effect, refs)
            elif effect.event.get("type") == "rule:fire":
                rule_id = effect.event.get("ruleId")
                if isinstance(rule_id, str) and rule_id not in refs.rules:
                    out.append(_unknown(f"{path}.event.ruleId", "rule", rule_id))
    return out


def _set_errors(path: str, effect: SetEffect, refs: References) -> list[tuple[str, str, str]]:
    target = effect.path
    if not target.startswith("@"):
        if refs.target(target) is None:
            return [_unknown(f"{path}.path", "variable", target.partition(".")[0])]
        return []
    for prefix, known, what in (
        ("@prompt.entry.", refs.entries, "entry"),
        ("@rules.disabled.", refs.rules, "rule"),
    ):
        name = target.removeprefix(prefix)
        if target.startswith(prefix) and name not in known:
            return [_unknown(f"{path}.path", what, name)]
    if target in ("@audio.bgm", "@audio.sfx", "@audio.ambient", "@audio.stop"):
        value = effect.value
        track = value.get("trackId") if isinstance(value, Mapping) else value
        if isinstance(track, str) and track not in ("", "all") and not refs.is_track(track):
            return [_unknown(f"{path}.value", "track", track)]
    return []


def _audio_errors(world: WorldDefinition, refs: References) -> list[tuple[str, str, str]]:
    out = []
    for index, bgm in enumerate(world.conditional_bgm):
        if not refs.is_track(bgm.target_track_id):
            path = f"conditionalBGM[{index}].targetTrackId"
            out.append(_unknown(path, "track", bgm.target_track_id))
    playlist = world.bgm_playlist
    for index, track in enumerate(playlist.tracks if playlist else []):
        if not refs.is_track(track):
            out.append(_unknown(f"bgmPlaylist.tracks[{index}]", "track", track))
    return out


def _unknown(path: str, what: str, name: str) -> tuple[str, str, str]:
    return path, f"unknown-{what}", f"unknown {what} '{name}'"


def _duplicates(key: str, ids: list[str]) -> list[tuple[str, str, str]]:
    seen: dict[str, int] = {}
    out = []
    for index, value in enumerate(ids):
        if value in seen:
            message = f"duplicate id '{value}' (first used at {key}[{seen[value]}])"
            out.append((f"{key}[{index}].id", "duplicate-id", message))
        seen.setdefault(value, index)
    return out
