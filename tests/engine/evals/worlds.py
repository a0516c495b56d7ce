"""The demo worlds and small helpers the evaluation tests share."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from engine.evals.runner import Table
from engine.evals.transcript import Step
from engine.llm.base import Provider
from engine.llm.offline import OfflineProvider
from engine.world import WorldDefinition, load_world

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "studio" / "fixtures"


@cache
def brackenford() -> WorldDefinition:
    return load_world(json.loads((FIXTURES / "gm_demo_world.json").read_text(encoding="utf-8")))


@cache
def lantern() -> WorldDefinition:
    return load_world(json.loads((FIXTURES / "demo_world.json").read_text(encoding="utf-8")))


def worlds() -> dict[str, WorldDefinition]:
    return {"brackenford": brackenford(), "lantern": lantern()}


class Ticks:
    """A timer that moves 0.25 s each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


def table(world: WorldDefinition, provider: Provider | None = None, seed: int = 3) -> Table:
    return Table(
        world,
        provider or OfflineProvider(world.language or "en"),
        clock=lambda: datetime(2026, 5, 13, 14, 30, tzinfo=UTC),
        timer=Ticks(),
        seed=seed,
    )


def step(narration: str, **fields: object) -> Step:
    """A master's step at the Wayfarer's Rest, Ren knowing Hilda and Greta, Hilda there."""
    data: dict[str, object] = {
        "index": 0,
        "action": "I look around.",
        "narration": narration,
        "kind": "master",
        "model_calls": 1,
        "location": "the-wayfarer",
        "known_names": ["hilda", "greta"],
        "present": ["hilda"],
    }
    data.update(fields)
    return Step.from_dict(data)
