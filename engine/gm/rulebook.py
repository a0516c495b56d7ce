"""The rule sheet the master reads on demand (seed 001 "una regla del SRD (lookup_rule)", "chuleta
de reglas"; decision 8: SRD 5.1 basics).

``engine/gm/srd/rules.json`` is a short sheet written for the project: ability checks, DCs,
skills, advantage, attacks, damage, hit points, death saves, stabilising, healing, resting,
conditions, hidden and social checks. ``rule_sheet()`` is the whole sheet as one stable text
for the cached part of the master's prompt; ``rule(topic)`` one entry for ``lookup_rule``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

RULES_PATH = Path(__file__).parent / "srd" / "rules.json"


@cache
def _rules() -> dict[str, dict[str, str]]:
    data = json.loads(RULES_PATH.read_text(encoding="utf-8"))
    return {key: dict(value) for key, value in data["rules"].items()}


def topics() -> list[str]:
    """The topics of the sheet, sorted (they are an enum in a cached tool schema)."""
    return sorted(_rules())


def rule(topic: str) -> dict[str, str]:
    """One entry: ``{"topic", "title", "text"}``; KeyError for an unknown topic."""
    entry = _rules()[topic]
    return {"topic": topic, "title": entry["title"], "text": entry["text"]}


def rule_sheet() -> str:
    """The whole sheet as text, byte for byte the same on every call."""
    return "\n".join(f"{entry['title']}: {entry['text']}" for entry in _rules().values())
