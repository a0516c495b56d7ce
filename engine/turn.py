"""One turn of play, from the player's action to the state after it (architecture "The turn, as
data flows"; seed 004 "每轮生成的事件").

``Turn(...).events()`` is an async iterator of ``TurnEvent``: ``Delta`` text while the model
streams (directives and thinking already filtered out), then ``ChoicesEvent``, one
``StateChanged`` per change, ``NotificationEvent``, ``AudioEvent`` and finally ``Done`` with the
``TurnResult``. The input ``SessionState`` is never mutated: the turn works on a clone that the
result carries, so a failed turn (``TurnFailed``, no ``Done``) leaves nothing half-applied.

The pipeline of a ``message``:

1. clone the state and advance ``turn``;
2. run the rules on ``session:start`` (first message of the session only): what they inject or
   send as context reaches this turn's prompt;
3. assemble the prompt over the history plus the player's message; the pending context it used
   is cleared;
4. stream the reply through ``StreamFilter``;
5. parse the whole reply and apply its directives (all of them, even those the stream showed
   early; a stopped turn applies them only with ``apply_on_stop``);
6. run the rules on the four per-turn events of seed 004, in its order and after the reply:
   ``message:user``, ``message:ai``, ``turn:complete`` and one ``state:changed`` per changed
   variable; what they inject or send as context reaches the next turn's prompt (the
   architecture sketch runs ``message:user`` before the prompt; the seed wins);
7. expire one-shot and ``duration`` directives whose last turn this was.

Other kinds: ``regenerate`` is a ``message`` for the history's last user message, not added
again (the caller passes the history without the old reply and the state from before it).
``continue`` writes more of the last assistant message: no new turn, no ``message:user`` nor
``turn:complete``; the prompt ends with that message and ``TurnResult.text`` holds only the new
part, for the caller to append. ``action`` fires the ``action`` rules of ``action_id`` and then
generates if the action carries text (sent as the player's message), if a rule asked for it
(``@ai.request``) or if there is no ``action_id`` at all (a bare "let the narrator go on" — what
the play layer sends when a previous ``TurnResult.requests_ai`` is set); otherwise it ends with
no prompt and no new turn. ``start`` opens the session without a model call: it fires
``session:start`` and returns the greeting (the entry ``action_id`` names, else the first enabled
``greeting`` entry by position) with its macros expanded and its directives applied.

Directives are the narrator's, never the player's (seeds 000, 002): only the model's reply
and the creator's greeting are parsed, never the player's text; the player's words that macros
bring into a greeting (``{{user}}``, the persona) are held out while it is parsed
(`engine.player_text`), and the offline narrator never says back directive syntax the player
typed nor any of the prompt (`engine.llm.offline`).

Everything random or timed comes from ``clock`` and ``rng``, so a turn is reproducible.

This module only checks the action and dispatches: the steps are ``engine.turn_pipeline``'s,
streaming the reply is ``engine.turn_stream``'s, and the events and the result are defined in
``engine.turn_events`` (all importable from here, as before).
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from engine.llm.base import Provider
from engine.session import Message, Persona, SessionState
from engine.turn_events import AudioEvent as AudioEvent
from engine.turn_events import ChoicesEvent as ChoicesEvent
from engine.turn_events import Delta as Delta
from engine.turn_events import Done as Done
from engine.turn_events import NotificationEvent as NotificationEvent
from engine.turn_events import StateChanged as StateChanged
from engine.turn_events import TurnEvent as TurnEvent
from engine.turn_events import TurnFailed as TurnFailed
from engine.turn_events import TurnResult as TurnResult
from engine.turn_pipeline import TurnRun
from engine.turn_pipeline import greeting_entry as greeting_entry
from engine.world import WorldDefinition

Clock = Callable[[], datetime]
# The turn's dice: a Random, or a function making one (seeded) when the prompt needs it.
Dice = random.Random | Callable[[], random.Random]
ActionKind = Literal["message", "continue", "regenerate", "action", "start"]
ACTION_KINDS: tuple[ActionKind, ...] = ("message", "continue", "regenerate", "action", "start")


@dataclass(frozen=True, slots=True)
class PlayerAction:
    """What the player asked for; see the module docstring for each kind."""

    kind: ActionKind
    text: str = ""
    action_id: str | None = None


# --- the turn ----------------------------------------------------------------------------


class Turn:
    """One turn; iterate ``events()`` once, then read ``result``."""

    def __init__(
        self,
        world: WorldDefinition,
        state: SessionState,
        history: Sequence[Message],
        action: PlayerAction,
        provider: Provider,
        *,
        persona: Persona | None = None,
        clock: Clock,
        rng: Dice,
        model: str = "",
        apply_on_stop: bool = False,
        seed: int | None = None,
        idle_seconds: float | None = None,
        character_id: str | None = None,
    ) -> None:
        if action.kind not in ACTION_KINDS:
            raise ValueError(f"unknown action kind '{action.kind}'")
        self.world = world
        self.input_state = state
        self.history = list(history)
        self.action = action
        self.provider = provider
        self.persona = persona
        self.clock = clock
        self._dice = rng
        self.model = model
        self.apply_on_stop = apply_on_stop
        self.seed = seed
        self.idle_seconds = idle_seconds
        self.character_id = character_id  # who acts, in a game-master world
        self.result: TurnResult | None = None
        self._started = False
        self._stop_requested = False
        # Called by ``stop()`` while a reply streams (engine.turn_stream): a callback, not an
        # Event waited on by a task, which cost every streaming turn a task and its frames.
        self._on_stop: Callable[[], None] | None = None

    @property
    def rng(self) -> random.Random:
        """The turn's dice. Given as a function, each use makes them afresh: a turn uses them
        once, for its prompt (or its greeting), so a turn whose reply streams for seconds does
        not keep 2.5 KiB of Mersenne state alive meanwhile (the play app gives a function)."""
        return self._dice if isinstance(self._dice, random.Random) else self._dice()

    def stop(self) -> None:
        """End the stream early: the result keeps the text so far (see ``apply_on_stop``)."""
        self._stop_requested = True
        if self._on_stop is not None:
            self._on_stop()

    async def run(self) -> TurnResult:
        """Drain ``events()`` and return the result."""
        async for _ in self.events():
            pass
        assert self.result is not None
        return self.result

    async def events(self) -> AsyncIterator[TurnEvent]:
        """Run the turn, yielding what happens; raises ``TurnFailed`` if the model fails."""
        if self._started:
            raise RuntimeError("a Turn runs once; make a new one")
        self._started = True
        if self.world.game_master is not None:
            # engine.gm.adapter imports this module: import it here, when a turn runs.
            from engine.gm.adapter import gm_action_of, gm_events

            if (gm_action := gm_action_of(self)) is not None:
                async for event in gm_events(self, gm_action):
                    yield event
                return
        run = TurnRun(self)
        if self.action.kind == "start":
            async for event in run.start():
                yield event
        else:
            async for event in run.play():
                yield event
        self.result = run.result
