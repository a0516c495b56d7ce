"""What the turn really did, for the closure check (seed 001 "Comprobación del cierre"), and the
narration read against it.

``TurnFacts`` is what the loop knows: the tool calls with their outcomes, the rolls, who plays
and who else is a player; optionally the master's own structured claims (``log_event``'s
``claims``). ``Reading`` is one narration analysed once for every rule:
its clauses, its mentions resolved to the world's entities and its events.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.gm.closure_rules.entities import Mention, find_mentions, index
from engine.gm.closure_rules.events import Event, extract
from engine.gm.closure_rules.text import Doc, read_doc
from engine.gm.dice import Roll
from engine.gm.scene import Scene
from engine.gm.tools import LOG_EVENT, ToolCall, ToolOutcome

Call = tuple[ToolCall, ToolOutcome]


@dataclass(frozen=True)
class TurnFacts:
    """What the turn really did, for the check."""

    tool_calls: list[Call]
    rolls: list[Roll]
    character_id: str
    player_character_ids: list[str]  # other players' characters
    language: str
    claims: Mapping[str, Any] | None = None  # log_event's structured claims, when it gave any


@dataclass
class Reading:
    doc: Doc
    mentions: list[Mention]
    events: list[Event]
    facts: TurnFacts
    scene: Scene

    def of(self, *keys: str, quoted: bool | None = False) -> list[Event]:
        """The asserted events of these classes (narrator's words only by default)."""
        return [
            e
            for e in self.events
            if e.key in keys and e.asserted and (quoted is None or e.quoted == quoted)
        ]

    def ok_calls(self) -> list[Call]:
        return ok_calls(self.facts)


def ok_calls(facts: TurnFacts) -> list[Call]:
    return [(c, o) for c, o in facts.tool_calls if o.ok and c.name != LOG_EVENT]


def read(narration: str, facts: TurnFacts, scene: Scene) -> Reading:
    keep = index(scene.gm, facts.language).han if facts.language == "zh" else ()
    doc = read_doc(narration, facts.language, keep)
    mentions = find_mentions(doc, scene.gm)
    return Reading(doc, mentions, extract(doc, mentions), facts, scene)
