"""Fields of the game-master editor: id pickers (any value accepted: the engine's linter names a
broken reference), composite values (a place, where an item is), word and line lists."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django import forms

from studio.forms.base import ListField
from studio.labels import label_of

NONE = ("", "—")


class PickField(forms.ChoiceField):
    """A picker of one id of the block (``source`` names the catalog list); blank is None.

    Any value is accepted: the engine's linter, not the form, says a reference is broken.
    """

    widget = forms.Select

    def __init__(self, source: str, *, blank: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("required", not blank)
        super().__init__(**kwargs)
        self.source, self.blank = source, blank

    def valid_value(self, value: Any) -> bool:
        return True

    def to_python(self, value: Any) -> Any:
        text = super().to_python(value)
        return text or None

    def encode(self, value: Any) -> Any:
        return value

    def decode(self, value: Any) -> Any:
        return value


class PicksField(forms.MultipleChoiceField):
    """A picker of several ids (people, known names, proficiencies…)."""

    widget = forms.CheckboxSelectMultiple

    def __init__(self, source: str, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)
        self.source = source

    def valid_value(self, value: Any) -> bool:
        return True


class PlaceField(PickField):
    """A location, or ``location/point``: ``{location, point}``; spread into its record."""

    def __init__(self, *, spread: bool = False, **kwargs: Any) -> None:
        super().__init__("places", **kwargs)
        self.spread = spread

    def encode(self, value: Any) -> Any:
        if not isinstance(value, Mapping) or not value.get("location"):
            return ""
        point = value.get("point")
        return f"{value['location']}/{point}" if point else str(value["location"])

    def decode(self, value: Any) -> Any:
        if not value:
            return {"location": None, "point": None} if self.spread else None
        location, _sep, point = str(value).partition("/")
        return {"location": location, "point": point or None}


class HolderField(PickField):
    """``kind:id`` (``location:x[/point]``, ``npc:y``, ``character:z``) ⇄ ``{kind: id}``."""

    def encode(self, value: Any) -> Any:
        if not isinstance(value, Mapping):
            return ""
        for kind in ("location", "npc", "character"):
            if value.get(kind):
                point = value.get("point") if kind == "location" else None
                return f"{kind}:{value[kind]}" + (f"/{point}" if point else "")
        return ""

    def decode(self, value: Any) -> Any:
        if not value:
            return None
        kind, _sep, ident = str(value).partition(":")
        if kind == "location":
            location, _sep, point = ident.partition("/")
            return {"location": location, **({"point": point} if point else {})}
        return {kind: ident}


class WordsField(ListField):
    """Comma- or line-separated words (aliases, traits); blank is no change in an empty row."""

    def has_changed(self, initial: Any, data: Any) -> bool:
        return self.to_python(initial or []) != self.to_python(data)


class LinesField(WordsField):
    """One string per line (ambient lines, secrets, concerns: prose may hold commas)."""

    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]
        if isinstance(value, list):
            return [str(v).strip() for v in value if str(v).strip()]
        text = forms.CharField.to_python(self, value) or ""
        return [line.strip() for line in text.splitlines() if line.strip()]

    def prepare_value(self, value: Any) -> Any:
        return "\n".join(str(v) for v in value) if isinstance(value, list | tuple) else value


def number(default: int = 0, **kwargs: Any) -> forms.IntegerField:
    return forms.IntegerField(
        initial=default, widget=forms.NumberInput(attrs={"class": "num"}), **kwargs
    )


def text(rows: int = 2, **kwargs: Any) -> forms.CharField:
    kwargs.setdefault("required", False)
    return forms.CharField(widget=forms.Textarea(attrs={"rows": rows}), strip=False, **kwargs)


def line(**kwargs: Any) -> forms.CharField:
    kwargs.setdefault("required", False)
    return forms.CharField(**kwargs)


def choose(values: Iterable[str], *, blank: bool = False, **kwargs: Any) -> forms.ChoiceField:
    values = list(values)
    if not blank:
        kwargs.setdefault("initial", values[0])  # so an untouched blank row stays unchanged
    options = [NONE] if blank else []
    return forms.TypedChoiceField(
        choices=[*options, *((v, label_of(v)) for v in values)],
        required=not blank,
        coerce=str,
        empty_value=None,
        **kwargs,
    )
