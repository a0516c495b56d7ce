"""How often the session memory changes the cached prompt prefix (issue 13 §1).

Run: ``.venv/bin/python bench/memory.py`` (``--turns N``, ``--every N``). Plays the bundled demo
world (studio/fixtures/demo_world.json) for 200 turns on the offline narrator, with the engine's
memory summarisation (``engine.memory``: a block every 40 messages, extractive offline) between
turns as the play side runs it, and prints the share of turns whose prompt prefix changed from
the turn before:

- the memory's share: turns whose session-memory block (step 9) changed; target ≤ 10 %;
- the prefix's, triggered entries aside: every block above the chat history (steps 1-9:
  presets, persona, format, examples, start marker, story summary, session memory) but the
  keyword-triggered entries of step 6, which come and go with the chat whatever the memory does;
- the whole prefix (steps 1-9), the part a provider's prefix cache can keep turn after turn;
- the same three with a memory rewritten every turn (a rolling summary of the recent messages),
  for contrast.

The player's 200 messages are drawn with a fixed seed from a list of actions, some naming the
demo's lore keywords, so keyword-triggered entries (step 6) come and go as in play. Then it plays
Brackenford (studio/fixtures/gm_demo_world.json) for 200 actions and counts the scenes that ended
and the NPC memories they left. No model is called; exit 1 when the memory's share is past 10 %.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.gm.memory import memories
from engine.llm.offline import OfflineProvider
from engine.memory import DEFAULT_EVERY, apply_work, due_work, extractive_summary, write_work
from engine.prompt import PromptResult
from engine.session import Message, SessionState
from engine.turn import PlayerAction, Turn
from engine.world import WorldDefinition, load_world

ROOT = Path(__file__).resolve().parent.parent
TARGET = 0.10
NOW = datetime(2026, 5, 13, 20, 0, tzinfo=UTC)
ACTIONS = (
    "I warm my hands by the fire.",
    "I ask Mira about the road north.",
    "I order a bowl of stew and listen to the rain.",
    "I look out of the window at the dark.",
    "I check my lantern and trim the wick.",
    "I ask about the forest beyond the hollow.",
    "I sit quietly and drink.",
    "I ask Mira whether she has seen the pale lady.",
    "I count my coins.",
    "I ask about the cellar and the old key.",
    "I stretch my legs and walk about the room.",
    "I thank Mira and rest a while.",
)
GM_ACTIONS = (
    "go south",
    "look around",
    "greet the baker",
    "go east",
    "wait",
    "go west",
    "go north",
    "ask Hilda about the mill",
    "take the tankard",
    "drop the tankard",
)
Memory = Callable[[SessionState, list[tuple[int, Message]]], None]


PREFIX = (1, 2, 3, 4, 6, 7, 8, 9)  # the prompt's steps above the chat history
Blocks = tuple[tuple[str, str], ...]


def prefix(prompt: PromptResult | None, steps: tuple[int, ...]) -> Blocks:
    if prompt is None:
        return ()
    return tuple((b.role, b.content) for b in prompt.blocks if b.step in steps)


def block_memory(world: WorldDefinition, every: int) -> Memory:
    """The engine's summarisation, as play.memory runs it between turns."""

    def run(state: SessionState, messages: list[tuple[int, Message]]) -> None:
        work = due_work(world, state, messages, every=every)
        if work is not None:
            blocks = asyncio.run(write_work(world, work, None))
            apply_work(world, state, work, blocks)

    return run


def rolling_memory(state: SessionState, messages: list[tuple[int, Message]]) -> None:
    """The contrast: a memory rewritten after every turn from the recent messages."""
    state.session_memory = extractive_summary([m for _, m in messages[-DEFAULT_EVERY:]])


def play(world: WorldDefinition, turns: int, memory: Memory) -> tuple[list[float], int]:
    """The share of turns whose prefix changed: all of it, the memory block, all but the
    triggered entries; and the blocks written."""
    rng = random.Random(13)
    provider = OfflineProvider(world.language or "en", random.Random(5))
    state = SessionState.initial(world)
    messages: list[tuple[int, Message]] = []
    start = Turn(world, state, [], PlayerAction("start"), provider, clock=lambda: NOW, rng=rng)
    state = asyncio.run(start.run()).state
    if start.result and start.result.text:
        messages.append((0, Message("assistant", start.result.text)))
    parts = (PREFIX, (9,), tuple(s for s in PREFIX if s != 6))
    before: tuple[Blocks, ...] = ((), (), ())
    changed = [0, 0, 0]
    blocks = 0
    for n in range(turns):
        text = rng.choice(ACTIONS)
        history = [m for _, m in messages]
        turn = Turn(
            world, state, history, PlayerAction("message", text), provider,
            clock=lambda: NOW, rng=rng,
        )  # fmt: skip
        result = asyncio.run(turn.run())
        now = tuple(prefix(result.prompt, steps) for steps in parts)
        if n:
            changed = [c + (a != b) for c, a, b in zip(changed, now, before, strict=True)]
        before = now
        state = result.state
        for role, content in (("user", text), ("assistant", result.text)):
            messages.append((len(messages), Message(role, content)))
        had = state.session_memory
        memory(state, messages)
        blocks += state.session_memory != had
    return [count / (turns - 1) for count in changed], blocks


def gm_scenes(world: WorldDefinition, actions: int) -> tuple[int, int]:
    """(scenes that ended, NPC memories written) over ``actions`` Brackenford actions."""
    provider = OfflineProvider(world.language or "en", random.Random(5))
    state = SessionState.initial(world)
    scenes = 0
    for n in range(actions):
        action = PlayerAction("message", GM_ACTIONS[n % len(GM_ACTIONS)])
        turn = Turn(
            world, state, [], action, provider, clock=lambda: NOW, rng=random.Random(n),
            seed=7, character_id="ren",
        )  # fmt: skip
        state = asyncio.run(turn.run()).state
        work = due_work(world, state, [], character_id="ren")
        if work is not None:
            scenes += len(work.scenes)
            apply_work(world, state, work, asyncio.run(write_work(world, work, None)))
    assert world.game_master is not None and state.gm is not None
    kept = sum(len(memories(world.game_master, state.gm, n.id)) for n in world.game_master.npcs)
    return scenes, kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--every", type=int, default=DEFAULT_EVERY)
    args = parser.parse_args()
    world = load_world(ROOT / "studio" / "fixtures" / "demo_world.json")
    (whole, memory, calm), blocks = play(world, args.turns, block_memory(world, args.every))
    (rolling_whole, rolling, rolling_calm), _ = play(world, args.turns, rolling_memory)
    print(f"{world.name}: {args.turns} offline turns, a memory block every {args.every} messages")
    print(f"  memory blocks written: {blocks}")
    print(f"  turns whose memory block changed: {memory:.1%} (target ≤ {TARGET:.0%})")
    print(f"  turns whose prefix changed, triggered entries aside: {calm:.1%}")
    print(f"  turns whose prefix changed (steps 1-9, keyword lore included): {whole:.1%}")
    print(
        f"  rewritten every turn instead: memory {rolling:.1%}, prefix without triggered "
        f"entries {rolling_calm:.1%}, prefix {rolling_whole:.1%}"
    )
    gm_world = load_world(ROOT / "studio" / "fixtures" / "gm_demo_world.json")
    scenes, kept = gm_scenes(gm_world, args.turns)
    print(f"{gm_world.name}: {args.turns} offline actions")
    print(f"  scenes ended: {scenes}; NPC memories kept at the end: {kept}")
    return 0 if memory <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
