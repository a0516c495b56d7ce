"""Batch evaluation on the loopback model server (issue 13, "Done when": "the evaluation's cost and
duration for 10 games × 20 actions on the loopback server"; seed 001: "El piloto de 10 partidas ×
20 acciones con Haiku costó 0,38 $ … y clasificó 59 errores").

Brackenford, 10 games × 20 actions, through the same pipeline the studio's tasks run
(``engine.evals``: the automatic player's move, the action through the tool-calling master on
the real SDK providers, the free detectors, the judge). The loopback server answers the master
with a ``log_event`` closure (every fourth turn first reads a rule, and one narration in seven
breaks a closure rule, so the detectors have something to find), the model player with a line
of play and the judge with a verdict. Tokens are the server's (a character in four), priced as
the named model; the server simulates each protocol's prompt cache. Two runs: the offline player
with the free detectors, and a model player with a model judge. Run: ``python bench/evals.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.evals.classify import classify_step
from engine.evals.detectors import Context
from engine.evals.judge import Judge, ModelJudge, OfflineJudge
from engine.evals.player import ModelPlayer, Player, ScriptedPlayer
from engine.evals.report import Game, build_report
from engine.evals.runner import ActionFailed, Table, move_rng, next_move, play_step
from engine.evals.secrets import collect_secrets
from engine.evals.transcript import Transcript
from engine.llm.anthropic import AnthropicProvider
from engine.llm.base import Provider, Usage
from engine.llm.openai_compat import OpenAICompatProvider
from engine.session import SessionState
from engine.world import WorldDefinition, load_world
from tests.support.model_server import ModelServer, ReceivedRequest, Reply

GAMES, ACTIONS = 10, 20
WORLD = Path(__file__).resolve().parents[1] / "studio" / "fixtures" / "gm_demo_world.json"
SEED_PILOT = (0.38, 59)  # seed 001: USD and errors for 10 × 20 with Haiku
NARRATIONS = (
    "You take it in slowly; the room goes on about its business around you.",
    "Nobody gives you a second look. A log settles in the hearth with a soft crack.",
    "Your words hang a moment in the smoky air before the talk picks up again.",
    "The answer you get is a shrug and a glance towards the door.",
    "You wait; the wind worries the shutters, and nothing else changes.",
    "A cart rattles past outside. For now, that is all.",
    "Hours pass; by nightfall the common room is full of carters.",  # time-advanced
)
RULE = {"name": "lookup_rule", "arguments": {"topic": "advantage"}}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def answer(request: ReceivedRequest) -> Reply:
    """The master closes (sometimes after a rule); the player plays; the judge finds nothing."""
    body = request.body if isinstance(request.body, dict) else {}
    messages = body.get("messages") or []
    system = _text(body.get("system")) + " ".join(
        _text(m.get("content")) for m in messages if m.get("role") == "system"
    )
    if "You judge one turn" in system:
        return Reply(text='{"errors": []}')
    if not body.get("tools"):
        return Reply(text="I ask the innkeeper what the carters are afraid of.")
    turn = _text(next((m.get("content") for m in messages if m.get("role") == "user"), ""))
    digest = int(hashlib.sha256(turn.encode()).hexdigest(), 16)
    last = messages[-1] if messages else {}
    answered = last.get("role") == "tool" or (
        isinstance(last.get("content"), list)
        and any(b.get("type") == "tool_result" for b in last["content"])
    )
    if digest % 4 == 0 and not answered:
        return Reply(text="", tool_calls=(RULE,))
    close = {"narration": NARRATIONS[digest % len(NARRATIONS)], "suggestions": ["Look around"]}
    return Reply(text="", tool_calls=({"name": "log_event", "arguments": close},))


@dataclass
class Run:
    label: str
    games: list[Game]
    seconds: float
    extra: Usage


async def play_games(world: WorldDefinition, master: Provider, player: Player, judge: Judge) -> Run:
    games, extra, started = [], Usage(), time.monotonic()
    for number in range(GAMES):
        table = Table(
            world,
            master,
            clock=lambda: datetime.now(UTC),
            timer=time.monotonic,
            character_id="ren",
            seed=number,
        )
        transcript, spent = await _game(table, player, judge, number)
        games.append(Game(transcript, ref=str(number), extra_cost=spent.cost))
        extra = extra.plus(spent)
    return Run(master.model, games, time.monotonic() - started, extra)


async def _game(
    table: Table, player: Player, judge: Judge, number: int
) -> tuple[Transcript, Usage]:
    world = table.world
    state, history, spent = SessionState.initial(world), [], Usage()
    transcript = Transcript(table.provider.model, number, "ren")
    ctx = Context(world, "ren", tuple(collect_secrets(world, "ren")))
    for index in range(ACTIONS):
        last = transcript.steps[-1] if transcript.steps else None
        move = await next_move(player, world, state, "ren", last, move_rng(0, number, index))
        try:
            played = await play_step(
                table, state, history, move.text, index=index, tactic=move.tactic
            )
        except ActionFailed:
            break
        played.step.findings, judged = await classify_step(
            ctx, played.step, transcript.steps, judge
        )
        spent = spent.plus(move.usage).plus(judged)
        transcript.steps.append(played.step)
        state, history = played.state, played.history
    return transcript, spent


def report(run: Run, with_models: bool) -> None:
    summary = build_report(run.games).models[0]
    total = summary.cost + run.extra.cost
    how = "model player + model judge" if with_models else "offline player + free detectors"
    print(f"{run.label}, {GAMES} games × {ACTIONS} actions ({how}):")
    print(
        f"  master ${summary.cost:.4f} ({summary.cost_per_action * 100:.3f} ¢/action, "
        f"${summary.cost_per_game:.4f}/game, {summary.cache_share:.0%} of the prompt cached); "
        f"player and judge ${run.extra.cost:.4f}; total ${total:.4f}"
    )
    print(
        f"  {summary.actions} actions in {run.seconds:.1f} s "
        f"({run.seconds / max(1, summary.actions) * 1000:.0f} ms/action, "
        f"p50 {summary.latency_p50:.0f} ms, p90 {summary.latency_p90:.0f} ms); "
        f"{summary.error_total} errors found {dict(sorted(summary.errors.items()))}"
    )


async def main() -> None:
    world = load_world(WORLD)
    with ModelServer() as server:
        server.route = answer
        for with_models in (False, True):
            for provider in (
                AnthropicProvider("k", base_url=server.anthropic_url, model="claude-haiku-4-5"),
                OpenAICompatProvider("k", base_url=server.openai_url, model="gpt-4.1-mini"),
            ):
                player: Player = ModelPlayer(provider) if with_models else ScriptedPlayer()
                judge: Judge = ModelJudge(provider) if with_models else OfflineJudge()
                report(await play_games(world, provider, player, judge), with_models)
                await provider.aclose()
    print(f"seed 001's pilot with Haiku: ${SEED_PILOT[0]:.2f}, {SEED_PILOT[1]} errors classified")


if __name__ == "__main__":
    asyncio.run(main())
