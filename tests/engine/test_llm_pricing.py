"""Prices per model and the cost of a call."""

from __future__ import annotations

import pytest

from engine.llm import DEFAULT_PRICES, ModelPrice, PriceTable, Usage

USAGE = Usage(
    input_tokens=1_000, output_tokens=500, cache_read_tokens=10_000, cache_write_tokens=2_000
)


def test_cost_prices_each_bucket_per_million_tokens():
    table = PriceTable({"m": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}})

    cost = table.cost(USAGE, "m")

    assert cost == pytest.approx((1_000 * 3 + 500 * 15 + 10_000 * 0.3 + 2_000 * 3.75) / 1e6)


def test_missing_cache_prices_fall_back_to_the_input_price():
    table = PriceTable({"m": {"input": 2, "output": 8}})

    assert table.cost(USAGE, "m") == pytest.approx((13_000 * 2 + 500 * 8) / 1e6)


def test_the_most_specific_pattern_wins():
    table = PriceTable(
        {"gpt-4o*": {"input": 2.5, "output": 10}, "gpt-4o-mini*": {"input": 0.15, "output": 0.6}}
    )

    assert table.price_for("gpt-4o-mini-2024-07-18") == ModelPrice(0.15, 0.6)
    assert table.price_for("gpt-4o-2024-08-06") == ModelPrice(2.5, 10)


def test_router_prefixes_and_case_do_not_matter():
    assert DEFAULT_PRICES.price_for("anthropic/Claude-Sonnet-4-5") == DEFAULT_PRICES.price_for(
        "claude-sonnet-4-5"
    )
    assert DEFAULT_PRICES.price_for("claude-sonnet-4-5") is not None


def test_an_unknown_model_costs_nothing():
    assert DEFAULT_PRICES.price_for("my-local-llama") is None
    assert DEFAULT_PRICES.cost(USAGE, "my-local-llama") == 0.0


def test_a_table_round_trips_through_its_dict_form():
    table = PriceTable({"m*": {"input": 1, "output": 2, "cache_read": 0.1}})

    assert PriceTable.from_dict(table.to_dict()).to_dict() == table.to_dict()
