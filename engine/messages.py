"""Messages a person reads (issue 35 §4): each is a code, its parameters and the English text.

The engine speaks English and never imports a translation library. What it says to a creator
(linter findings, validation errors, directive skips, import errors) is a ``Message``: the code
names an English template of ``TEMPLATES`` and the parameters fill it. The studio looks the
template up in its catalogues and fills the translation with the same parameters.

Older parts of the engine still build plain ``path: message`` strings (``WorldValidationError``,
``Skipped.reason``, ``CardError``); ``coded`` reads such a text back into its ``Message`` by
matching the templates, so every message has a code whichever way it was made. A text no
template matches comes back with the code ``text`` and the whole text as its one parameter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

TEMPLATES: dict[str, str] = {
    # engine.lint: errors
    "unknown-variable": "unknown variable '{name}'",
    "unknown-entry": "unknown entry '{name}'",
    "unknown-rule": "unknown rule '{name}'",
    "unknown-track": "unknown track '{name}'",
    "empty-greeting": "the greeting is empty",
    "duplicate-id": "duplicate id '{id}' (first used at {path})",
    # engine.lint_warnings
    "disabled-forever": "it is disabled and no rule or reaction enables it",
    "no-keywords": "a chat-history entry with no keywords and no conditions never fires",
    "entry-too-large": "about {tokens} tokens, over {limit}: split it or trim it",
    "unknown-folder": "no folder '{id}'",
    "directive-unknown-variable": "a directive names no variable '{name}'; it stays in the text",
    "scan-depth-zero": "0 scans no message, so {count} keyword entries can never fire",
    "variable-unused": (
        "nothing reads or writes it (no condition, trigger, action, macro or directive)"
    ),
    "max-fire-zero": "0 lets it fire no time at all",
    "trigger-no-keywords": "a keyword trigger with no keywords never fires",
    "no-turn-counted": "no turn is ever counted: set atTurn (from 1) or everyNTurns",
    "no-custom-ui": "no custom UI sends this action; only a hand-made client could",
    "never-crosses-type": "a {type} variable never crosses a number",
    "never-below": "'{id}' never goes below {value}",
    "never-reaches": "'{id}' never reaches {value}",
    "never-above": "'{id}' never goes above {value}",
    "always-above": "'{id}' is always above {value}",
    "bgm-unknown-variable": "unknown variable '{name}': it never plays",
    "bgm-no-keywords": "no keywords: it never plays",
    "bgm-never": "{reason}: it never plays",
    "no-condition-holds": "no condition can ever hold",
    "never-holds-boolean": "{condition} never holds for a boolean",
    "never-holds-number": "{condition} never holds for a number",
    "never-holds-range": "{condition} never holds: {name} stays within {range}",
    "cache-breakpoint-moves": (
        "{macros} changes turn to turn above the cache breakpoint, so the cached prefix is "
        "rebuilt every turn: move it to a post-history entry or give the entry a condition"
    ),
    "keywords-ignored": (
        "the keywords {keywords} are ignored in the {section} section, which is sent on every "
        "turn: move the entry to chat-history so its keywords decide when it fires"
    ),
    "unknown-macro": (
        "{macro} is no variable and no macro, so it reaches the prompt as written: "
        "create the variable or fix the name"
    ),
    # engine.lint: what to do about a finding (Finding.hint)
    "hint-unknown-variable": "Pick one of the world's variables, or create the variable '{name}'.",
    "hint-unknown-entry": "Pick one of the world's entries, or create the entry '{name}'.",
    "hint-unknown-rule": "Pick one of the world's rules, or create the rule '{name}'.",
    "hint-unknown-track": "Pick one of the world's tracks, or add the track '{name}'.",
    "hint-fix-field": "Open the field and correct it.",
    # engine.world_load: validation
    "must-be-one-of": "must be one of {options}",
    "is-required": "is required",
    "unknown-type": "unknown type '{tag}'; must be one of {options}",
    "type-required": "type is required",
    "too-large-number": "is out of range (too large a number)",
    "not-an-object": "must be a JSON object, got {type}",
    "not-valid-json": "{what} is not valid JSON: {error} at line {line} column {column}",
    "nested-too-deep": "{what} is nested deeper than {limit} levels",
    "cannot-read": "cannot read file: {reason}",
    "must-be-kebab": "must be kebab-case (lowercase letters, digits and single hyphens)",
    "reserved-word": "'{word}' is a reserved word ({reserved})",
    "default-wrong-type": "must be a {type}, got {value}",
    "default-out-of-range": "must be between {min} and {max}, got {value}",
    "min-above-max": "min must not be greater than max",
    "entry-file-missing": "entryFile '{file}' is not among files",
    "event-type-required": "event.type must be a non-empty string",
    "valid-string": "input should be a valid string",
    "valid-integer": "input should be a valid integer",
    "valid-number": "input should be a valid number",
    "valid-boolean": "input should be a valid boolean",
    "valid-list": "input should be a valid list",
    "valid-dictionary": "input should be a valid dictionary",
    "at-least": "input should be greater than or equal to {limit}",
    "at-most": "input should be less than or equal to {limit}",
    "too-long": "string should have at most {limit} characters",
    "extra-forbidden": "extra inputs are not permitted",
    "integer-parse": "input should be a valid integer, unable to parse string as an integer",
    "integer-fraction": "input should be a valid integer, got a number with a fractional part",
    "number-parse": "input should be a valid number, unable to parse string as a number",
    "boolean-parse": "input should be a valid boolean, unable to interpret input",
    "too-short": "string should have at least {limit} characters",
    "list-too-long": "list should have at most {limit} items after validation, not {count}",
    "greater-than": "input should be greater than {limit}",
    "less-than": "input should be less than {limit}",
    # engine.directive_extractor: why a directive was skipped
    "skip-unterminated": "unterminated directive (no closing ']'); left in the text",
    "skip-cut-off": "directive cut off by the end of the reply",
    "skip-unknown-variable": "unknown variable '{name}'; left in the text",
    "skip-unknown-target": "unknown target variable '{name}'",
    "skip-bad-patch": "invalid JSON patch: {error}",
    "skip-patch-too-deep": "invalid JSON patch: nested too deeply",
    "skip-patch-not-array": "a JSON patch must be an array of operations",
    "skip-empty-update": "empty <UpdateVariable> block",
    # engine.directive_* and engine.state*: why a directive was refused
    "op-not-for-variable": "{op} does not apply to {kind} variable '{id}'",
    "op-not-for-value": "{op} does not apply to {kind} '{target}'",
    "current-not-kind": "current value of '{id}' is not a {kind}",
    "dot-path-needs-json": "'{id}' is a {kind} variable; dot paths need a json variable",
    "not-finite": "'{value}' is not a finite number",
    "too-large": "'{value}' is too large a number",
    "not-a-number": "{value} is not a number",
    "result-not-finite": "the result is not a finite number",
    "needs-text": "{op} needs text, got {kind}",
    "not-true-false": "{value} is not true or false",
    "merge-needs-object": "merge needs an object, got {kind}",
    "cannot-go-into": "cannot go into {kind} '{at}' with '{key}'",
    "not-an-index": "'{segment}' is not an index into array '{at}'",
    "index-out-of-range": "index {index} is out of range for array '{at}' ({length} items)",
    "does-not-exist": "'{target}' does not exist",
    "delete-needs-key": "delete needs a key or an index, got {kind}",
    "has-no-key": "'{label}' has no key '{name}'",
    "audio-needs-track": "an audio directive needs a track id and an action",
    "audio-unexpected": "unexpected '{arg}' after {what}",
    "audio-chain-track": "chain: needs a track id",
    "audio-volume-level": "volume needs a level between 0 and 1",
    "audio-needs-number": "{action} needs a number, got '{value}'",
    "audio-crossfade": "crossfade needs a duration of 0 seconds or more",
    "audio-unknown-action": "unknown audio action '{action}' (play, stop, crossfade, volume)",
    "needs-value": "{op} needs a value",
    "no-value": "the directive has no value",
    "bad-json": "invalid JSON: {error}",
    "bad-json-deep": "invalid JSON: nested too deeply",
    "unclosed-string": "malformed string (no closing quote)",
    "number-too-large": "number too large: {text}",
    "number-out-of-range": "number out of range: {text}",
    "empty-segment": "empty segment in the dot path",
    "patch-not-object": "a patch operation must be an object",
    "patch-unsupported": "unsupported patch operation {name} (replace, delta, insert, remove)",
    "patch-needs-path": "a patch operation needs a string path",
    "patch-needs-variable": "without target=, the path must start with a variable",
    "patch-remove-path": "remove needs a path inside the variable",
    # engine.gm.lint: the game master's references
    "gm-unknown-location": "unknown location '{name}'",
    "gm-unknown-item": "unknown item '{name}'",
    "gm-unknown-npc": "unknown NPC '{name}'",
    "gm-unknown-character": "unknown character '{name}'",
    "gm-unknown-debt": "unknown debt '{name}'",
    "gm-unknown-clue": "unknown clue '{name}'",
    "gm-unknown-quest": "unknown quest '{name}'",
    "gm-unknown-party": "unknown character or NPC '{name}'",
    "gm-no-point": "no point '{point}' in '{location}'",
    "gm-also-npc": "'{id}' is also an NPC id",
    "gm-duplicate": "duplicate {what} '{id}' (first at {path}){note}",
    "gm-exit-loop": "an exit cannot lead to its own location",
    "gm-found-by": "only a hidden exit is found by a check",
    "gm-two-places": "'{item}' is in two places (also at {where})",
    "gm-nowhere": "is nowhere: give it a location, home, fixedPlace or schedule",
    "gm-two-places-at": "two places at {time}",
    "gm-clue-self": "a clue cannot require itself",
    "gm-hand-in": "a hand-in needs an NPC: give it to or an owner",
    "gm-sold-and-held": "'{item}' is in two places: sold here, held elsewhere",
    "gm-debt-parties": "a debt needs two different parties",
    "gm-enter-hook": "an enter hook needs a location",
    "gm-not-carried": "'{item}' is not carried by this character",
    "gm-hp-above-max": "must not be greater than maxHp",
    # engine.interop: import
    "import-invalid": "{what} is invalid: {error} at line {line} column {column}",
    "import-too-deep": "{what} is invalid: nested deeper than {limit} levels",
    "import-nested": "{what} is invalid: nested too deeply",
    "import-number-range": "{what} is invalid: a number is out of range",
    "import-not-object": "{what} is invalid: expected an object, got {type}",
    "card-not-object": "card JSON is invalid: expected an object, got {type}",
    "card-needs-data": "card JSON is invalid: a '{spec}' card needs a 'data' object",
    "card-invalid": "card JSON is invalid: {error}",
    "world-invalid": "the world is invalid",
    # parameters that are words of their own (``what`` and ``error`` above)
    "what-json": "JSON",
    "what-world-json": "world JSON",
    "what-card-json": "card JSON",
    "json-delimiter": "Expecting ',' delimiter",
    "json-colon": "Expecting ':' delimiter",
    "json-value": "Expecting value",
    "json-property": "Expecting property name enclosed in double quotes",
    "json-extra": "Extra data",
    "json-unterminated": "Unterminated string starting at",
    "json-control": "Invalid control character at",
    # engine.interop.report: what an import did ({count} is one of the counts below)
    "report-card-fields": "card fields → {count}: {fields}",
    "report-lorebook": "lorebook → {count} ({keyword} keyword-triggered, {always} always sent)",
    "report-more-entries": "{count} with their Fabula roles",
    "report-also": "also: {parts}",
    "report-card-meta": "creator notes → description, creator → author, tags → custom tags",
    "report-picture-kept": "the card's picture → the world's portrait",
    "report-picture-dropped": "the card's picture: {reason}; it is not kept",
    "report-unknown-fields": "{n} fields Fabula does not know are kept: {fields}",
    "count-entry": "1 entry",
    "count-entries": "{n} entries",
    "count-greeting": "1 greeting",
    "count-greetings": "{n} greetings",
    "count-more-entry": "1 more entry",
    "count-more-entries": "{n} more entries",
    "count-variable": "1 variable",
    "count-variables": "{n} variables",
    "count-rule": "1 rule",
    "count-rules": "{n} rules",
    "count-reaction": "1 reaction",
    "count-reactions": "{n} reactions",
    "count-audio-track": "1 audio track",
    "count-audio-tracks": "{n} audio tracks",
    "count-entry-folder": "1 entry folder",
    "count-entry-folders": "{n} entry folders",
    "report-regex-one": "1 entry uses regex keys: Fabula matches them as plain text ({names})",
    "report-regex-many": (
        "{n} entries use regex keys: Fabula matches them as plain text ({names})"
    ),
    "report-probability-one": (
        "1 entry fires only part of the time in SillyTavern (probability); Fabula fires it "
        "every time ({names})"
    ),
    "report-probability-many": (
        "{n} entries fire only part of the time in SillyTavern (probability); Fabula fires "
        "them every time ({names})"
    ),
    "report-position-one": (
        "1 entry is inserted {where} in SillyTavern; Fabula sends it with the other "
        "triggered entries ({names})"
    ),
    "report-position-many": (
        "{n} entries are inserted {where} in SillyTavern; Fabula sends them with the other "
        "triggered entries ({names})"
    ),
    "report-selective-one": (
        "1 entry has secondary keys SillyTavern ignored ('selective' off); Fabula applies them "
        "({names})"
    ),
    "report-selective-many": (
        "{n} entries have secondary keys SillyTavern ignored ('selective' off); Fabula "
        "applies them ({names})"
    ),
    "report-settings-one": (
        "1 entry uses SillyTavern settings Fabula does not apply ({what}); kept for the export "
        "({names})"
    ),
    "report-settings-many": (
        "{n} entries use SillyTavern settings Fabula does not apply ({what}); kept for the "
        "export ({names})"
    ),
    "report-no-enabled-one": (
        "1 entry has no 'enabled' flag: disabled, as SillyTavern reads it ({names})"
    ),
    "report-no-enabled-many": (
        "{n} entries have no 'enabled' flag: disabled, as SillyTavern reads them ({names})"
    ),
    "report-folder-one": "1 entry names a folder the file does not have: cleared ({names})",
    "report-folder-many": ("{n} entries name a folder the file does not have: cleared ({names})"),
    # engine.interop: a field read loosely (after "path: ")
    "coerce-text-converted": "expected text, got {type}; converted",
    "coerce-text-ignored": "expected text, got {type}; ignored",
    "coerce-flag": "expected true/false, got {type}; using {default}",
    "coerce-boolean-number": "expected a number, got boolean; ignored",
    "coerce-whole-number": "expected a whole number, got {type}; ignored",
    "coerce-texts": "expected a list of texts, got {type}; ignored",
    "coerce-words": "expected a list of words, got {type}; ignored",
    "coerce-word-skipped": "skipped a {type} among the words",
    "coerce-object-ignored": "expected an object, got {type}; ignored",
    "coerce-object-skipped": "expected an object, got {type}; skipped",
    "card-no-name": "the card has no name; using 'Unnamed character'",
    "card-shortened": "longer than {limit} characters; shortened",
    "card-no-spec": "missing; read as a V2 card",
    "card-unknown-spec": "unknown card spec {spec}; read as a V1 card",
    "card-world-info": "the card uses the World Info '{name}'; import it too",
    "card-stash-field": "invalid; the card's field is used",
    "card-invalid-skipped": "invalid; skipped",
    "card-malformed-folder": "skipped a malformed folder",
    # engine.worldtests: why a step of a world test failed
    "wt-text-shows": "the text shows {part}, which it must not",
    "wt-text-missing": "the text does not show {part}",
    "wt-text-differs": "the text shown differs",
    "wt-expected-action": "expected a {kind} action, got {actual}",
    "wt-expected-action-plain": "expected a {kind} action, got a plain turn",
    "wt-expected-nothing": "expected {expected}, got nothing: the state has no {path}",
    "wt-expected": "expected {expected}, got {actual}",
    "wt-entries-not-fired": "{names} did not fire; entries that fired: {fired}",
    "wt-entries-not-fired-none": "{names} did not fire; entries that fired: none",
    "wt-entries-fired": "{names} fired; entries that fired: {fired}",
    "wt-rules-not-fired": "{names} did not fire; rules that fired: {fired}",
    "wt-rules-not-fired-none": "{names} did not fire; rules that fired: none",
    "wt-scripts-replies": "the step scripts {held} replies but the narrator was asked for {used}",
    "wt-missing-reply": (
        "the narrator was asked for reply {n} but the step scripts {held} "
        '(add "reply", or "replies" for a game master\'s tool calls)'
    ),
    "wt-no-recording": (
        "the recording holds no reply for this step's request (the prompt changed)"
    ),
    # engine.rules: a chain of rules and reactions cut short
    "chain-stopped": (
        "stopped a rule/reaction chain after {count}: it would loop forever "
        "(still pending: {pending})"
    ),
    "count-event-generations": "{n} event generations",
    "count-events": "{n} events",
    # anything else: shown as written
    "text": "{text}",
}
# Parameters that are messages themselves (translated too, not shown as written).
NESTED = frozenset({"reason", "what", "error", "count"})
# Parameters that are lists of such messages, joined by ", " ("also: 1 rule, 2 variables").
LISTS = frozenset({"parts"})
_FIELD = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True, slots=True)
class Message:
    """What the engine says: ``code`` names a template of ``TEMPLATES``; ``english`` is filled."""

    code: str
    params: Mapping[str, str] = field(default_factory=dict)
    english: str = ""

    def __str__(self) -> str:
        return self.english


def say(code: str, **params: object) -> Message:
    """The message ``code`` filled with ``params``; an unknown code raises KeyError (a bug)."""
    texts = {key: str(value) for key, value in params.items()}
    return Message(code, texts, TEMPLATES[code].format(**texts))


def coded(text: str) -> Message:
    """The message an English ``text`` of the engine is; code ``text`` when none matches."""
    for code, pattern in _patterns():
        match = pattern.fullmatch(text)
        if match:
            return Message(code, match.groupdict(), text)
    return Message("text", {"text": text}, text)


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    # Templates wrapping another message first ("{reason}: it never plays" holds a whole
    # "… never holds: …"), then the most literal ones, so the most specific template wins.
    out = []
    for code, template in TEMPLATES.items():
        if code == "text":
            continue
        parts = _FIELD.split(template)
        regex = "".join(
            f"(?P<{part}>.*?)" if n % 2 else re.escape(part) for n, part in enumerate(parts)
        )
        wraps = any(name in NESTED for name in parts[1::2])
        literal = sum(len(p) for p in parts[::2])
        out.append((not wraps, -literal, code, re.compile(regex, re.DOTALL)))
    out.sort(key=lambda item: item[:2])
    return [(code, pattern) for _wraps, _literal, code, pattern in out]
