"""``python -m engine gm --replay REC.json``: a recording played again on the command line (seed
001 "Modos de ejecución": a recorded session "se puede exportar y reproducir" at zero cost;
issue 33 §6: "missing steps answered offline").

REC.json is what the site's recording export writes (``play.recordings.export_recording``): a
``fabula-demo`` whose ``recording`` holds the model's exchanges (``engine.llm.recording``), whose
``steps`` are the player's inputs in order (``{"kind": "message", "text"}``, ``{"kind":
"action", "action": "roll" | "click:location:<id>" | "click:point:<id>"}``, ``regenerate``),
whose ``character`` plays and whose ``turns`` keep each turn's dice seed and clock under
``"<position>:<kind>"``. A bare ``fabula-recording`` works too, with ``--script`` giving the
actions (a script given beside a demo wins over its steps).

Each step is played with a ``ReplayProvider`` over the recording, with the turn's recorded dice
seed and clock when the export kept them; when any request of the step is not in the recording
(another world version, another model), that step is played again from the state before it by
the offline master, so the replay never stops and never calls a model. The signature of the
export is the site's business, not checked here: nothing replayed applies a directive (the
engine owns the numbers through the master's tools).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.gm.play import GMAction, GMActionResult, play_gm_action
from engine.llm.base import Provider
from engine.llm.offline import OfflineProvider
from engine.llm.recording import RECORDING_FORMAT, Recording, ReplayProvider
from engine.session import SessionState
from engine.world import WorldDefinition

DEMO_FORMAT = "fabula-demo"
ROLL = "roll"
CLICK = "click:"


class ReplayError(ValueError):
    """REC.json is no recording, or holds nothing to play."""


@dataclass(frozen=True)
class Step:
    """One action to replay, with the dice seed and clock its turn had, when recorded."""

    action: GMAction
    seed: int | None = None
    now: datetime | None = None


@dataclass(frozen=True)
class Demo:
    recording: Recording
    steps: tuple[Step, ...]
    character: str | None


def read_demo(data: Any) -> Demo:
    """The recording and the steps of an export (or of a bare recording: no steps)."""
    if not isinstance(data, Mapping):
        raise ReplayError("a recording is a JSON object (a fabula-demo export)")
    if data.get("format") == RECORDING_FORMAT:
        return Demo(Recording.from_dict(data), (), None)
    if data.get("format") != DEMO_FORMAT:
        raise ReplayError('not a recording export: "format" is neither fabula-demo nor recording')
    try:
        recording = Recording.from_dict(data.get("recording") or {})
    except ValueError as exc:
        raise ReplayError(f"recording: {exc}") from None
    character = data.get("character")
    steps = _steps(data)
    pinned = _pinned(data.get("turns"))
    timed = tuple(
        Step(action, *(pinned[i] if i < len(pinned) else (None, None)))
        for i, action in enumerate(steps)
    )
    return Demo(recording, timed, character if isinstance(character, str) else None)


def _steps(data: Mapping[str, Any]) -> list[GMAction]:
    """The actions of the export's steps (its messages, for an export from before steps)."""
    steps = data.get("steps")
    if not isinstance(steps, list):
        actions = data.get("actions")
        steps = [{"kind": "message", "text": t} for t in actions or [] if isinstance(t, str)]
    out: list[GMAction] = []
    for step in steps:
        action = step_action(step, out)
        if action is not None:
            out.append(action)
    return out


def step_action(step: Any, before: list[GMAction]) -> GMAction | None:
    """The game-master action of one recorded step (as ``engine.gm.adapter`` reads a turn);
    None for a step that plays nothing (a continue, which a game-master world refuses)."""
    if not isinstance(step, Mapping):
        return None
    kind, text, action = step.get("kind"), str(step.get("text") or ""), step.get("action")
    if kind == "message" and text.strip():
        return text
    if kind == "regenerate":
        return next((a for a in reversed(before) if isinstance(a, str)), None)
    if kind != "action":
        return None
    if action == ROLL:
        return {"roll": True}
    if isinstance(action, str) and action.startswith(CLICK):
        where, _, ident = action.removeprefix(CLICK).partition(":")
        if where in ("location", "point") and ident:
            return {"click": {where: ident}}
    return text if text.strip() else None


def _pinned(turns: Any) -> list[tuple[int | None, datetime | None]]:
    """Each played turn's dice seed and clock, in the order played (keys ``position:kind``)."""
    if not isinstance(turns, Mapping):
        return []
    played = []
    for key, turn in turns.items():
        position = str(key).split(":", 1)[0]
        if not position.isdigit() or not isinstance(turn, Mapping):
            continue
        played.append((int(position), _seed(turn.get("dice")), _now(turn.get("now"))))
    return [(seed, now) for _, seed, now in sorted(played, key=lambda p: p[0])]


def _seed(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


def _now(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


Wrap = Callable[[Provider], Provider]  # --trace wraps each provider


async def replay_step(
    world: WorldDefinition,
    state: SessionState,
    who: str,
    step: Step,
    recording: Recording,
    *,
    seed: int,
    language: str | None = None,
    wrap: Wrap = lambda p: p,
) -> tuple[GMActionResult, bool]:
    """Play ``step`` from the recording; True when it did, False when a request was missing
    and the offline master played it instead (from the same state: it is never mutated)."""
    offline = OfflineProvider(world.language or "en")
    replayer = ReplayProvider(recording, offline)
    now = step.now
    clock = (lambda: now) if now is not None else None
    rng_seed = step.seed if step.seed is not None else seed
    options: dict[str, Any] = {"clock": clock, "rng_seed": rng_seed, "language": language}
    done = await play_gm_action(world, state, who, step.action, provider=wrap(replayer), **options)
    if not replayer.misses:
        return done, True
    again = await play_gm_action(world, state, who, step.action, provider=wrap(offline), **options)
    return again, False
