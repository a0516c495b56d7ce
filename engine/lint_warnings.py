"""The linter's warnings (issue 16 §1): things that work but never happen, or cost money.

Only certain cases are flagged. An entry or rule that something could switch on, a variable the
custom UI might use, a rule a client could fire: none of these is a warning. Each check returns
``(path, code, message)`` triples; ``engine.lint`` turns them into findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.conditions import render_value
from engine.directives import extract_directives
from engine.lint_refs import MACRO, References
from engine.tokens import estimate_tokens
from engine.world import Condition, Entry, Rule, Variable, WorldDefinition

MAX_ENTRY_TOKENS = 8000
Triple = tuple[str, str, str]
# Macros whose text changes from one turn to the next (engine.macros).
PER_TURN_MACROS = frozenset(
    {
        "random",
        "pick",
        "roll",
        "time",
        "date",
        "weekday",
        "isodate",
        "isotime",
        "idle",
        "turncount",
        "lastmessage",
        "lastusermessage",
        "lastcharmessage",
    }
)


def warning_findings(world: WorldDefinition, refs: References) -> list[Triple]:
    """Every warning of ``world``, in document order of the parts."""
    out = _entry_warnings(world, refs)
    out += _variable_warnings(world, refs)
    out += _rule_warnings(world, refs)
    out += _bgm_warnings(world, refs)
    out += _breakpoint_warnings(world, refs)
    return out


# --- entries ---------------------------------------------------------------------------


def _entry_warnings(world: WorldDefinition, refs: References) -> list[Triple]:
    out: list[Triple] = []
    folders = {f.id for f in world.entry_folders}
    keyword_entries = 0
    for index, entry in enumerate(world.entries):
        here = f"entries[{index}]"
        if entry.role != "greeting":
            reason = _never_fires(entry, refs)
            if reason:
                out.append((f"{here}.{reason[0]}", "entry-never-fires", reason[1]))
        tokens = estimate_tokens(entry.content)
        if tokens > MAX_ENTRY_TOKENS:
            message = f"about {tokens:,} tokens, over {MAX_ENTRY_TOKENS:,}: split it or trim it"
            out.append((f"{here}.content", "entry-too-large", message))
        if entry.folder_id is not None and entry.folder_id not in folders:
            out.append((f"{here}.folderId", "unknown-folder", f"no folder '{entry.folder_id}'"))
        for name in sorted(_unknown_directive_heads(entry.content, refs)):
            message = f"a directive names no variable '{name}'; it stays in the text"
            out.append((f"{here}.content", "directive-unknown-variable", message))
        if entry.section == "chat-history" and entry.keywords and entry.enabled:
            keyword_entries += 1
    settings = world.settings
    if keyword_entries and settings.lorebook_scan_depth == 0:
        message = f"0 scans no message, so {keyword_entries} keyword entries can never fire"
        out.append(("settings.lorebookScanDepth", "entry-never-fires", message))
    return out


def _never_fires(entry: Entry, refs: References) -> tuple[str, str] | None:
    if not entry.enabled and entry.id not in refs.entries_enabled_by:
        return "enabled", "it is disabled and no rule or reaction enables it"
    keywords = [k for k in entry.keywords if k.strip()]
    if entry.section == "chat-history" and not keywords and not entry.conditions:
        return "keywords", "a chat-history entry with no keywords and no conditions never fires"
    reason = impossible_conditions(entry.conditions, entry.condition_logic, refs)
    return ("conditions", reason) if reason else None


def _unknown_directive_heads(text: str, refs: References) -> set[str]:
    if "[" not in text:
        return set()
    skipped = extract_directives(refs.world, text).skipped
    prefix = "unknown variable '"
    return {
        s.reason[len(prefix) :].split("'", 1)[0] for s in skipped if s.reason.startswith(prefix)
    }


# --- variables ---------------------------------------------------------------------------


def _variable_warnings(world: WorldDefinition, refs: References) -> list[Triple]:
    if not world.variables:
        return []
    used = refs.used_variables()
    message = "nothing reads or writes it (no condition, trigger, action, macro or directive)"
    return [
        (f"variables[{index}]", "variable-unused", message)
        for index, variable in enumerate(world.variables)
        if variable.id not in used
    ]


# --- rules -------------------------------------------------------------------------------


def _rule_warnings(world: WorldDefinition, refs: References) -> list[Triple]:
    out: list[Triple] = []
    for index, rule in enumerate(world.rules):
        reason = _rule_never(rule, refs)
        if reason:
            out.append((f"rules[{index}].{reason[0]}", "rule-never-fires", reason[1]))
    return out


def _rule_never(rule: Rule, refs: References) -> tuple[str, str] | None:
    if not rule.enabled and rule.id not in refs.rules_enabled_by:
        return "enabled", "it is disabled and no rule or reaction enables it"
    if rule.max_fire_count == 0:
        return "maxFireCount", "0 lets it fire no time at all"
    never = _trigger_never(rule, refs)
    if never:
        return never
    reason = impossible_conditions(rule.conditions, rule.condition_logic, refs)
    return ("conditions", reason) if reason else None


def _trigger_never(rule: Rule, refs: References) -> tuple[str, str] | None:
    trigger = rule.trigger
    if trigger.type in ("keyword", "ai-keyword"):
        if not [k for k in getattr(trigger, "keywords", []) if k.strip()]:
            return "trigger.keywords", "a keyword trigger with no keywords never fires"
    elif trigger.type == "turn-count":
        at, every = getattr(trigger, "at_turn", None), getattr(trigger, "every_n_turns", None)
        if _never_counted(at, every):
            return "trigger", "no turn is ever counted: set atTurn (from 1) or everyNTurns"
    elif trigger.type == "action":
        if not _has_custom_ui(refs.world):
            message = "no custom UI sends this action; only a hand-made client could"
            return "trigger.actionId", message
    elif trigger.type == "variable-crossed":
        variable = refs.variables.get(getattr(trigger, "variable_id", ""))
        crossing = _never_crosses(variable, trigger.direction, trigger.threshold)
        if crossing:
            return "trigger.threshold", crossing
    return None


def _never_counted(at_turn: int | None, every: int | None) -> bool:
    # Turns are counted from 1 (engine.turn) when ``turn:complete`` is emitted.
    return every is None and (at_turn is None or at_turn < 1)


def _never_crosses(variable: Variable | None, direction: str, threshold: float) -> str:
    if variable is None:
        return ""  # an error already
    if variable.type in ("string", "boolean"):
        return f"a {variable.type} variable never crosses a number"
    low, high = variable.min, variable.max
    if direction == "drops-below":
        if low is not None and low >= threshold:
            return f"'{variable.id}' never goes below {render_value(low)}"
        if high is not None and high < threshold:
            return f"'{variable.id}' never reaches {render_value(threshold)}"
    else:
        if high is not None and high <= threshold:
            return f"'{variable.id}' never goes above {render_value(high)}"
        if low is not None and low > threshold:
            return f"'{variable.id}' is always above {render_value(threshold)}"
    return ""


def _has_custom_ui(world: WorldDefinition) -> bool:
    # Components and the game master's play page send actions too (``roll``, ``click:…``).
    root = world.root_component
    return bool((root and root.files) or world.custom_ui or world.components or world.game_master)


# --- conditional BGM ---------------------------------------------------------------------


def _bgm_warnings(world: WorldDefinition, refs: References) -> list[Triple]:
    out: list[Triple] = []
    for index, bgm in enumerate(world.conditional_bgm):
        here = f"conditionalBGM[{index}]"
        for n, condition in enumerate(bgm.conditions):
            if condition.variable_id not in refs.variables:
                message = f"unknown variable '{condition.variable_id}': it never plays"
                out.append((f"{here}.conditions[{n}].variableId", "bgm-unreachable", message))
        if bgm.trigger_type in ("keyword", "ai-keyword") and not any(
            k.strip() for k in bgm.keywords
        ):
            out.append((f"{here}.keywords", "bgm-unreachable", "no keywords: it never plays"))
        elif bgm.trigger_type == "turn-count" and _never_counted(bgm.at_turn, bgm.every_n_turns):
            message = "no turn is ever counted: set atTurn (from 1) or everyNTurns"
            out.append((f"{here}.atTurn", "bgm-unreachable", message))
        reason = impossible_conditions(bgm.conditions, bgm.condition_logic, refs)
        if reason:
            out.append((f"{here}.conditions", "bgm-unreachable", f"{reason}: it never plays"))
    return out


# --- impossible conditions ---------------------------------------------------------------


def impossible_conditions(conditions: Sequence[Condition], logic: str, refs: References) -> str:
    """Why the conditions can never hold together, or "" when they can (or may)."""
    reasons = [_impossible(c, refs.variables.get(c.variable_id)) for c in conditions]
    if not conditions:
        return ""
    if logic == "any":
        return "" if not all(reasons) else "no condition can ever hold"
    return next((r for r in reasons if r), "")


def _impossible(condition: Condition, variable: Variable | None) -> str:
    if variable is None:
        return ""  # an unknown variable is an error of its own
    op, value, name = condition.operator, condition.value, variable.id
    shown = f"{name} {op} {render_value(value)}"
    if variable.type == "boolean":
        if op in ("gt", "lt", "gte", "lte", "contains") or (op == "eq" and not _booleanish(value)):
            return f"{shown} never holds for a boolean"
        return ""
    if variable.type != "number":
        return ""
    if op == "contains":
        return f"{shown} never holds for a number"
    number = _number(value)
    if number is None:
        return f"{shown} never holds for a number" if op != "neq" else ""
    low, high = variable.min, variable.max
    out_of_range = {
        "gt": high is not None and high <= number,
        "gte": high is not None and high < number,
        "lt": low is not None and low >= number,
        "lte": low is not None and low > number,
        "eq": (low is not None and number < low) or (high is not None and number > high),
    }.get(op, False)
    return f"{shown} never holds: {name} stays within {_range(variable)}" if out_of_range else ""


def _booleanish(value: Any) -> bool:
    return isinstance(value, bool) or (
        isinstance(value, str) and value.strip().lower() in ("true", "false")
    )


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _range(variable: Variable) -> str:
    low = "-∞" if variable.min is None else render_value(variable.min)
    high = "∞" if variable.max is None else render_value(variable.max)
    return f"{low}..{high}"


# --- the cache breakpoint ----------------------------------------------------------------


def _breakpoint_warnings(world: WorldDefinition, refs: References) -> list[Triple]:
    """Text above the breakpoint (engine.prompt steps 1-4) that is expanded afresh each turn."""
    out: list[Triple] = []
    for index, entry in enumerate(world.entries):
        if not _above_breakpoint(entry, refs):
            continue
        changing = per_turn_macros(entry.content, refs)
        if changing:
            out.append((f"entries[{index}].content", "cache-breakpoint-moves", _moves(changing)))
    for index, variable in enumerate(world.variables):
        texts = (("description", variable.description), ("behaviorRules", variable.behavior_rules))
        for key, text in texts:
            changing = per_turn_macros(text, refs)
            if changing:
                path = f"variables[{index}].{key}"
                out.append((path, "cache-breakpoint-moves", _moves(changing)))
    return out


def _above_breakpoint(entry: Entry, refs: References) -> bool:
    # engine.prompt_layout.place_entries: conditional or switchable entries go below the breakpoint.
    return (
        entry.section in ("system-presets", "examples")
        and entry.role != "greeting"
        and entry.enabled
        and not entry.conditions
        and entry.id not in refs.entries_toggled
    )


def per_turn_macros(text: str, refs: References) -> list[str]:
    """The macros of ``text`` whose expansion changes turn to turn, as written."""
    if "{{" not in text:
        return []
    found = []
    for body in MACRO.findall(text):
        name = body.split("::", 1)[0].strip()
        if name.lower() in PER_TURN_MACROS or ("::" not in body and name in refs.variables):
            found.append("{{" + body.strip() + "}}")
    return list(dict.fromkeys(found))


def _moves(macros: list[str]) -> str:
    shown = ", ".join(macros[:3]) + (" …" if len(macros) > 3 else "")
    return (
        f"{shown} changes turn to turn above the cache breakpoint, so the cached prefix is "
        "rebuilt every turn: move it to a post-history entry or give the entry a condition"
    )
