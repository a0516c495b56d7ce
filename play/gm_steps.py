"""The master's steps on the play websocket (issue 37 §1; docs/PROTOCOL.md ``status``).

A master turn on a local model can take minutes; each step of its loop (``engine.gm.steps``)
goes out at once as a ``status`` frame for the message being written, in the player's words
(the catalogue's, in the language the turn started in): the engine sends only a step's key,
never a tool's name or what it found, so the words cannot tell a secret. The page shows the
frame's text in the reply until its narration arrives.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_noop as _

from engine.gm.steps import THINKING
from engine.llm.capabilities import Capabilities
from engine.turn import Turn
from play.relay import RunningTurn, relay

STEP_WORDS = {
    THINKING: _("The game master is thinking…"),
    "rule": _("Consulting a rule…"),
    "rolling": _("Rolling the dice…"),
    "moving": _("On the move…"),
    "looking": _("Looking around…"),
    "items": _("Handling your things…"),
    "trading": _("Striking a bargain…"),
    "body": _("Seeing to wounds and strength…"),
    "writing": _("Writing what happens…"),
}


def status_frame(message_id: int, step: str) -> dict[str, Any]:
    """One step of the master's turn; an unknown step reads as thinking."""
    words = STEP_WORDS.get(step, STEP_WORDS[THINKING])
    return {"type": "status", "message_id": message_id, "step": step, "text": gettext(words)}


def listen(
    turn: Turn, session_id: str, running: RunningTurn, capabilities: Capabilities | None
) -> None:
    """Let ``turn`` tell its steps to every socket of the session, and use what the server
    was found to accept. A step repeated back to back is not sent again."""
    last: list[str] = []

    def on_step(step: str) -> None:
        if last == [step]:
            return
        last[:] = [step]
        relay.publish(session_id, status_frame(running.message_id, step))

    turn.on_step = on_step
    turn.capabilities = capabilities
