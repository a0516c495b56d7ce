"""Demo steps: what the player did, in order, so a replayed demo repeats it (issue 11 §6, §8).

A recording keys the model's exchanges by the request, which answers the same prompts again;
but the same prompts only come if the player's inputs (a message, a click on the board, the Roll
button, Continue) are repeated in the same order. Record mode appends each committed turn's
input to ``recording["inputs"]``; an exported demo carries them as ``steps``; a replay session
keeps them under ``steps`` and counts what it has played in its own ``inputs``. The next step is
``steps[len(inputs)]``: the server, not the page, decides what plays next, so a page reloaded
mid-demo or two tabs cannot skip or repeat one.

World demos: the creator publishes a recording of their world as its demo
(``WorldDemo``); anybody who can play the world watches it as a replay at zero cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from play import frames
from play.errors import PlayError
from play.frames import MAX_TEXT
from play.models import Session, WorldDemo
from studio.models import World

STEP_KINDS = ("message", "action", "continue", "regenerate")
MAX_STEPS = 2000
MAX_ACTION_ID = 200


@dataclass(frozen=True)
class Step:
    """One input of the player, as the turn it started was planned."""

    kind: str
    text: str = ""
    action: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.text:
            data["text"] = self.text
        if self.action:
            data["action"] = self.action
        return data


def after_turn(
    saved: dict[str, Any],
    recording: dict[str, Any] | None,
    clock_key: str,
    clock: dict[str, Any],
    step: Step,
) -> dict[str, Any]:
    """The session's recording after a committed turn.

    Record mode (``recording`` given) stores the new exchanges, the turn's clock and its input;
    replay (``None``) only counts the input it played: its clocks are the recorded ones.
    """
    inputs = _as_list(saved.get("inputs"))
    if step.kind != "action" or step.text or step.action:  # not a rule's follow-up call
        inputs.append(step.to_dict())
    if recording is None:
        return {**saved, "inputs": inputs}
    turns = {**(saved.get("turns") or {}), clock_key: clock}
    return {**recording, "turns": turns, "inputs": inputs}


def clean_steps(value: Any, actions: Any = None) -> list[dict[str, Any]]:
    """The steps of an imported demo, checked; a demo from before steps replays its messages."""
    if value is None:
        texts = actions if isinstance(actions, list) else []
        return [Step("message", t).to_dict() for t in texts if isinstance(t, str) and t][:MAX_STEPS]
    if not isinstance(value, list) or len(value) > MAX_STEPS:
        raise PlayError(_("The demo's steps are not a list of steps."), field="steps")
    return [_clean_step(item, f"steps[{index}]").to_dict() for index, item in enumerate(value)]


def _clean_step(item: Any, path: str) -> Step:
    if not isinstance(item, dict) or item.get("kind") not in STEP_KINDS:
        raise PlayError(_("A step needs a known kind."), field=f"{path}.kind")
    text, action = item.get("text", ""), item.get("action")
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise PlayError(_("A step's text must be a string."), field=f"{path}.text")
    if action is not None and (not isinstance(action, str) or not 0 < len(action) <= MAX_ACTION_ID):
        raise PlayError(_("A step's action must be an action id."), field=f"{path}.action")
    if item["kind"] == "message" and not text.strip():
        raise PlayError(_("A message step needs its text."), field=f"{path}.text")
    return Step(item["kind"], text, action)


def next_step(session: Session) -> Step:
    """What a replay plays next; PlayError when the session is no demo or the demo is over."""
    steps = _steps(session)
    if session.mode != "replay" or not steps:
        raise PlayError(_("This session is not a demo."))
    done = len(_as_list((session.recording or {}).get("inputs")))
    if done >= len(steps):
        raise PlayError(_("The demo is over: every step has been played."))
    return _clean_step(steps[done], f"steps[{done}]")


def progress(session: Session) -> dict[str, Any] | None:
    """The play page's demo bar: every step and how many were played (None: not a demo)."""
    steps = _steps(session)
    if session.mode != "replay" or not steps:
        return None
    done = len(_as_list((session.recording or {}).get("inputs")))
    return {"steps": steps, "played": min(done, len(steps))}


def progress_frame(session_id: str) -> dict[str, Any]:
    """``demo``: how many steps of the replayed demo were played (after each of its turns)."""
    session = Session.objects.only("mode", "recording").get(pk=session_id)
    current = progress(session) or {"steps": [], "played": 0}
    return frames.demo(current["played"], len(current["steps"]))


def _steps(session: Session) -> list[dict[str, Any]]:
    return [s for s in _as_list((session.recording or {}).get("steps")) if isinstance(s, dict)]


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


# --- a world's published demo ----------------------------------------------------------------


def publish(world: World, demo: dict[str, Any], title: str) -> WorldDemo:
    """Make ``demo`` (a signed export of a recording of ``world``) the world's demo."""
    published, _created = WorldDemo.objects.update_or_create(
        world=world,
        defaults={"data": demo, "title": title[:200], "published_at": timezone.now()},
    )
    return published


def demo_of(world: World) -> WorldDemo | None:
    return WorldDemo.objects.filter(world=world).first()
