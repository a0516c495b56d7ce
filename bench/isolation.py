"""Leaks measured, in the repository (issue 12 §5; seed 003 "Stage Whisper": context isolation).

Run: ``.venv/bin/python bench/isolation.py``. Plays the three scripted campaigns of seed 003 (a
secret vampire among humans, a noble heiress disguised as a man, a stolen artefact after a
heist: ``tests/fixtures/gm/isolation/``) through ``engine.gm.play.play_gm_action`` with the real
SDK providers (OpenAI-compatible and Anthropic) against the loopback model server
(``tests/support/model_server.py``), which answers each director from the campaign's script.
Each script plants secret strings and has its Story Director copy a secret into a synopsis and
into a line for the player once. Prints, per campaign and provider:

- planted secret strings found in any Scene Director request on the wire, beyond what the
  script revealed to an NPC of that scene (target 0), and the planted secrets the Story
  Director's requests held (all of them: it sees everything, so the zero is not for want of
  secrets);
- planted strings in any text shown to a player whose character may not know them (target 0);
- the leak detector's catch rate on planted leaks in canned NPC lines (target 100 %) and its
  false alarms on clean lines (target ≤ 2 %);
- the cost with the Story Director skipped on plain talk against the Story Director on every
  turn, and against the one tool-calling master (priced as claude-haiku-4-5; the server caches
  prompts as each protocol does).

No real model is called. Exits 1 when a target is missed.
"""

from __future__ import annotations

import asyncio
import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.llm.anthropic import AnthropicProvider
from engine.llm.base import Provider
from engine.llm.openai_compat import OpenAICompatProvider
from engine.world import load_world
from tests.engine.gm.directors.campaigns import (
    MARKERS,
    NAMES,
    Campaign,
    Played,
    Script,
    Sent,
    detector_score,
    load_campaign,
    play_campaign,
    scene_leaks,
    shown_leaks,
    story_sightings,
)
from tests.support.model_server import ModelServer, ReceivedRequest, Reply

MODEL = "claude-haiku-4-5"
MAX_FALSE_ALARMS = 0.02


def _director(body: object) -> str:
    text = json.dumps(body, ensure_ascii=False)
    return next((d for d, marker in MARKERS.items() if marker in text), "game")


def _router(script: Script, sent: list[Sent]) -> Callable[[ReceivedRequest], Reply]:
    def route(request: ReceivedRequest) -> Reply:
        director = _director(request.body)
        sent.append(Sent(director, script.step, json.dumps(request.body, ensure_ascii=False)))
        reply = script.reply(director)
        calls = tuple(
            {"name": c["name"], "arguments": c.get("arguments", {})}
            for c in reply.get("tool_calls", [])
        )
        return Reply(text=reply.get("text", ""), tool_calls=calls)

    return route


def _providers(server: ModelServer) -> list[tuple[str, Provider]]:
    return [
        ("openai", OpenAICompatProvider("k", base_url=server.openai_url, model=MODEL)),
        ("anthropic", AnthropicProvider("k", base_url=server.anthropic_url, model=MODEL)),
    ]


def _without_directors(campaign: Campaign) -> Campaign:
    data = json.loads(campaign.world.model_dump_json(by_alias=True))
    data["gameMaster"]["settings"]["directors"] = False
    return Campaign(**{**campaign.__dict__, "world": load_world(copy.deepcopy(data))})


async def _play(server: ModelServer, provider: Provider, campaign: Campaign, every: bool) -> Played:
    server.reset()
    script, sent = Script(campaign), []
    server.route = _router(script, sent)
    played = await play_campaign(campaign, provider, script, story_every_turn=every)
    played.sent = sent
    return played


def _cents(played: Played) -> str:
    return f"{played.usage.cost * 100:.3f}¢ ({played.calls} calls)"


async def _campaign(server: ModelServer, name: str) -> bool:
    campaign = load_campaign(name)
    ok = True
    for label, provider in _providers(server):
        skip = await _play(server, provider, campaign, every=False)
        every = await _play(server, provider, campaign, every=True)
        master = await _play(server, provider, _without_directors(campaign), every=False)
        await provider.aclose()  # type: ignore[attr-defined]
        leaks, shown = (
            scene_leaks(skip) + scene_leaks(every),
            shown_leaks(skip) + shown_leaks(every),
        )
        seen = story_sightings(skip)
        scenes = sum(s.director == "scene" for s in skip.sent)
        ok = ok and not leaks and not shown and seen == set(campaign.planted)
        planted = f"{len(seen)}/{len(campaign.planted)}"
        print(f"  {name} / {label}")
        print(f"    Scene Director requests: {scenes}; secret strings in them: {len(leaks)}")
        print("    (target 0)")
        print(f"    planted secrets the Story Director saw (it sees all): {planted}")
        print(
            f"    secret strings shown to a player who may not know them: {len(shown)} (target 0)"
        )
        ratio = skip.usage.cost / every.usage.cost
        print(f"    cost with the skip: {_cents(skip)}; Story Director every turn: {_cents(every)}")
        print(f"    ratio with/without the skip: {ratio:.2f}")
        extra = skip.usage.cost / master.usage.cost
        print(f"    one tool-calling master: {_cents(master)}; the directors cost ×{extra:.2f}")
        for found in leaks + shown:
            print(f"      LEAK step {found.step} {found.where}: {found.ref} «{found.string}»")
    return ok


def _detector() -> bool:
    caught = leaks = alarms = clean = 0
    for name in NAMES:
        score = detector_score(load_campaign(name))
        caught, leaks = caught + score.caught, leaks + score.leaks
        alarms, clean = alarms + score.false_alarms, clean + score.clean
        found = f"{score.caught}/{score.leaks} planted leaks"
        print(f"  {name:8} caught {found}; {score.false_alarms}/{score.clean} false alarms")
        for line in score.missed:
            print(f"      missed: {line}")
        for line in score.alarms:
            print(f"      false alarm: {line}")
    rate = caught / leaks
    print(f"  all      catch rate {rate:.1%} (target 100 %), false alarms {alarms / clean:.1%}")
    print("           (target ≤ 2 %)")
    return caught == leaks and alarms <= MAX_FALSE_ALARMS * clean


async def main() -> int:
    print("Scripted campaigns of seed 003 through the SDKs and the loopback server:")
    ok = True
    with ModelServer() as server:
        for name in NAMES:
            ok = await _campaign(server, name) and ok
    print("Leak detector on canned NPC lines:")
    ok = _detector() and ok
    print("all targets met" if ok else "A TARGET WAS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
