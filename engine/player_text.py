"""The player's words inside the creator's text are quoted, never read as directives (seeds 000,
002: directives are the narrator's, never the player's).

A greeting is the creator's text, parsed for directives like a reply, and its macros put the
player's words into it: ``{{user}}`` and the persona fields, ``{{lastUserMessage}}``. A persona
named ``[gold: +999]`` must stay a name. So while the macros expand and the directives are read,
each of those values is a placeholder that no directive syntax can match; afterwards the player's
words go back where their placeholders ended up: in the shown text and inside the creator's own
directives, so ``[hero: set "{{user}}"]`` still stores the name as typed.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from engine.directives import AudioCue, ParseResult, extract_directives
from engine.macros import MacroContext
from engine.session import Message, Persona
from engine.state import Effect, Skipped, apply_effects, copy_value
from engine.world import WorldDefinition

_OPEN, _CLOSE = "\ue0f5", "\ue0f6"  # private-use characters: never typed, never directive syntax
_HELD = re.compile(f"{_OPEN}(\\d+){_CLOSE}")


class PlayerWords:
    """The player's values held out of a text while it is parsed (placeholder ``n`` → text)."""

    def __init__(self) -> None:
        self.held: list[str] = []

    def hold(self, text: str) -> str:
        if not text:
            return text
        self.held.append(text)
        return f"{_OPEN}{len(self.held) - 1}{_CLOSE}"

    def restore(self, value: Any) -> Any:
        """``value`` with the player's words back in every string, at any depth."""
        if isinstance(value, str):
            if _OPEN not in value:
                return value
            return _HELD.sub(lambda m: self._word(m), value)
        if isinstance(value, list):
            return [self.restore(item) for item in value]
        if isinstance(value, tuple):
            return tuple(self.restore(item) for item in value)
        if isinstance(value, dict):
            return {self.restore(k): self.restore(v) for k, v in value.items()}
        return value

    def _word(self, match: re.Match[str]) -> str:
        index = int(match.group(1))
        return self.held[index] if index < len(self.held) else ""

    def shield(self, context: MacroContext) -> MacroContext:
        """``context`` with the persona and the player's messages held out."""
        persona = context.persona
        if persona is not None:
            persona = Persona(
                name=self.hold(persona.name),
                appearance=self.hold(persona.appearance),
                personality=self.hold(persona.personality),
                backstory=self.hold(persona.backstory),
            )
        messages = [
            Message(m.role, self.hold(m.content)) if m.role == "user" else m
            for m in context.messages
        ]
        user = self.hold(context.user) if context.user else context.user
        return dataclasses.replace(context, persona=persona, messages=messages, user=user)


def parse_held(
    world: WorldDefinition, text: str, state: dict[str, Any], words: PlayerWords
) -> ParseResult:
    """`engine.directives.parse_reply` over ``text`` whose player words are held by ``words``:
    only the text around them can hold directives; they come back in the result."""
    extraction = extract_directives(world, text)
    restore = words.restore
    effects = [
        Effect(e.variable_id, restore(e.path), e.operation, restore(e.value), restore(e.source))
        for e in extraction.effects
    ]
    audio = [
        AudioCue(restore(a.track_id), a.action, a.value, restore(a.chain), restore(a.source))
        for a in extraction.audio
    ]
    values = {key: copy_value(item) for key, item in state.items()}
    for variable in world.variables:
        if variable.id not in values:
            values[variable.id] = copy_value(variable.default_value)
    changes, refused = apply_effects(world, values, effects)
    skipped = [Skipped(restore(s.source), s.reason) for s in extraction.skipped]
    return ParseResult(
        text=restore(extraction.text),
        state=values,
        audio=audio,
        effects=effects,
        skipped=skipped + refused,
        changes=changes,
    )
