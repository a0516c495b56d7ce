"""The vampire campaign with canary secrets, and a Story Director that tries to pass them to
the player out of character (issue 32, finding 6): paraphrased, in Spanish, letters spaced
apart. Shared by the engine, CLI and play tests of the line out of character."""

from __future__ import annotations

import json
import re
from typing import Any

from engine.gm.mentions import fold
from engine.world import WorldDefinition, load_world
from tests.engine.gm.directors.campaigns import WORLDS
from tests.engine.gm.directors.support import close, say, story

CANARIES = ("QUENDORIL", "VELLAMOTH")
GM_NOTES = "GM ONLY: the QUENDORIL reliquary beneath the altar burns the undead."
GRETA = "Greta poisoned her first husband, VELLAMOTH, with foxglove and was never caught."
ECHOES = (
    "Between us: the woman who bakes your bread once sent a spouse to an early grave with a "
    "garden flower.",
    "Ojo: Greta envenenó a su primer marido con dedalera, y el relicario bajo el altar quema a "
    "los no muertos.",
    "Q u e n d o r i l rests under the altar; ask V.E.L.L.A.M.O.T.H's ghost.",
)
FRAGMENTS = ("early grave", "garden flower", "dedalera", "envenen", "relicario", "no muertos")
OOC_LINE = "This scene can end whenever you like."
NOTES = f"<notes>{' '.join(ECHOES)}</notes>"  # kept for its own later requests only


def canary_data() -> dict[str, Any]:
    """The vampire campaign, its GM notes and Greta's secret holding the canaries."""
    data: dict[str, Any] = json.loads((WORLDS / "vampire.json").read_text(encoding="utf-8"))
    gm = data["gameMaster"]
    gm["campaign"]["gmNotes"] = GM_NOTES
    greta = next(n for n in gm["npcs"] if n["id"] == "greta")
    greta["secret"]["text"] = GRETA
    return data


def canary_world() -> WorldDefinition:
    return load_world(canary_data())


def sloppy_story(echo: str) -> dict[str, str]:
    """A Story Director answer with a clean synopsis and ``echo`` as its line for the player."""
    return story("Greta serves bread.", "greta", "bakery", more=f"<ooc>{echo}</ooc>{NOTES}")


def turn_replies(echo: str) -> dict[str, list[dict[str, Any]]]:
    """Each director's replies for one plot turn whose Story Director asks for a line."""
    return {
        "game": [close("Mira greets Greta.", "plot")],
        "story": [sloppy_story(echo)],
        "scene": [say("greta", "Morning! Rye or barley?")],
        "ooc": [{"text": OOC_LINE}],
    }


def leaked(text: str) -> list[str]:
    """The canaries and echoes in ``text``: whole, folded, or with the letters run together."""
    folded = fold(text)
    letters = re.sub(r"[^a-z]", "", folded)
    found = [c for c in CANARIES if c.lower() in letters]
    found += [e for e in ECHOES if fold(e) in folded]
    return found + [f for f in FRAGMENTS if f in folded]
