"""The engine's messages in the reader's language (issue 35 §4).

``engine.messages`` gives each message a code, parameters and the English text; the English
template of the code is the msgid of Django's catalogues (locale/*/LC_MESSAGES/django.po), so the
translation is filled with the same parameters. A message without a translation, or whose
translation does not fit its parameters, is shown in English rather than not at all.
"""

from __future__ import annotations

from django.utils.translation import gettext

from engine.messages import LISTS, NESTED, TEMPLATES, Message, coded


def translated(message: Message | str) -> str:
    """``message`` (or an English text of the engine) in the active language."""
    said = coded(message) if isinstance(message, str) else message
    if said.code == "text":
        return said.english
    params = {k: _param(k, v) for k, v in said.params.items()}
    try:
        return gettext(TEMPLATES[said.code]).format(**params)
    except (KeyError, IndexError, ValueError):
        return said.english


def _param(name: str, value: str) -> str:
    if name in NESTED:
        return translated(value)
    if name in LISTS:
        return ", ".join(translated(part) for part in value.split(", "))
    return value


def translated_line(line: str) -> str:
    """A ``path: message`` line of the engine with the message translated, the path kept."""
    if coded(line).code != "text":
        return translated(line)
    path, sep, message = line.partition(": ")
    return f"{path}: {translated(message)}" if sep else line
