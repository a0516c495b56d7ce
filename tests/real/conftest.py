"""The real-server tier (issue 37 §6): llama.cpp's ``llama-server`` serving SmolLM2 on loopback,
played through the web app's websocket. ``make test-real`` builds it (tests/real/build.py) and
runs ``pytest -m real tests/real``; without ``-m real`` (``make test``) every test here is
skipped, so the suite never builds nor waits for a model.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.play.conftest import close_thread_connections, embedded_mode  # noqa: F401
from tests.real.build import REAL
from tests.real.serve import MODEL_NAME, LlamaServer

TIMINGS = REAL / "timings.json"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = config.option.markexpr or ""
    if "real" in wanted and "not real" not in wanted:
        return
    skip = pytest.mark.skip(reason="the real-server tier runs with -m real (make test-real)")
    for item in items:
        if "real" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def llama() -> Iterator[LlamaServer]:
    with LlamaServer() as server:
        yield server


@pytest.fixture
def real_model(settings: Any, llama: LlamaServer, embedded_mode: None) -> LlamaServer:  # noqa: F811
    """The site's provider is the llama.cpp server; a CPU's cold prompt may take minutes."""
    settings.FABULA_PROVIDER = "openai"
    settings.FABULA_BASE_URL = llama.openai_url
    settings.FABULA_MODEL = MODEL_NAME
    settings.FABULA_API_KEY = "no-key"
    settings.FABULA_FIRST_TOKEN_TIMEOUT = 900.0
    settings.FABULA_LOCAL_FIRST_TOKEN_TIMEOUT = 900.0
    settings.FABULA_PROVIDER_TIMEOUT = 900.0
    settings.FABULA_PROVIDER_RETRIES = 0
    # Alice signed up today: her first-day share of the site's key (20 actions) would hand the
    # 21st turn, the one the tier stops, to the offline narrator, whose reply is whole before a
    # stop can reach it (the share is tested in tests/studio/test_evaluation_budget.py).
    settings.FABULA_NEW_ACCOUNT_DAILY_QUOTA = 0
    return llama


class Timings:
    """Per turn: seconds to the first status frame, to the first narration delta, to the end."""

    def __init__(self) -> None:
        self.turns: list[dict[str, Any]] = []

    def add(self, tier: str, **values: Any) -> None:
        self.turns.append({"tier": tier, **values})

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for tier in sorted({t["tier"] for t in self.turns}):
            rows = [t for t in self.turns if t["tier"] == tier]
            out[tier] = {"turns": len(rows)}
            for key in ("first_status", "first_delta", "total"):
                seen = sorted(r[key] for r in rows if r.get(key) is not None)
                if seen:
                    out[tier][key] = {
                        "median": round(seen[len(seen) // 2], 2),
                        "max": round(seen[-1], 2),
                    }
        return out


@pytest.fixture(scope="session")
def timings() -> Iterator[Timings]:
    kept = Timings()
    yield kept
    if kept.turns:
        REAL.mkdir(exist_ok=True)
        data = {"when": time.strftime("%Y-%m-%d %H:%M"), "summary": kept.summary(), **vars(kept)}
        TIMINGS.write_text(json.dumps(data, indent=1) + "\n")
        print("\nreal-server timings (s):", json.dumps(kept.summary(), indent=1))
