"""The world-test editor (issue 13 §3): one test as a form (its settings, then one row per step
with its input, its scripted reply and what it must show) or as the raw JSON of
docs/WORLD_TESTS.md, like the structured editors (studio.forms.structured).

A test the rows cannot show in full (tool-call replies, a recording, a persona, a clock, an exact
list of suggestions…) opens on the raw JSON side, so nothing is lost. The engine stays the only
validator (studio.worldtests.suites.checked_test): its ``steps[1].say: …`` errors come back on
the row they name.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from studio.forms.base import JSONTextField, ListField, mono
from studio.forms.rows import LinesField, Pickers, RowForm, rowset
from studio.forms.structured import StructuredForm

INPUTS = (
    ("say", _("Say")),
    ("start", _("Start (greeting)")),
    ("action", _("Action")),
    ("continue", _("Continue")),
    ("roll", _("Roll")),
    ("click", _("Click")),
)
NARRATORS = (
    ("scripted", _("Scripted replies")),
    ("offline", _("Offline narrator")),
    ("replay", _("A recording")),
)
TEST_KEYS = {"name", "description", "seed", "narrator", "character", "state", "steps"}
STEP_KEYS = {"say", "start", "action", "continue", "roll", "click", "reply", "expect"}
EXPECT_KEYS = {"text", "textContains", "state", "fired", "notFired", "rules", "notifications"}
INPUT_HELP = _(
    "What the player says; a greeting's id (optional); an action's id; location:ID or point:ID."
)


class TextLinesField(forms.CharField):
    """A list of texts, one per line."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 2}))
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]
        return [line.strip() for line in str(value or "").splitlines() if line.strip()]

    def prepare_value(self, value: Any) -> Any:
        return "\n".join(value) if isinstance(value, list) else value


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and "\n" not in v for v in value)


class StepRow(RowForm):
    kind = forms.ChoiceField(label=_("Input"), choices=INPUTS, initial="say", required=False)
    input = forms.CharField(label=_("What"), required=False, help_text=INPUT_HELP)
    reply = forms.CharField(label=_("Scripted reply"), required=False, strip=False, widget=mono(2))
    expect_text = forms.CharField(
        label=_("Shown text, exactly"), required=False, strip=False, widget=mono(2)
    )
    expect_contains = TextLinesField(label=_("Shown text contains (one per line)"))
    expect_state = LinesField(label=_("State after (path = value)"))
    expect_fired = ListField(label=_("Entries that fire"))
    expect_not_fired = ListField(label=_("Entries that do not fire"))
    expect_rules = ListField(label=_("Rules that fire"))
    check_notifications = forms.BooleanField(label=_("Check the notifications"), required=False)
    expect_notifications = TextLinesField(label=_("Notifications, exactly (one per line)"))

    texts: ClassVar[tuple[str, ...]] = ("input", "reply", "expect_text", "expect_contains")

    def is_blank(self) -> bool:
        data = self.cleaned_data
        filled = any(str(data.get(name) or "").strip() for name in self.fields if name != "kind")
        return data.get("kind") in ("", "say", None) and not filled

    def to_item(self, path: str) -> dict[str, Any] | None:
        data = self.cleaned_data
        step = self._input(data.get("kind") or "say", str(data.get("input") or "").strip(), path)
        if step is None:
            return None
        if data.get("reply"):
            step["reply"] = data["reply"]
        expect = self._expect(data)
        return {**step, "expect": expect} if expect else step

    def _input(self, kind: str, value: str, path: str) -> dict[str, Any] | None:
        if kind in ("continue", "roll"):
            return {kind: True}
        if kind == "start":
            return {"start": value or True}
        if kind == "click":
            where, _sep, ident = value.partition(":")
            if where not in ("location", "point") or not ident.strip():
                self.fail("input", path, _("write location:ID or point:ID"))
                return None
            return {"click": {where: ident.strip()}}
        return {kind: value}

    @staticmethod
    def _expect(data: dict[str, Any]) -> dict[str, Any]:
        expect: dict[str, Any] = {}
        if data.get("expect_text"):
            expect["text"] = data["expect_text"]
        pairs = (
            ("textContains", "expect_contains"),
            ("state", "expect_state"),
            ("fired", "expect_fired"),
            ("notFired", "expect_not_fired"),
            ("rules", "expect_rules"),
        )
        expect.update({key: data[name] for key, name in pairs if data.get(name)})
        if data.get("check_notifications"):
            expect["notifications"] = data.get("expect_notifications") or []
        return expect

    @classmethod
    def from_item(cls, item: Any, pickers: Pickers) -> dict[str, Any] | None:
        if not isinstance(item, dict) or set(item) - STEP_KEYS:
            return None
        expect = item.get("expect", {})
        if not isinstance(expect, dict) or set(expect) - EXPECT_KEYS:
            return None
        row = cls._input_row(item)
        state = expect.get("state", {})
        lines = LinesField.text_of(state) if isinstance(state, dict) else None
        lists = [expect.get(k, []) for k in ("textContains", "fired", "notFired", "rules")]
        notes = expect.get("notifications")
        if row is None or lines is None or not all(_texts(v) for v in lists):
            return None
        if notes is not None and not _texts(notes):
            return None
        text, reply = expect.get("text", ""), item.get("reply", "")
        if not isinstance(text, str) or not isinstance(reply, str):
            return None
        return {
            **row,
            "reply": reply,
            "expect_text": text,
            "expect_contains": lists[0],
            "expect_state": lines,
            "expect_fired": lists[1],
            "expect_not_fired": lists[2],
            "expect_rules": lists[3],
            "check_notifications": notes is not None,
            "expect_notifications": notes or [],
        }

    @staticmethod
    def _input_row(item: dict[str, Any]) -> dict[str, Any] | None:
        given = [k for k in ("say", "start", "action", "continue", "roll", "click") if k in item]
        if len(given) != 1:
            return None
        kind, value = given[0], item[given[0]]
        if kind in ("say", "action") and isinstance(value, str):
            return {"kind": kind, "input": value}
        if kind in ("continue", "roll") and value is True:
            return {"kind": kind, "input": ""}
        if kind == "start" and (value is True or isinstance(value, str)):
            return {"kind": kind, "input": "" if value is True else value}
        if kind == "click" and isinstance(value, dict) and len(value) == 1:
            where, ident = next(iter(value.items()))
            if where in ("location", "point") and isinstance(ident, str):
                return {"kind": kind, "input": f"{where}:{ident}"}
        return None


StepRows = rowset(StepRow, "steps", "step")


def _object(value: Any) -> None:
    if not isinstance(value, dict):
        raise ValidationError(_("Must be a JSON object."), code="json_type")


class TestForm(StructuredForm):
    """One world test; ``test_data()`` is its JSON once the form is valid."""

    __test__ = False  # not a pytest class

    name = forms.CharField(label=_("Name"), max_length=200)
    description = forms.CharField(label=_("Description"), required=False, max_length=2000)
    seed = forms.IntegerField(label=_("Seed (dice and random draws)"), required=False, initial=1)
    narrator = forms.ChoiceField(label=_("Narrator"), choices=NARRATORS, required=False)
    character = forms.CharField(
        label=_("Character (game-master worlds)"), required=False, max_length=100
    )
    start_state = LinesField(label=_("Starting values (variable = value)"))
    test_json = JSONTextField(
        label=_("The test (JSON)"), rows=20, required=True, validators=[_object]
    )

    json_parts = ("test_json",)
    structured_fields = ("name", "description", "seed", "narrator", "character", "start_state")

    @classmethod
    def new_item(cls) -> dict[str, Any]:
        return {"name": "", "steps": [{"start": True}]}

    def fill(self, source: dict[str, Any]) -> bool:
        shown = self.add_rows("steps", StepRows, source.get("steps"))
        state = source.get("state", {})
        lines = LinesField.text_of(state) if isinstance(state, dict) else None
        self.initial["start_state"] = lines or ""
        self.initial["test_json"] = source
        self.initial.setdefault("narrator", "scripted")
        simple = not set(source) - TEST_KEYS and source.get("narrator") != "replay"
        return shown and simple and lines is not None

    def structured(self) -> dict[str, Any] | None:
        steps = self.rows_json("steps")
        if steps is None or "start_state" in self.errors:
            return None
        data = self.cleaned_data
        test: dict[str, Any] = {"name": str(data.get("name") or "").strip()}
        if data.get("description"):
            test["description"] = data["description"]
        test["seed"] = data.get("seed") if data.get("seed") is not None else 1
        test["narrator"] = data.get("narrator") or "scripted"
        if data.get("character"):
            test["character"] = data["character"].strip()
        if data.get("start_state"):
            test["state"] = data["start_state"]
        test["steps"] = steps
        return {"test_json": test}

    def test_data(self) -> dict[str, Any]:
        return dict(self.cleaned_data["test_json"])

    def add_engine_errors(self, errors: Any) -> None:
        for line in errors:
            if self.mode == "form" and self.place_error(line):
                continue
            self.add_error(None, line)
