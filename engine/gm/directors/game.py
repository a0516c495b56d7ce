"""The Game Director (seed 003 "Su trabajo es manejar las mecánicas de TTRPG: tiradas, pruebas de
habilidad, seguimiento de estado … como se ejecuta en cada turno … también puede decidir si la
entrada del jugador es una continuación de la última escena o algo nuevo. Si el jugador solo
está charlando con un PNJ sin mover la trama, el Director de Juego puede saltarse el Director
de Historia por completo"; GAME_MASTER.md SW-21–SW-23).

Its mechanics are the tool loop of ``engine.gm.loop`` with the master's brief and rule sheet
plus an addendum (``game_brief``): narrate only what the engine did, say the route. The route
is then the engine's call, with the Game Director's word where the engine has none: the plot
moves whenever there is no scene yet, the scene changed (place, time of day, someone new
arrived), a tool changed the world, dice were rolled, or nobody is there to talk to; otherwise
the Game Director's ``<route>`` decides, and plain talk continues when it said nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.gm.brief import brief
from engine.gm.directors.prompts import words
from engine.gm.report import MasterTurn

Route = Literal["continue", "plot"]
PLAIN_TOOLS = frozenset({"log_event", "adjust_trust", "get_campaign_notes", "lookup_rule"})
_HINT = re.compile(r"<\s*route\s*>\s*(continue|plot)\b|\broute\s*[:=]\s*(continue|plot)\b", re.I)


def game_brief(language: str, cap: int) -> str:
    """The Game Director's fixed part: the master's brief and rule sheet, then its addendum."""
    return brief(language).fixed(cap) + "\n" + words(language).brief("game")


def route_hint(texts: Sequence[str]) -> Route | None:
    """The last route the Game Director said in its replies' text, if any."""
    found: Route | None = None
    for text in texts:
        for match in _HINT.finditer(text):
            found = "plot" if (match.group(1) or match.group(2)).lower() == "plot" else "continue"
    return found


@dataclass(frozen=True)
class RouteDecision:
    route: Route
    reasons: tuple[str, ...]


def decide_route(
    turn: MasterTurn,
    hint: Route | None,
    *,
    has_scene: bool,
    scene_changed: bool,
    newcomers: Sequence[str],
    present: Sequence[str],
    prior_rolls: int = 0,
) -> RouteDecision:
    """Whether the Story Director runs this turn (``plot``) or is skipped (``continue``)."""
    forced = []
    if scene_changed:
        forced.append("new-scene")
    elif not has_scene:
        forced.append("no-scene")
    forced += [f"newcomer:{n}" for n in newcomers]
    forced += list(
        dict.fromkeys(
            f"tool:{c.name}" for c in turn.tool_calls if c.ok and c.name not in PLAIN_TOOLS
        )
    )
    if prior_rolls or turn.rolls:
        forced.append("roll")
    if not present:
        forced.append("nobody-to-talk-to")
    if forced:
        return RouteDecision("plot", tuple(forced))
    if hint is not None:
        return RouteDecision(hint, ("game-director",))
    return RouteDecision("continue", ("plain-talk",))
