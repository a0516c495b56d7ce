"""A ``engine.turn.Turn`` in a game-master world (architecture "Game master": ``engine/turn.py``
only dispatches; plain worlds keep their path).

``Turn.events()`` hands these actions to ``engine.gm.play.play_gm_action``: a ``message`` (its
text), a ``regenerate`` (the history's last player message), and an ``action`` whose
``action_id`` is ``roll`` or ``click:location:<id>`` / ``click:point:<id>``, or that carries
text. A ``continue`` is refused (``TurnFailed``): a model's plain continuation would bypass the
tools, the closure check and the directive rule (issue 32 finding 11: a directive in it was
applied). ``start`` keeps the plain pipeline (the authored greeting). The turn yields the
narration (an engine template as one ``Delta``; the master's in pieces, streamed only once the
closure check has passed: tool traffic is never shown), the suggestions as a ``ChoicesEvent``,
then ``Done`` with a
``TurnResult`` whose ``gm`` holds the full ``GMActionResult`` (kind, rolls, pending check,
events, context) for the play layer's frames.

Issue 37: the action is played in a task of its own, whose context carries the turn's
``on_step`` listener and the provider's ``capabilities`` (``engine.gm.steps``), so the player
sees each step of the master's loop as it happens. The master's narration is held back until
the closure check has passed (``engine.gm.loop`` says why), then streams through the same
``StreamFilter`` as a plain turn's reply, and the saved text is what it showed. ``Turn.stop()``
cancels that task: the model request and the loop end at once, the turn's state is the one it
started from (every tool worked on a clone) and the result is ``stopped`` with no text.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator

from engine.gm import steps
from engine.gm.play import GMAction, GMActionResult, GMError, play_gm_action
from engine.gm.report import narration_pieces
from engine.gm.words import lexicon
from engine.llm.base import ProviderError
from engine.session import SessionState
from engine.stream_filter import StreamFilter
from engine.turn_events import ChoicesEvent, Delta, Done, TurnEvent, TurnFailed, TurnResult
from engine.turn_setup import TurnSetup

ROLL = "roll"
CLICK = "click:"
CONTINUE = {"continue": True}


def gm_action_of(turn: TurnSetup) -> GMAction | None:
    """The game-master action a turn stands for, or None to keep the plain pipeline."""
    action = turn.action
    if action.kind == "continue":
        return dict(CONTINUE)  # refused by gm_events: never the plain pipeline
    if action.kind == "message":
        return action.text
    if action.kind == "regenerate":
        return next((m.content for m in reversed(turn.history) if m.role == "user"), None)
    if action.kind != "action":
        return None
    if action.action_id == ROLL:
        return {"roll": True}
    if action.action_id and action.action_id.startswith(CLICK):
        kind, _, ident = action.action_id.removeprefix(CLICK).partition(":")
        if kind in ("location", "point") and ident:
            return {"click": {kind: ident}}
    return action.text if action.text.strip() else None


async def gm_events(turn: TurnSetup, action: GMAction) -> AsyncIterator[TurnEvent]:
    """Play ``action`` for the turn's character; TurnFailed when it cannot be played."""
    if action == CONTINUE:
        raise TurnFailed(lexicon(turn.world.language or "en").t("no_continue"))
    played = await _stoppable(turn, action)
    if played is None:  # stopped: nothing applied, nothing said
        turn.result = TurnResult(text="", raw="", state=turn.input_state.clone(), stopped=True)
        yield Done(turn.result)
        return
    state = played.state
    state.turn += 1
    _count_own_turn(turn, state)
    state.started = True
    result = TurnResult(
        text=played.narration,
        raw=played.narration,
        state=state,
        choices=list(played.suggestions),
        usage=played.usage,
        gm=played,
    )
    if played.kind == "master":
        shown = StreamFilter(turn.world)
        pieces = [shown.feed(p) for p in narration_pieces(played.narration)] + [shown.close()]
        result.text = "".join(pieces)
        for piece in filter(None, pieces):
            yield Delta(piece)
    elif played.narration:
        yield Delta(played.narration)
    if played.suggestions:
        yield ChoicesEvent(list(played.suggestions))
    turn.result = result
    yield Done(result)


def _count_own_turn(turn: TurnSetup, state: SessionState) -> None:
    """One more action of the acting character: at a table each player sees his own count,
    while ``state.turn`` counts everyone's for the rules (issue 33 §5)."""
    gm = turn.world.game_master
    first = gm.characters[0].id if gm is not None and gm.characters else ""
    sheet = state.gm.characters.get(turn.character_id or first) if state.gm else None
    if sheet is not None:
        sheet.turns += 1


async def _stoppable(turn: TurnSetup, action: GMAction) -> GMActionResult | None:
    """The action played in its own task (see the module); None when ``Turn.stop()`` ended it.
    A cancel from outside (the server stopping) stays a cancel."""
    context = contextvars.copy_context()
    context.run(steps.live, turn.on_step, turn.capabilities)
    task = asyncio.get_running_loop().create_task(_play(turn, action), context=context)

    def cancel() -> None:
        task.cancel()

    turn._on_stop = cancel
    if turn._stop_requested:
        task.cancel()
    try:
        return await task
    except asyncio.CancelledError:
        me = asyncio.current_task()
        if not turn._stop_requested or (me is not None and me.cancelling()):
            raise
        return None
    finally:
        turn._on_stop = None


async def _play(turn: TurnSetup, action: GMAction) -> GMActionResult:
    world, gm = turn.world, turn.world.game_master
    assert gm is not None
    if turn.character_id is None and not gm.characters:
        raise TurnFailed("This world has no player character to play.")
    try:
        return await play_gm_action(
            world,
            turn.input_state,
            turn.character_id or gm.characters[0].id,
            action,
            provider=turn.provider,
            clock=turn.clock,
            rng_seed=turn.seed if turn.seed is not None else turn.rng.getrandbits(31),
            language=turn.language or world.language,  # the player's (issue 33 §3)
        )
    except ProviderError as exc:
        raise TurnFailed(
            exc.message, retryable=exc.retryable, status=exc.status, detail=exc.detail
        ) from exc
    except GMError as exc:
        raise TurnFailed(str(exc)) from exc
