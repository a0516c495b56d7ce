"""Playing evaluated actions (seed 001 "Banco de medición", "Partidas automáticas"; issue 13 §2).

``play_step`` plays one action the way a session does: in a game-master world through
``engine.gm.play.play_gm_action`` (engine moves, the tool-calling master with its closure
check, or the offline master), in a plain world through ``engine.turn.Turn``. It returns the
``Step`` (narration, usage and cost, latency, tool calls, rolls, where the character stood and
whom he knew) with the new state and history, and never mutates its inputs, so the studio can
play one action per task and resume a game from the last stored state. ``play_game`` plays a
route, or a number of moves of an automatic player, in one go (the bench). Time comes from the
injected ``timer`` (seconds, monotonic) and ``clock``; the dice and the player from seeds.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from engine.evals.player import Player, PlayerMove, break_schedule
from engine.evals.sight import player_view
from engine.evals.transcript import Step, Transcript
from engine.gm.play import GMActionResult, GMError, play_gm_action
from engine.gm.state import npcs_at
from engine.llm.base import Provider, ProviderError
from engine.session import Message, SessionState
from engine.turn import PlayerAction, Turn, TurnFailed
from engine.world import WorldDefinition

Timer = Callable[[], float]
Clock = Callable[[], datetime]


class ActionFailed(Exception):
    """The action could not be played; ``retryable`` when the provider may answer later."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable


@dataclass
class Played:
    step: Step
    state: SessionState
    history: list[Message] = field(default_factory=list)


@dataclass(frozen=True)
class Table:
    """What stays the same for every action of a game."""

    world: WorldDefinition
    provider: Provider
    clock: Clock
    timer: Timer
    character_id: str | None = None
    seed: int = 0


def first_character(world: WorldDefinition) -> str | None:
    gm = world.game_master
    return gm.characters[0].id if gm is not None and gm.characters else None


async def play_step(
    table: Table,
    state: SessionState,
    history: Sequence[Message],
    action: str,
    *,
    index: int,
    tactic: str | None = None,
) -> Played:
    """Play ``action`` as step ``index``; ActionFailed when the provider or the world fails."""
    started = table.timer()
    try:
        if table.world.game_master is not None:
            played = await _gm_step(table, state, action, index)
        else:
            played = await _plain_step(table, state, history, action, index)
    except ProviderError as exc:
        raise ActionFailed(exc.message, retryable=exc.retryable) from exc
    except TurnFailed as exc:
        raise ActionFailed(exc.message, retryable=exc.retryable) from exc
    except GMError as exc:
        raise ActionFailed(str(exc)) from exc
    played.step.tactic = tactic
    played.step.latency_ms = round((table.timer() - started) * 1000, 1)
    played.history = [
        *history,
        Message("user", action),
        Message("assistant", played.step.narration),
    ]
    return played


async def _gm_step(table: Table, state: SessionState, action: str, index: int) -> Played:
    world, gm = table.world, table.world.game_master
    assert gm is not None
    me = table.character_id or first_character(world)
    if me is None:
        raise GMError("the world has no player character to play")
    before = state.gm.characters.get(me) if state.gm is not None else None
    sheet = gm.characters_by_id.get(me)
    location = before.location if before else (sheet.location if sheet else None)
    known = list(before.known_names) if before else list(sheet.known_names if sheet else [])
    result = await play_gm_action(
        world,
        state,
        me,
        action,
        provider=table.provider,
        clock=table.clock,
        rng_seed=table.seed,
        language=world.language,
    )
    result.state.turn += 1
    after = result.state.gm
    assert after is not None
    present = [n.id for n in npcs_at(gm, after, location)] if location else []
    present += [n.id for n in npcs_at(gm, after, result.location) if n.id not in present]
    step = _gm_record(result, index, action)
    step.location, step.known_names, step.present = location, known, present
    return Played(step, result.state)


def _gm_record(result: GMActionResult, index: int, action: str) -> Step:
    return Step(
        index=index,
        action=action,
        narration=result.narration,
        kind=result.kind,
        suggestions=list(result.suggestions),
        model_calls=result.model_calls,
        usage=dict(result.usage.to_dict()),
        closure=result.closure.to_dict(),
        attempts=result.attempts,
        tool_calls=[call.trace() for call in result.tool_calls],
        rolls=[roll.to_dict() for roll in result.rolls],
    )


async def _plain_step(
    table: Table, state: SessionState, history: Sequence[Message], action: str, index: int
) -> Played:
    turn = Turn(
        table.world,
        state,
        list(history),
        PlayerAction("message", action),
        table.provider,
        clock=table.clock,
        rng=random.Random(f"{table.seed}:{index}"),
        seed=table.seed,
    )
    result = await turn.run()
    step = Step(
        index=index,
        action=action,
        narration=result.text,
        kind="narrator",
        suggestions=list(result.choices),
        model_calls=1 if result.prompt is not None else 0,
        usage=dict(result.usage.to_dict()),
    )
    return Played(step, result.state)


async def play_game(
    table: Table,
    *,
    route: Sequence[str] = (),
    player: Player | None = None,
    actions: int = 0,
    game: int = 0,
) -> Transcript:
    """A whole game: the ``route`` actions, or ``actions`` moves of ``player`` (the player's rng
    seeded by the table's seed, the game and the step). A failed action ends the game there,
    its step carrying the error."""
    state = SessionState.initial(table.world)
    history: list[Message] = []
    transcript = Transcript(
        model=table.provider.model or table.provider.name,
        game=game,
        character=table.character_id or first_character(table.world),
        language=table.world.language or "en",
    )
    count = len(route) if player is None else actions
    breaks = break_schedule(table.seed, game, count)
    for index in range(count):
        text, tactic = route[index] if player is None else "", None
        if player is not None:
            last = transcript.steps[-1] if transcript.steps else None
            rng = move_rng(table.seed, game, index)
            character = transcript.character
            move = await next_move(
                player, table.world, state, character, last, rng, index in breaks
            )
            text, tactic = move.text, move.tactic
        try:
            played = await play_step(table, state, history, text, index=index, tactic=tactic)
        except ActionFailed as exc:
            failed = Step(index=index, action=text, tactic=tactic, error=exc.message)
            transcript.steps.append(failed)
            break
        transcript.steps.append(played.step)
        state, history = played.state, played.history
    return transcript


async def next_move(
    player: Player,
    world: WorldDefinition,
    state: SessionState,
    character_id: str | None,
    last: Step | None,
    rng: random.Random,
    breaking: bool | None = None,
) -> PlayerMove:
    """The player's move after ``last`` (None: the game's first), from what he sees in ``state``;
    ``breaking``: whether the game's break schedule makes it a break attempt."""
    narration, suggestions = (last.narration, last.suggestions) if last else ("", [])
    view = player_view(world, state, character_id, narration, suggestions)
    return await player.next_move(view, rng, breaking)


def move_rng(seed: int, game: int, index: int) -> random.Random:
    """The player's rng for one move: the same move when a game is resumed."""
    return random.Random(f"player:{seed}:{game}:{index}")
