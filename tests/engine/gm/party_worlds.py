"""The demo world with its player characters placed for multiplayer tests: Ren and Ada at the
inn (Ada starts in the square in the demo), and a third character, Cai, far away at the mill."""

from __future__ import annotations

import copy
from typing import Any

from engine.gm.play import GMAction, GMActionResult
from engine.session import SessionState
from engine.world import WorldDefinition, load_world
from tests.engine.gm.worlds import demo_data, new_state, play


def party_world(
    language: str = "en",
    ada: str = "the-wayfarer",
    cai: str = "old-mill",
    *,
    acquainted: bool = True,
    **more: Any,
) -> WorldDefinition:
    """``acquainted``: the three know each other's names from the start (a party); else they
    are strangers until they meet, as in the demo (issue 33 §5)."""
    data = copy.deepcopy(demo_data())
    data["language"] = language
    gm = data["gameMaster"]
    for sheet in gm["characters"]:
        if sheet["id"] == "ada":
            sheet["location"] = ada
    cai = {"id": "cai", "name": "Cai Morrow", "location": cai, "hp": 8, "maxHp": 8}
    gm["characters"].append(cai)
    if acquainted:
        for sheet in gm["characters"]:
            others = [c["id"] for c in gm["characters"] if c["id"] != sheet["id"]]
            sheet["knownNames"] = [*sheet.get("knownNames", []), *others]
    gm.update(more)
    return load_world(data)


def inn_world(**more: Any) -> WorldDefinition:
    """The party world with Osric the shopkeeper at the inn too: a stranger to Ren and Ada,
    whose name neither has learnt (issue 32)."""
    npcs = copy.deepcopy(demo_data()["gameMaster"]["npcs"])
    for npc in npcs:
        if npc["id"] == "osric":
            npc["fixedPlace"] = {"location": "the-wayfarer"}
    return party_world(npcs=npcs, **more)


class Table:
    """One session, several players: ``table.act("ada", "look")``."""

    def __init__(self, world: WorldDefinition, **options: Any) -> None:
        self.world, self.options = world, options
        self.state: SessionState = new_state(world)

    def act(self, who: str, action: GMAction, **options: Any) -> GMActionResult:
        result = play(self.world, self.state, action, who, **{**self.options, **options})
        self.state = result.state
        return result
