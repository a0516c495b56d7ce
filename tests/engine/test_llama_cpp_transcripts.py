"""What llama.cpp's own server really sent, replayed over the wire (issue 37 §6).

``tests/fixtures/llama_cpp/*.json`` are ``llama-server --jinja`` serving SmolLM2-135M, recorded
by ``tests/real/record.py`` (the raw SSE events, status and content type, and the server's log
lines about the request). The loopback model server (``tests.support.model_server.Transcript``)
sends them byte for byte to the engine's real OpenAI-compatible provider, so ``make test``
covers the quirks without building llama.cpp: a named ``tool_choice`` it does not take, a master
that answers in text, a reply cut inside a directive by the output cap.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.gm import steps
from engine.gm.loop import MasterTurn, run_master
from engine.gm.perception import perceive, scene_context
from engine.llm.capabilities import Capabilities
from engine.llm.openai_compat import OpenAICompatProvider
from engine.session import SessionState
from engine.turn import Delta, Done, PlayerAction, Turn
from engine.world import load_world
from tests.conftest import FakeClock, SeededRng
from tests.engine.gm.worlds import demo_world, new_state, scene_for
from tests.support.model_server import ModelServer, Transcript

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llama_cpp"
PLAIN_WORLD = Path(__file__).resolve().parents[2] / "studio" / "fixtures" / "demo_world.json"
INTERNAL = re.compile(r"</?(current-state|persona|behavior-rules|story-summary)|\[health\s*:", re.I)
LLAMA_CPP = Capabilities(named_tool_choice=False, required_tool_choice=True, probed=True)


def transcript(name: str) -> tuple[dict[str, Any], Transcript]:
    path = FIXTURES / f"{name}.json"
    if not path.exists():
        pytest.skip(f"{path.name} not recorded yet: .venv/bin/python -m tests.real.record")
    data = json.loads(path.read_text(encoding="utf-8"))
    events = tuple(event.encode() for event in data["events"])
    return data, Transcript(data["status"], data["content_type"], events)


def master(server: ModelServer, caps: Capabilities | None) -> MasterTurn:
    world = demo_world()
    scene = scene_for(world, new_state(world), "ren")
    assert world.game_master is not None
    context = scene_context(perceive(world.game_master, scene.state, "ren"))
    provider = OpenAICompatProvider("k", model="m", base_url=server.openai_url, max_retries=0)

    async def run() -> MasterTurn:
        steps.live(None, caps)
        return await run_master(scene, "I ask Hilda for a room", provider, context=context)

    return asyncio.run(run())


@pytest.mark.parametrize("name", ["named_tool_choice", "master_text_only"])
@pytest.mark.parametrize("caps", [None, LLAMA_CPP], ids=["assumed", "probed"])
def test_a_master_turn_on_llama_cpps_answers_ends_with_a_narration_and_nothing_internal(
    name: str, caps: Capabilities | None
) -> None:
    _, answer = transcript(name)
    with ModelServer() as server:
        server.route = lambda request: answer
        turn = master(server, caps)

    assert turn.narration.strip()
    assert not INTERNAL.search(turn.narration)
    assert turn.model_calls >= 1


def test_the_recorded_named_choice_was_answered_as_if_it_were_auto() -> None:
    data, _ = transcript("named_tool_choice")

    assert data["status"] == 200 and data["request"]["tool_choice"]["function"]
    assert any("tool_choice" in line for line in data["server_log"]) or data["text"]


def test_a_plain_reply_cut_inside_a_directive_shows_and_applies_nothing_of_it() -> None:
    data, answer = transcript("cut_off_directive")
    assert "[" in data["text"] and "]" not in data["text"][data["text"].rfind("[") :]
    world = load_world(PLAIN_WORLD)
    state = SessionState.initial(world)
    with ModelServer() as server:
        server.script([answer])
        provider = OpenAICompatProvider("k", model="m", base_url=server.openai_url, max_retries=0)
        action = PlayerAction("message", "The goblin swings at me.")
        turn = Turn(world, state, [], action, provider, clock=FakeClock(), rng=SeededRng())

        async def drain() -> list[object]:
            return [event async for event in turn.events()]

        events = asyncio.run(drain())

    shown = "".join(e.text for e in events if isinstance(e, Delta))
    (done,) = [e for e in events if isinstance(e, Done)]
    assert shown == done.result.text and not INTERNAL.search(shown)
    assert done.result.raw.rstrip().endswith(data["text"].rstrip()[-6:])
    assert done.result.state.values["health"] == state.values["health"]
