"""Read tools (seed 001 "Lo demás lo pide bajo demanda: notas de campaña (get_campaign_notes) o
una regla del SRD (lookup_rule)"): they read, never change anything.

``get_campaign_notes`` returns the campaign's ``notes`` only: the GM notes and the session plan
are the Story Director's (seed 003) and never reach the narrating master.
"""

from __future__ import annotations

from engine.gm.rulebook import rule, topics
from engine.gm.scene import Scene
from engine.gm.tools.base import Args, Tool, ToolOutcome, book, choice, params


def get_campaign_notes(scene: Scene, args: Args) -> ToolOutcome:
    notes = scene.gm.campaign.notes.strip()
    return ToolOutcome(True, {"notes": notes or book(scene).t("no_notes")})


def lookup_rule(scene: Scene, args: Args) -> ToolOutcome:
    return ToolOutcome(True, rule(str(args["topic"])))


TOOLS = [
    Tool(
        "get_campaign_notes",
        "Read the campaign notes: the world's background the master may use. Changes nothing.",
        params(),
        get_campaign_notes,
    ),
    Tool(
        "lookup_rule",
        "Read one entry of the SRD 5.1 rule sheet (checks, DCs, attacks, damage, conditions, "
        "resting, death saves…). Changes nothing.",
        params(("topic",), topic=choice("The rule to read.", topics())),
        lookup_rule,
    ),
]
