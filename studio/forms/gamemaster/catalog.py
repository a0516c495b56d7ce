"""What the game-master editor's pickers offer: the ids and names of the block's records."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.gm.vocab import ABILITIES, SKILLS
from studio.labels import label_of

CHECKS = (*SKILLS, *ABILITIES)
Options = list[tuple[str, str]]


@dataclass
class Catalog:
    """What the pickers offer: the ids (and names) of the block's records, and the variables."""

    options: dict[str, Options] = field(default_factory=dict)

    @classmethod
    def of(cls, block: Mapping[str, Any] | None, variables: Iterable[str] = ()) -> Catalog:
        block = block or {}
        locations, npcs = _named(block, "locations"), _named(block, "npcs")
        characters, places = _named(block, "characters"), _places(block)
        where = [(f"location:{v}", f"📍 {label}") for v, label in places]
        where += [(f"npc:{v}", f"🧑 {label}") for v, label in npcs]
        where += [(f"character:{v}", f"🎭 {label}") for v, label in characters]
        anchors = [(f"location:{v}", f"📍 {n}") for v, n in locations]
        anchors += [(f"npc:{v}", f"🧑 {n}") for v, n in npcs]
        debts = [(v, v) for v, _name in _named(block, "debts")]
        options: dict[str, Options] = {
            "locations": locations,
            "places": places,
            "where": where,
            "anchors": anchors,
            "npcs": npcs,
            "characters": characters,
            "parties": characters + npcs,
            "items": _named(block, "items"),
            "clues": _named(block, "clues"),
            "quests": _named(block, "quests", "title"),
            "debts": debts,
            "variables": [(v, v) for v in variables],
            "checks": [(c, str(label_of(c))) for c in CHECKS],
        }
        return cls(options)


def _named(block: Mapping[str, Any], key: str, label: str = "name") -> Options:
    rows = [r for r in block.get(key) or [] if isinstance(r, dict) and r.get("id")]
    return [(str(r["id"]), _label(r["id"], r.get(label))) for r in rows]


def _places(block: Mapping[str, Any]) -> Options:
    """Each location, and each of its points as ``location/point``."""
    places: Options = []
    for location in block.get("locations") or []:
        if not isinstance(location, dict) or not location.get("id"):
            continue
        lid, lname = str(location["id"]), _label(location["id"], location.get("name"))
        places.append((lid, lname))
        points = [*(location.get("points") or []), *(location.get("hiddenPoints") or [])]
        for point in points:
            if isinstance(point, dict) and point.get("id"):
                name = point.get("name") or point["id"]
                places.append((f"{lid}/{point['id']}", f"{lname} › {name}"))
    return places


def _label(ident: Any, name: Any) -> str:
    return f"{name} ({ident})" if name and name != ident else str(ident)
