"""Prices per model, to put a cost on each call (seed 001 "Coste por acción").

A table maps model-name globs to USD per million tokens for plain input, output, cache reads
and cache writes. The most specific pattern wins: an exact name, then the longest glob. Names
match case-insensitively and with or without a router prefix (``anthropic/claude-…``).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass

from engine.llm.base import Usage

PER_MILLION = 1_000_000


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens; a missing cache price falls back to the input price."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, float | None]) -> ModelPrice:
        """Read ``{input, output, cache_read?, cache_write?}``; a missing price counts as 0."""
        return cls(
            input=float(data.get("input") or 0),
            output=float(data.get("output") or 0),
            cache_read=_optional_float(data.get("cache_read")),
            cache_write=_optional_float(data.get("cache_write")),
        )

    def to_dict(self) -> dict[str, float | None]:
        return {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
        }

    def cost(self, usage: Usage) -> float:
        cache_read = self.input if self.cache_read is None else self.cache_read
        cache_write = self.input if self.cache_write is None else self.cache_write
        total = (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_read_tokens * cache_read
            + usage.cache_write_tokens * cache_write
        )
        return round(total / PER_MILLION, 10)


def _optional_float(value: float | None) -> float | None:
    return None if value is None else float(value)


class PriceTable:
    """Model-glob → ``ModelPrice``; unknown models cost 0."""

    def __init__(self, prices: Mapping[str, ModelPrice | Mapping[str, float | None]]) -> None:
        self._prices: dict[str, ModelPrice] = {
            pattern.lower(): price if isinstance(price, ModelPrice) else ModelPrice.from_dict(price)
            for pattern, price in prices.items()
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Mapping[str, float | None]]) -> PriceTable:
        """Read ``{glob: {input, output, cache_read, cache_write}}`` as found in settings."""
        return cls(data)

    def to_dict(self) -> dict[str, dict[str, float | None]]:
        return {pattern: price.to_dict() for pattern, price in self._prices.items()}

    def price_for(self, model: str) -> ModelPrice | None:
        """The price of ``model``, or None when no pattern matches."""
        name = model.lower()
        names = {name, name.rsplit("/", 1)[-1]}
        for candidate in names:
            if candidate in self._prices:
                return self._prices[candidate]
        matches = [
            pattern
            for pattern in self._prices
            if any(fnmatch.fnmatchcase(candidate, pattern) for candidate in names)
        ]
        if not matches:
            return None
        return self._prices[max(matches, key=lambda pattern: (len(pattern), pattern))]

    def cost(self, usage: Usage, model: str) -> float:
        """The USD cost of ``usage`` on ``model``; 0.0 for a model the table does not know."""
        price = self.price_for(model)
        return price.cost(usage) if price else 0.0


# List prices at the time of writing; deployments pass their own table through settings.
DEFAULT_PRICES = PriceTable(
    {
        "claude-opus-4-5*": {"input": 5, "output": 25, "cache_read": 0.5, "cache_write": 6.25},
        "claude-opus-4*": {"input": 15, "output": 75, "cache_read": 1.5, "cache_write": 18.75},
        "claude-sonnet-4*": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75},
        "claude-haiku-4*": {"input": 1, "output": 5, "cache_read": 0.1, "cache_write": 1.25},
        "claude-3-5-haiku*": {"input": 0.8, "output": 4, "cache_read": 0.08, "cache_write": 1},
        "gpt-4o*": {"input": 2.5, "output": 10, "cache_read": 1.25},
        "gpt-4o-mini*": {"input": 0.15, "output": 0.6, "cache_read": 0.075},
        "gpt-4.1*": {"input": 2, "output": 8, "cache_read": 0.5},
        "gpt-4.1-mini*": {"input": 0.4, "output": 1.6, "cache_read": 0.1},
        "gpt-4.1-nano*": {"input": 0.1, "output": 0.4, "cache_read": 0.025},
        "gpt-5*": {"input": 1.25, "output": 10, "cache_read": 0.125},
        "gpt-5-mini*": {"input": 0.25, "output": 2, "cache_read": 0.025},
        "gpt-5-nano*": {"input": 0.05, "output": 0.4, "cache_read": 0.005},
    }
)
