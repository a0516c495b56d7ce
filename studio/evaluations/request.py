"""What the start form asks of an evaluation (studio.evaluations.forms), cleaned.

Apart from studio.evaluations.service (which re-exports it) so that the spending check can read
it without importing the service, which builds on the spending: the dependency runs one way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from studio.models import WorldVersion


@dataclass(frozen=True)
class Request:
    """What the start form asked for, cleaned."""

    kind: str
    model_keys: list[str]
    version: WorldVersion | None = None
    route: list[str] = field(default_factory=list)
    games: int = 1
    actions: int = 10
    player: str = "offline"
    judge: str = "detectors"
    budget: Decimal = Decimal("1")
    secrets: list[str] = field(default_factory=list)
    canaries: bool = True
