"""What one step of a world test must show, and how it is checked (issue 13 §3; see
``engine.worldtests`` and docs/WORLD_TESTS.md).

Each key of ``expect`` is one assertion on the step's ``TurnResult``; each one that does not hold
is a ``Failure`` naming the key, what was expected, what the step did, and a diff the creator
reads (a unified diff for texts, what is missing or extra for lists). Values compare as JSON:
1 equals 1.0, but true is not 1.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from engine.state import same_value
from engine.turn import TurnResult

MISSING: Any = object()  # a path the state does not have


class Expect(BaseModel):
    """What a step must show; every key is optional."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)

    text: str | None = None
    text_contains: list[str] = Field(default_factory=list)
    text_excludes: list[str] = Field(default_factory=list)
    state: dict[str, Any] = Field(default_factory=dict)
    fired: list[str] = Field(default_factory=list)
    not_fired: list[str] = Field(default_factory=list)
    rules: list[str] = Field(default_factory=list)
    notifications: list[str] | None = None
    choices: list[str] | None = None
    kind: str | None = None


class Failure(BaseModel):
    """One assertion that did not hold; ``field`` is its key (``state.health``)."""

    field: str
    expected: Any = None
    actual: Any = None
    message: str = ""
    diff: str = ""


def check_step(expect: Expect, result: TurnResult) -> list[Failure]:
    """Every assertion of ``expect`` that ``result`` breaks, in the order of the keys."""
    failures: list[Failure] = []
    text = result.text
    if expect.text is not None and expect.text != text:
        failures.append(_text_failure("text", expect.text, text))
    for part in expect.text_contains:
        if part not in text:
            failures.append(_contains_failure(part, text))
    for part in expect.text_excludes:
        if part in text:
            message = f"the text shows {_show(part)}, which it must not"
            failures.append(
                Failure(field="textExcludes", expected=part, actual=text, message=message)
            )
    failures += _state_failures(expect.state, result)
    fired = [f.entry_id for f in result.fired_entries]
    failures += _set_failures("fired", expect.fired, fired, must=True, what="entries")
    failures += _set_failures("notFired", expect.not_fired, fired, must=False, what="entries")
    failures += _set_failures("rules", expect.rules, result.fired_rules, must=True, what="rules")
    notes = [n.message for n in result.notifications]
    if expect.notifications is not None and expect.notifications != notes:
        failures.append(_list_failure("notifications", expect.notifications, notes))
    if expect.choices is not None and expect.choices != list(result.choices):
        failures.append(_list_failure("choices", expect.choices, list(result.choices)))
    kind = getattr(result.gm, "kind", None)
    if expect.kind is not None and expect.kind != kind:
        message = f"expected a {expect.kind} action, got {kind or 'a plain turn'}"
        failures.append(Failure(field="kind", expected=expect.kind, actual=kind, message=message))
    return failures


def read_path(result: TurnResult, path: str) -> Any:
    """A value of the state after the step: ``health``, ``inventory.0.name``, or with ``@`` a
    path into the whole session state (``@turn``, ``@gm.characters.ren.location``); ``MISSING``
    when there is no such path."""
    if path.startswith("@"):
        node: Any = result.state.model_dump(mode="json")
        parts = path[1:].split(".")
    else:
        node, parts = result.state.values, path.split(".")
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif (
            isinstance(node, list)
            and part.lstrip("-").isdigit()
            and -len(node) <= int(part) < len(node)
        ):
            node = node[int(part)]
        else:
            return MISSING
    return node


def _state_failures(expected: dict[str, Any], result: TurnResult) -> list[Failure]:
    out = []
    for path, value in expected.items():
        actual = read_path(result, path)
        if actual is MISSING:
            message = f"expected {_show(value)}, got nothing: the state has no {path}"
            out.append(Failure(field=f"state.{path}", expected=value, message=message))
        elif not same_value(value, actual):
            message = f"expected {_show(value)}, got {_show(actual)}"
            out.append(
                Failure(field=f"state.{path}", expected=value, actual=actual, message=message)
            )
    return out


def _set_failures(
    field: str, wanted: list[str], got: list[str], *, must: bool, what: str
) -> list[Failure]:
    wrong = [x for x in wanted if (x in got) != must]
    if not wrong:
        return []
    verb = "did not fire" if must else "fired"
    message = f"{', '.join(wrong)} {verb}; {what} that fired: {', '.join(got) or 'none'}"
    return [Failure(field=field, expected=wanted, actual=got, message=message)]


def _list_failure(field: str, wanted: list[str], got: list[str]) -> Failure:
    missing = [x for x in wanted if x not in got]
    extra = [x for x in got if x not in wanted]
    lines = [f"- {x}" for x in missing] + [f"+ {x}" for x in extra]
    if not lines:
        lines = ["(the same items in another order)"]
    message = f"expected {_show(wanted)}, got {_show(got)}"
    return Failure(field=field, expected=wanted, actual=got, message=message, diff="\n".join(lines))


def _text_failure(field: str, wanted: str, got: str) -> Failure:
    diff = difflib.unified_diff(
        wanted.splitlines(), got.splitlines(), "expected", "shown", lineterm=""
    )
    return Failure(
        field=field,
        expected=wanted,
        actual=got,
        message="the text shown differs",
        diff="\n".join(diff) or f"- {wanted!r}\n+ {got!r}",
    )


def _contains_failure(part: str, text: str) -> Failure:
    return Failure(
        field="textContains",
        expected=part,
        actual=text,
        message=f"the text does not show {_show(part)}",
        diff="\n".join([f"- {part}", *(f"+ {line}" for line in text.splitlines() or [""])]),
    )


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
