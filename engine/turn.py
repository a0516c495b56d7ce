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
streaming the reply is ``engine.turn_stream``'s, the events and the result are defined in
``engine.turn_events`` and the turn's inputs (``PlayerAction``, ``TurnSetup``) in
``engine.turn_setup`` (all importable from here, as before).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

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
from engine.turn_setup import ACTION_KINDS as ACTION_KINDS
from engine.turn_setup import ActionKind as ActionKind
from engine.turn_setup import Clock as Clock
from engine.turn_setup import Dice as Dice
from engine.turn_setup import PlayerAction as PlayerAction
from engine.turn_setup import TurnSetup

# --- the turn ----------------------------------------------------------------------------


class Turn(TurnSetup):
    """One turn; iterate ``events()`` once, then read ``result``."""

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
            # Only game-master worlds load the game master (a second on a cold start).
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
