"""The tool-calling master's prompt on the demo world (issue "Game master II", "Done when"): tokens
per master call with and without perception trimming, and the cached share of the prompt over a
20-action route. Run through ``bench/gm.py``.

"With trimming" is the loop's real first request (``engine.gm.loop.master_request``): the fixed
part (brief, rule sheet, tool schemas) and the perceived scene. "Without" is the same request
with the whole ``gameMaster`` block serialised as the context, secrets excluded (GM notes, the
session plan, NPC secrets, hidden points, the characters' secret lines). Both are averaged over
every location of the demo, with each character standing there.

The route plays 20 master actions (engine moves between them, which call no model) through
``engine.gm.play.play_gm_action`` with the real SDK providers against the loopback server, whose
prompt cache follows each protocol's rules; every third action first reads a rule, so some turns
take two calls. The share is cache reads over all prompt tokens, every call of the loop counted.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from engine.gm.loop import master_request
from engine.gm.perception import perceive, scene_context
from engine.gm.play import ensure_gm_state, play_gm_action
from engine.gm.scene import Scene
from engine.gm.words import lexicon
from engine.llm.anthropic import AnthropicProvider
from engine.llm.base import Provider, Usage
from engine.llm.openai_compat import OpenAICompatProvider
from engine.llm.scripted import request_tokens
from engine.session import SessionState
from engine.world import WorldDefinition, load_world
from tests.engine.gm.worlds import DEMO_PATH
from tests.support.model_server import ModelServer, ReceivedRequest, Reply

TARGET_SHARE = 0.85
SEED_TRIM = -0.34  # seed 001: trimming the context cut the cost by 34 % on average
NARRATION = "You take a moment; nothing around you stirs."
RULE = {"name": "lookup_rule", "arguments": {"topic": "advantage"}}
MOVES = ["go west", "go east", "go east", "go west", "go north", "go south"]  # a circuit
ACTIONS = [
    "I hum an old song",
    "I stretch my back",
    "I rub my tired eyes",
    "I whistle a tune",
    "I count my coins",
    "I straighten my cloak",
    "I murmur a prayer",
    "I tap my mace",
    "I breathe in the air",
    "I listen for a while",
]


def demo() -> tuple[WorldDefinition, dict[str, Any]]:
    data = json.loads(DEMO_PATH.read_text(encoding="utf-8"))
    return load_world(copy.deepcopy(data)), data


def without_secrets(block: dict[str, Any]) -> dict[str, Any]:
    """The gameMaster block with every secret taken out."""
    out = copy.deepcopy(block)
    campaign = out.get("campaign") or {}
    campaign.pop("gmNotes", None)
    campaign.pop("sessionPlan", None)
    for npc in out.get("npcs", []):
        npc.pop("secret", None)
    for place in out.get("locations", []):
        place.pop("hiddenPoints", None)
    for character in out.get("characters", []):
        (character.get("full") or {}).pop("secrets", None)
    return out


def trimming_report() -> float:
    """Print tokens per master call with and without trimming; returns the change (< 0: less)."""
    world, data = demo()
    gm = world.game_master
    assert gm is not None
    whole = json.dumps(without_secrets(data["gameMaster"]), ensure_ascii=False)
    trimmed, untrimmed, contexts = [], [], []
    for character in gm.characters:
        state = SessionState.initial(world)
        gm_state = ensure_gm_state(world, state, 1)
        for place in gm.locations:
            view = perceive(gm, gm_state, character.id, location=place.id)
            context = scene_context(view)
            me = gm_state.characters[character.id]
            me.location = place.id
            scene = Scene(gm, gm_state, character.id, lexicon("en"), lexicon("en"))
            action = "I hum an old song"
            trimmed.append(request_tokens(master_request(scene, action, context, 8)))
            untrimmed.append(request_tokens(master_request(scene, action, whole, 8)))
            contexts.append(request_tokens(master_request(scene, action, "", 8)))
    calls = len(trimmed)
    with_t, without_t = sum(trimmed) / calls, sum(untrimmed) / calls
    fixed = sum(contexts) / calls
    change = with_t / without_t - 1
    print(f"master call on the demo ({calls} scenes); fixed part and action: {fixed:.0f} tokens")
    print(f"  with perception trimming:    {with_t:7.0f} tokens per call")
    print(f"  without (whole world):       {without_t:7.0f} tokens per call")
    print(f"  ratio {with_t / without_t:.2f} ({change:+.0%}; seed 001 measured {SEED_TRIM:+.0%})")
    scene_part = (with_t - fixed) / (without_t - fixed)
    print(f"  the context alone: ratio {scene_part:.2f} ({scene_part - 1:+.0%})")
    return change


def _answer(request: ReceivedRequest) -> Reply:
    """Read a rule on every third turn's first call, then close; close at once otherwise."""
    body = request.body if isinstance(request.body, dict) else {}
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    content = last.get("content")
    answered = last.get("role") == "tool" or (
        isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)
    )
    forced = bool(body.get("tool_choice")) and body["tool_choice"] not in ("auto", {"type": "auto"})
    turn = next((m for m in messages if m.get("role") == "user"), {})
    blocks = turn.get("content")
    text = blocks if isinstance(blocks, str) else " ".join(b.get("text", "") for b in blocks or [])
    wants_rule = any(text.rstrip().endswith(action) for action in ACTIONS[::3])
    if wants_rule and not answered and not forced:
        return Reply(text="", tool_calls=(RULE,))
    close = {"narration": NARRATION, "suggestions": ["Look around", "Wait"]}
    return Reply(text="", tool_calls=({"name": "log_event", "arguments": close},))


async def _route(provider: Provider) -> tuple[Usage, int, int]:
    world, _ = demo()
    state = SessionState.initial(world)
    total, calls, actions = Usage(), 0, 0
    for n in range(20):
        for text in ([MOVES[n // 3]] if n % 3 == 2 else []) + [ACTIONS[n % len(ACTIONS)]]:
            result = await play_gm_action(world, state, "ada", text, provider=provider, rng_seed=5)
            state = result.state
            total, calls = total.plus(result.usage), calls + result.model_calls
            actions += result.kind == "master" and result.model_calls > 0
    return total, calls, actions


async def cache_report() -> bool:
    """Print the cached share over the route for both protocols; True when both reach 85 %."""
    ok = True
    with ModelServer() as server:
        server.route = _answer
        for label, provider in (
            ("anthropic", AnthropicProvider("k", base_url=server.anthropic_url, model="bench")),
            ("openai", OpenAICompatProvider("k", base_url=server.openai_url, model="bench")),
        ):
            usage, calls, actions = await _route(provider)
            await provider.aclose()
            share = usage.cache_read_tokens / max(1, usage.prompt_tokens)
            ok = ok and share >= TARGET_SHARE
            print(
                f"cached share, {label}: {share:.1%} of {usage.prompt_tokens} prompt tokens over "
                f"{actions} master actions, {calls} calls (target ≥ {TARGET_SHARE:.0%}); "
                f"{usage.prompt_tokens / max(1, calls):.0f} prompt tokens per call, "
                f"{usage.cache_write_tokens} written to cache"
            )
    return ok
