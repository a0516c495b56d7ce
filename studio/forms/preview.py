"""Forms of the live prompt preview and the directive tester: a sample chat, state and persona."""

from __future__ import annotations

import json
import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from engine.session import Message, Persona
from studio.forms.base import JSONTextField, check_nesting, mono

_PREFIX = re.compile(r"^\s*(user|assistant|system)\s*:\s?(.*)$", re.IGNORECASE)
SAMPLE_CHAT = "user: Hello there.\nassistant: Welcome, traveller."


def parse_sample_chat(text: str) -> list[Message]:
    """Messages from ``user:``/``assistant:``/``system:`` lines, or a JSON list of messages.

    A line without a prefix continues the message above it. Raises ValidationError on JSON that
    is not a list of {role, content} objects.
    """
    if text.lstrip().startswith("["):
        return _chat_from_json(text)
    messages: list[Message] = []
    for line in text.splitlines():
        match = _PREFIX.match(line)
        if match:
            messages.append(Message(match.group(1).lower(), match.group(2)))
        elif messages:
            last = messages[-1]
            messages[-1] = Message(last.role, f"{last.content}\n{line}")
        elif line.strip():
            messages.append(Message("user", line))
    return messages


def _chat_from_json(text: str) -> list[Message]:
    check_nesting(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(
            _("Not valid JSON: %(msg)s at line %(line)s column %(col)s"),
            params={"msg": exc.msg, "line": exc.lineno, "col": exc.colno},
        ) from None
    if not all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in data):
        raise ValidationError(_('Each message must be an object with "role" and "content".'))
    return [Message.from_dict(m) for m in data]


class SampleChatField(forms.CharField):
    def to_python(self, value: Any) -> list[Message]:  # type: ignore[override]
        return parse_sample_chat(super().to_python(value) or "")


def _state_object(value: Any) -> None:
    if not isinstance(value, dict):
        raise ValidationError(_("Must be a JSON object of variable ids and values."))


class PreviewForm(forms.Form):
    prefix = "preview"

    chat = SampleChatField(
        label=_("Sample chat"),
        required=False,
        strip=False,
        widget=mono(6),
        initial=SAMPLE_CHAT,
        help_text=_("One message per line: user: … / assistant: … (or a JSON list)."),
    )
    state = JSONTextField(
        label=_("Sample state"),
        empty={},
        rows=4,
        validators=[_state_object],
        help_text=_("Variables left out keep their default."),
    )
    playtest_memory = forms.BooleanField(
        label=_("Add my playtest's session memory"),
        required=False,
        help_text=_("The memory your current playtest has summarised so far, at step 9."),
    )
    persona_name = forms.CharField(label=_("Persona name"), required=False, max_length=100)
    persona_appearance = forms.CharField(
        label=_("Appearance"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    persona_personality = forms.CharField(
        label=_("Personality"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    persona_backstory = forms.CharField(
        label=_("Backstory"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )

    # The scene pickers of a world in game-master mode (issue 10 §3); their options are set
    # by ``offer_scene`` and any value is accepted: an unknown one falls back to the default.
    scene_character = forms.CharField(
        label=_("Scene: character"), required=False, widget=forms.Select()
    )
    scene_location = forms.CharField(
        label=_("Scene: location"), required=False, widget=forms.Select()
    )
    SCENE_FIELDS = ("scene_character", "scene_location")

    def offer_scene(
        self, characters: list[tuple[str, str]], locations: list[tuple[str, str]]
    ) -> None:
        """Fill the scene pickers (left empty, they are not shown)."""
        self.fields["scene_character"].widget.choices = characters
        where = [("", _("where the character starts")), *locations]
        self.fields["scene_location"].widget.choices = where if characters else []

    @property
    def has_scene(self) -> bool:
        return bool(self.fields["scene_character"].widget.choices)

    def persona(self) -> Persona | None:
        data = self.cleaned_data
        fields = ("name", "appearance", "personality", "backstory")
        values = {f: str(data.get(f"persona_{f}") or "") for f in fields}
        return Persona(**values) if any(values.values()) else None


class TesterForm(forms.Form):
    prefix = "tester"

    reply = forms.CharField(
        label=_("Model reply"),
        strip=False,
        widget=mono(8),
        help_text=_("Paste a reply with [variable: op value] and [audio: …] directives."),
    )
    # What the rules see of the turn besides the reply (studio.dryrun): keyword rules read the
    # player's message, turn-count rules the turn number.
    message = forms.CharField(
        label=_("Player message (optional)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("What the player wrote before this reply: keyword rules read it."),
    )
    turn = forms.IntegerField(
        label=_("Turn number"), required=False, min_value=1, max_value=1_000_000, initial=1
    )
    state = JSONTextField(
        label=_("State before"),
        empty={},
        rows=4,
        validators=[_state_object],
        help_text=_("Variables left out keep their default."),
    )
