"""What every tool of the master shares (seed 001 "Las tools": "Motor valida, calcula y aplica
cada cambio"; "Si una tool falla, el motor devuelve el error y el máster lo vuelve a narrar").

A ``Tool`` is a provider-neutral JSON Schema plus a ``run`` that validates, computes and applies
its change to the scene it is given, returning a ``ToolOutcome``, or raises ``ToolError`` with a
reason the master can narrate. ``engine.gm.tools.execute`` gives each run a copy of the turn's
state and keeps it only when the run succeeds. The turn's marks (what the tools already did in
this turn) and event logging in the world's language live here too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.gm.dice import Roll
from engine.gm.phrasebook import Phrasebook, phrasebook
from engine.gm.scene import Scene
from engine.gm.state import GMEvent, PendingCheck, TurnMarks, log_event
from engine.gm.world import Npc
from engine.session import ToolCall

Args = Mapping[str, Any]
Schema = dict[str, Any]

__all__ = ["Args", "Schema", "Tool", "ToolCall", "ToolError", "ToolOutcome"]


@dataclass
class ToolOutcome:
    """What the engine did with a call; ``result`` is the JSON the model reads back (never a
    secret unless ``reveal_secret``'s gate passed)."""

    ok: bool
    result: dict[str, Any]
    error: str = ""
    events: list[GMEvent] = field(default_factory=list)
    changes: dict[str, Any] = field(default_factory=dict)
    rolls: list[Roll] = field(default_factory=list)
    closes_turn: bool = False
    pending: PendingCheck | None = None

    def to_dict(self) -> dict[str, Any]:
        """The tool result the model reads: the result, or the error to narrate."""
        if self.ok:
            return {"ok": True, **self.result}
        return {"ok": False, "error": self.error, **self.result}


class ToolError(Exception):
    """A call the engine refuses; ``message`` is narratable, ``code`` a stable name."""

    def __init__(self, message: str, code: str = "invalid") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


Run = Callable[[Scene, Args], ToolOutcome]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: Schema
    run: Run = field(repr=False, compare=False)

    def schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


# --- schemas ------------------------------------------------------------------------------------


def params(required: tuple[str, ...] = (), /, **properties: Schema) -> Schema:
    """An object schema; the properties in the order given, ``required`` listed."""
    schema: Schema = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    return schema


def text(description: str, max_length: int = 200, **more: Any) -> Schema:
    return {"type": "string", "description": description, "maxLength": max_length, **more}


def choice(description: str, options: list[str] | tuple[str, ...]) -> Schema:
    return {"type": "string", "description": description, "enum": list(options)}


def number(description: str, minimum: int, maximum: int) -> Schema:
    return {"type": "integer", "description": description, "minimum": minimum, "maximum": maximum}


def flag(description: str) -> Schema:
    return {"type": "boolean", "description": description}


def opt(args: Args, key: str) -> str | None:
    """A string argument, None when absent or empty."""
    value = args.get(key)
    return value if isinstance(value, str) and value.strip() else None


def new_id(prefix: str, taken: set[str]) -> str:
    """``prefix-1``, ``prefix-2``… the first one not ``taken``."""
    n = 1
    while f"{prefix}-{n}" in taken:
        n += 1
    return f"{prefix}-{n}"


# --- words, errors, events ----------------------------------------------------------------------


def book(scene: Scene) -> Phrasebook:
    """The turn's phrasebook: the language the master narrates in (the world's)."""
    return phrasebook(scene.lex.language)


def fail(scene: Scene, key: str, code: str = "invalid", **values: Any) -> ToolError:
    words = book(scene)
    return ToolError(words.tidy(words.t(key, **values)), code)


def label(
    scene: Scene,
    npc: Npc,
    witnesses: list[str] | None = None,
    words: Phrasebook | None = None,
) -> str:
    """How an NPC is named in text others read: its name when every player character among
    ``witnesses`` (the scene's character by default) knows it, else by its trade ("the
    innkeeper")."""
    if not npc.trade:
        return npc.name
    readers = [w for w in witnesses or [scene.character_id] if w in scene.state.characters]
    known = all(npc.id in scene.state.characters[r].known_names for r in readers)
    return npc.name if known else (words or book(scene)).trade_name(npc.trade)


def place_label(
    scene: Scene,
    location_id: str,
    witnesses: list[str] | None = None,
    words: Phrasebook | None = None,
) -> str:
    """How a place is named in text a player reads (a tool's result or refusal, which the
    fallback closure shows him; an event others read): its name when every player character
    among ``witnesses`` (the scene's character by default) knows it (``Scene.knows_place``),
    else "a place you don't know" (issue 32: an undiscovered place is never named)."""
    readers = [w for w in witnesses or [scene.character_id] if w in scene.state.characters]
    if all(_view(scene, r).knows_place(location_id) for r in readers):
        return scene.place_name(location_id)
    return (words or book(scene)).t("somewhere")


def _view(scene: Scene, character_id: str) -> Scene:
    """The scene as another player character present sees it (his discoveries, his places)."""
    if character_id == scene.character_id:
        return scene
    return replace(scene, character_id=character_id, _npcs={})


def log(
    scene: Scene,
    kind: str,
    key: str,
    *,
    location: str | None = None,
    seen_by: list[str] | None = None,
    data: dict[str, Any] | None = None,
    **values: Any,
) -> GMEvent:
    """Log an event in the world's language, seen by everyone present unless told. Its NPCs
    are named as every reader knows them: the witnesses and the acting character, who reads
    his own events back even when he did not see them (an NPC moved elsewhere)."""
    where = location or scene.me.location
    witnesses = seen_by if seen_by is not None else scene.witnesses(where)
    words = phrasebook(scene.world_lex.language)
    readers = list(dict.fromkeys([scene.character_id, *witnesses]))
    named = {k: _named(scene, v, readers, words) for k, v in values.items()}
    return log_event(
        scene.state,
        kind,
        scene.character_id,
        where,
        words.tidy(words.t(key, actor=scene.name, **named)),
        seen_by=witnesses,
        data=data or {},
        at=scene.at,
    )


def record(
    scene: Scene,
    kind: str,
    key: str,
    *,
    data: dict[str, Any] | None = None,
    seen_by: list[str] | None = None,
    location: str | None = None,
    **values: Any,
) -> ToolOutcome:
    """Log the event ``key`` (world's language) and answer ok with the same line in the turn's
    language as what was done."""
    event = log(scene, kind, key, data=data, seen_by=seen_by, location=location, **values)
    words = book(scene)
    named = {k: _named(scene, v, [scene.character_id], words) for k, v in values.items()}
    done = words.tidy(words.t(key, actor=scene.name, **named))
    return ToolOutcome(True, {"done": done}, events=[event])


def _named(scene: Scene, value: Any, witnesses: list[str], words: Phrasebook) -> Any:
    return label(scene, value, witnesses, words) if isinstance(value, Npc) else value


# --- the turn -----------------------------------------------------------------------------------


def turn_start(scene: Scene) -> int:
    """The id of the event that opened the character's turn: its latest ``action`` event (the
    player's words), so a roll's consequence belongs to the action that asked for it."""
    for event in reversed(scene.state.events):
        if event.kind == "action" and event.actor == scene.character_id:
            return event.id
    return 0


def turn_events(scene: Scene) -> list[GMEvent]:
    start = turn_start(scene)
    out = []
    for event in reversed(scene.state.events):
        if event.id < start:
            break
        out.append(event)
    return out[::-1]


def marks(scene: Scene) -> list[str]:
    """This turn's marks (what the tools already did), reset when a new turn starts."""
    start = turn_start(scene)
    current = scene.state.turn_marks.get(scene.character_id)
    if current is None or current.event != start:
        current = TurnMarks(event=start)
        scene.state.turn_marks[scene.character_id] = current
    return current.marks


def can_act(scene: Scene) -> None:
    """ToolError when the scene's character is down (dying, unconscious)."""
    down = [c for c in scene.me.conditions if c in ("dying", "unconscious", "stable")]
    if down or scene.me.hp <= 0:
        raise fail(scene, "cannot_act", "cannot-act", actor=scene.name)
