"""What a turn is given, apart from how it runs (`engine.turn.Turn` adds ``events()``).

The turn's steps (`engine.turn_pipeline`, `engine.turn_stream`) and the game master's dispatch
(`engine.gm.adapter`) read the turn through this class, so they never import `engine.turn`,
which imports them: the dependency runs one way. Callers keep importing everything from
`engine.turn`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from engine.llm.base import Provider
from engine.llm.capabilities import Capabilities
from engine.session import Message, Persona, SessionState
from engine.turn_events import TurnResult
from engine.world import WorldDefinition

Clock = Callable[[], datetime]
# The turn's dice: a Random, or a function making one (seeded) when the prompt needs it.
Dice = random.Random | Callable[[], random.Random]
ActionKind = Literal["message", "continue", "regenerate", "action", "start"]
ACTION_KINDS: tuple[ActionKind, ...] = ("message", "continue", "regenerate", "action", "start")


@dataclass(frozen=True, slots=True)
class PlayerAction:
    """What the player asked for; `engine.turn`'s docstring says what each kind does."""

    kind: ActionKind
    text: str = ""
    action_id: str | None = None


# --- the turn ----------------------------------------------------------------------------


class TurnSetup:
    """A turn's inputs and its stop switch; `engine.turn.Turn` is the one callers make."""

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
        language: str | None = None,
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
        # The player's language, for a game-master world's narration (the world's when None).
        self.language = language
        self.result: TurnResult | None = None
        self._started = False
        self._stop_requested = False
        # Called by ``stop()`` while a reply streams (engine.turn_stream): a callback, not an
        # Event waited on by a task, which cost every streaming turn a task and its frames.
        self._on_stop: Callable[[], None] | None = None
        # A game-master turn's step listener and the server's capabilities (engine.gm.steps);
        # the caller sets them after construction, as it wants them.
        self.on_step: Callable[[str], None] | None = None
        self.capabilities: Capabilities | None = None

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
