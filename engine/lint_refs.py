"""What a world refers to, gathered once for ``engine.lint``: ids, toggles, variable uses.

Reads and writes of variables are found the way the engine finds them: condition and trigger
``variableId``s, rule and reaction targets (by id or display name, ``engine.reactions``), the
``{{id}}`` macros of any text (and SillyTavern's ``{{getvar::id}}``/``{{setvar::id::…}}``, which
a creator may still mean), the bracket directives of any text (``engine.directives``) and, since
the custom UI is not parsed, any mention of the id in its source.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from engine.directives import extract_directives
from engine.reactions import split_target
from engine.world import (
    ModifyVariableAction,
    SetEffect,
    ToggleEntryAction,
    ToggleRuleAction,
    WorldDefinition,
)

STOP_ALL = "*"
MACRO = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_ST_VARIABLE_MACROS = ("getvar", "setvar", "addvar", "incvar", "decvar")
_SKIP_KEYS = frozenset({"variables", "rootComponent", "customUI"})


class References:
    """The ids of a world and who turns what on; built once per lint."""

    def __init__(self, world: WorldDefinition) -> None:
        self.world = world
        self.variables = world.variables_by_id
        self.entries = world.entries_by_id
        self.rules = {r.id for r in world.rules} | {r.id for r in world.reactions or []}
        self.tracks = world.tracks_by_id
        self.entries_enabled_by: set[str] = set()
        self.entries_toggled: set[str] = set()  # switched either way: state-dependent text
        self.rules_enabled_by: set[str] = set()
        self._toggles()

    def target(self, name: str) -> str | None:
        """The variable a rule or reaction target names (id, display name, dot path), or None."""
        variable_id, _path = split_target(self.world, name)
        return variable_id if variable_id in self.variables else None

    def is_track(self, track_id: str) -> bool:
        return track_id == STOP_ALL or track_id in self.tracks

    def _toggles(self) -> None:
        for rule in self.world.rules:
            for action in rule.actions:
                if isinstance(action, ToggleEntryAction):
                    self.entries_toggled.add(action.entry_id)
                    if action.enabled:
                        self.entries_enabled_by.add(action.entry_id)
                elif isinstance(action, ToggleRuleAction) and action.enabled:
                    self.rules_enabled_by.add(action.rule_id)
        for reaction in self.world.reactions or []:
            for effect in reaction.then:
                if not isinstance(effect, SetEffect):
                    continue
                path = effect.path
                if path.startswith("@prompt.entry."):
                    entry_id = path.removeprefix("@prompt.entry.")
                    self.entries_toggled.add(entry_id)
                    if effect.value is not False:
                        self.entries_enabled_by.add(entry_id)
                elif path.startswith("@rules.disabled.") and effect.value is not True:
                    self.rules_enabled_by.add(path.removeprefix("@rules.disabled."))

    # --- variable uses ----------------------------------------------------------------

    def used_variables(self) -> set[str]:
        """Every variable something reads or writes (see the module docstring)."""
        world = self.world
        used: set[str] = set()
        data: dict[str, Any] = world.model_dump(mode="json", by_alias=True)
        for key, value in data.items():
            if key in _SKIP_KEYS:
                continue
            used |= self._ids_in(value)
        for variable in world.variables:
            if variable.behavior_rules.strip():
                used.add(variable.id)  # the AI is told how to change it
            for text in (variable.description, variable.behavior_rules):
                used |= self._macro_ids(text) - {variable.id}
        for rule in world.rules:
            for action in rule.actions:
                if isinstance(action, ModifyVariableAction):
                    used.add(self.target(action.variable_id) or action.variable_id)
        for reaction in world.reactions or []:
            for effect in reaction.then:
                if isinstance(effect, SetEffect) and not effect.path.startswith("@"):
                    used.add(self.target(effect.path) or effect.path)
        used |= self._ui_mentions()
        return used

    def _ids_in(self, value: Any) -> set[str]:
        found: set[str] = set()
        for key, item in _walk(value):
            if key in ("variableId", "variable_id") and isinstance(item, str):
                found.add(item)
            elif isinstance(item, str):
                found |= self._macro_ids(item) | self.directive_ids(item)
        return found

    def _macro_ids(self, text: str) -> set[str]:
        if "{{" not in text:
            return set()
        found = set()
        for body in MACRO.findall(text):
            name, *args = [part.strip() for part in body.split("::")]
            if name in self.variables and not args:
                found.add(name)
            elif name.lower() in _ST_VARIABLE_MACROS and args and args[0] in self.variables:
                found.add(args[0])
        return found

    def directive_ids(self, text: str) -> set[str]:
        """Variables the bracket directives of ``text`` would change."""
        if "[" not in text or not self.variables:
            return set()
        return {effect.variable_id for effect in extract_directives(self.world, text).effects}

    def _ui_mentions(self) -> set[str]:
        root = self.world.root_component
        sources = list(root.files.values()) if root else []
        if self.world.custom_ui:
            sources.append(json.dumps(self.world.custom_ui, ensure_ascii=False))
        text = "\n".join(sources)
        return {v for v in self.variables if v in text} if text else set()


def _walk(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, item in value.items():
            yield from _walk(item, str(k))
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, key)
    else:
        yield key, value
