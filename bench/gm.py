"""Game-master engine moves at scale and the tool-calling master's prompt (issues "Game master I"
and "Game master II").

Run: ``.venv/bin/python bench/gm.py``. Prints:

- the median and p95 latency of engine moves played through ``engine.gm.play.play_gm_action``
  (state copy, scene context and move included) at 50 locations × 200 NPCs × 1,000 events, and
  the size of the context in estimated tokens (targets < 5 ms, < 2,000 tokens);
- tokens per master call on the demo world (studio/fixtures/gm_demo_world.json) with the
  perception-trimmed scene and without it (the whole ``gameMaster`` block serialised as the
  context, secrets excluded), and the ratio (seed 001 measured −34 %);
- the master's fixed part (brief, rules, tool schemas) per language before issue 37 §4 (the SRD
  sheet inline, all 29 full schemas) and after (rules by ``lookup_rule``, the tools the demo's
  opening scene offers, compact schemas), in estimated tokens;
- the share of a player's actions on the demo route resolved at zero cost (bench/gm_route.py);
- the cached share of the prompt over a 20-action route of the demo played by the tool loop
  through the real SDKs against the loopback model server (tests/support/model_server), for
  Anthropic (explicit cache breakpoints) and OpenAI (automatic prefix caching); target ≥ 85 %.

No real model is called.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gm_master import cache_report, trimming_report
from bench.gm_route import report as route_report
from engine.gm.brief import brief
from engine.gm.perception import perceive, scene_context
from engine.gm.play import ensure_gm_state, play_gm_action
from engine.gm.scene import Scene
from engine.gm.state import log_event
from engine.gm.tools import tool_schemas
from engine.gm.tools.offer import offered_schemas
from engine.gm.words import lexicon
from engine.session import SessionState
from engine.tokens import estimate_tokens
from engine.world import WorldDefinition, load_world

LOCATIONS, NPCS, EVENTS, MOVES = 50, 200, 1000, 200
TARGET_MS, TARGET_TOKENS = 5.0, 2000


def big_world() -> WorldDefinition:
    locations: list[dict[str, Any]] = []
    for n in range(LOCATIONS):
        exits = [{"direction": "east", "to": f"place-{(n + 1) % LOCATIONS}"}]
        exits.append({"direction": "west", "to": f"place-{(n - 1) % LOCATIONS}"})
        locations.append(
            {
                "id": f"place-{n}",
                "name": f"Place {n}",
                "description": "A square with a fountain, stalls and a crooked tower. " * 2,
                "ambient": ["Pigeons and gossip."],
                "exits": exits,
                "points": [{"id": f"p{k}", "name": f"fountain {k}"} for k in range(3)],
            }
        )
    npcs = [
        {
            "id": f"npc-{n}",
            "name": f"Person {n}",
            "trade": "baker",
            "publicDescription": "Flour on the sleeves, a quick smile.",
            "description": "Chatty and curious.",
            "secret": {"text": f"SECRET {n}", "tellsTo": "an ally"},
            "disclosures": {"stranger": "Bread is dear this year.", "friend": "The mayor cheats."},
            "location": f"place-{n % LOCATIONS}",
        }
        for n in range(NPCS)
    ]
    items = [
        {"id": f"item-{n}", "name": f"thing {n}", "at": {"location": f"place-{n % LOCATIONS}"}}
        for n in range(NPCS)
    ]
    characters = [{"id": "hero", "name": "Hero", "location": "place-0"}]
    gm = {"locations": locations, "npcs": npcs, "items": items, "characters": characters}
    return load_world({"name": "Bench", "language": "en", "gameMaster": gm})


async def moves(world: WorldDefinition, state: SessionState) -> list[float]:
    timings = []
    for n in range(MOVES):
        action = "go east" if n % 2 == 0 else "go west"
        started = time.perf_counter()
        result = await play_gm_action(world, state, "hero", action)
        timings.append((time.perf_counter() - started) * 1000)
        assert result.kind == "engine" and result.model_calls == 0
        state = result.state
    return timings


def fixed_part_report(cap: int = 8) -> None:
    """Tokens of the master's fixed part per language, before and after issue 37 §4."""
    world = load_world(Path(__file__).resolve().parents[1] / "studio/fixtures/gm_demo_world.json")
    assert world.game_master is not None
    gm_state = ensure_gm_state(world, SessionState.initial(world), seed=1)
    print("master's fixed part (brief + rules + tool schemas), estimated tokens:")
    for who in world.game_master.characters:
        where = gm_state.characters[who.id].location
        for language in ("en", "es", "zh"):
            words = brief(language)
            scene = Scene(world.game_master, gm_state, who.id, lexicon(language), lexicon("en"))
            offered = offered_schemas(scene, "I look around")
            full = json.dumps(tool_schemas(), ensure_ascii=False)
            before = words.fixed(cap, sheet=True) + full
            after = words.fixed(cap) + json.dumps(offered, ensure_ascii=False)
            old, new = estimate_tokens(before), estimate_tokens(after)
            print(
                f"  {language} ({where}): before {old} (29 tools), after {new} "
                f"({len(offered)} tools), {(new - old) / old:+.0%}" + _real_tokens(before, after)
            )


def _real_tokens(before: str, after: str) -> str:
    """With ``LLAMA_URL`` (a running llama-server, e.g. ``python -m tests.real.serve``), the
    same texts counted by the served model's own tokenizer (its ``/tokenize``)."""
    url = os.environ.get("LLAMA_URL")
    if not url:
        return ""
    counts = []
    for text in (before, after):
        answer = httpx.post(f"{url.rstrip('/')}/tokenize", json={"content": text}, timeout=60)
        counts.append(len(answer.json()["tokens"]))
    return f"; model tokenizer: {counts[0]} → {counts[1]}"


def main() -> int:
    world = big_world()
    state = SessionState.initial(world)
    gm_state = ensure_gm_state(world, state, seed=1)
    for n in range(EVENTS):
        log_event(gm_state, "talk", "hero", "place-0", f"Event {n} happens.", seen_by=["hero"])
    assert world.game_master is not None
    context = scene_context(perceive(world.game_master, gm_state, "hero"))
    timings = asyncio.run(moves(world, state))
    median = statistics.median(timings)
    p95 = sorted(timings)[int(len(timings) * 0.95)]
    tokens = estimate_tokens(context)
    print(f"world: {LOCATIONS} locations, {NPCS} NPCs, {EVENTS} events")
    print(f"engine move: median {median:.2f} ms, p95 {p95:.2f} ms (target < {TARGET_MS} ms)")
    print(f"scene context: {tokens} tokens (target < {TARGET_TOKENS})")
    print()
    fixed_part_report()
    print()
    trimming_report()
    print()
    route_report()
    print()
    cached = asyncio.run(cache_report())
    moves_ok = median < TARGET_MS and tokens < TARGET_TOKENS
    return 0 if moves_ok and cached else 1


if __name__ == "__main__":
    sys.exit(main())
