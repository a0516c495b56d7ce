"""World tools (seed 001 "Mundo: sembrar o cancelar un gancho, sembrar un rumor, apuntar un hecho
del personaje"; "El máster … siembra ganchos y rumores"; decision 7).

A seeded hook has the authored shape (trigger: entering a place, or a time of day from a day
on; effect: an event text) and fires through ``engine.gm.hooks`` like an authored one; a hook
that already fired once cannot be cancelled. Rumours are heard at places of the world. Facts
attach to an existing player character. The master never names a time before now: a hook in the
past would fire at once, which is advancing the story's clock by the back door. What the tools
answer names a place only when the character knows it (the fallback closure shows it him).
"""

from __future__ import annotations

from typing import Any

from engine.gm.scene import Scene
from engine.gm.state import time_index
from engine.gm.tools import refs
from engine.gm.tools.base import (
    Args,
    Tool,
    ToolOutcome,
    book,
    choice,
    fail,
    flag,
    new_id,
    number,
    opt,
    params,
    place_label,
    text,
)
from engine.gm.world import TIMES_OF_DAY, GameClock, Hook, HookTrigger, Rumour


def seed_hook(scene: Scene, args: Args) -> ToolOutcome:
    trigger: dict[str, Any] = dict(args["trigger"])
    kind = trigger.get("type")
    where = opt(trigger, "location")
    location = refs.location(scene, where) if where else None
    if kind == "enter" and location is None:
        raise fail(scene, "hook_where", "hook-where")
    day, time = trigger.get("day"), opt(trigger, "time_of_day")
    if kind == "time":
        clock = scene.state.clock
        when = GameClock.model_validate(
            {"day": day or clock.day, "time_of_day": time or clock.time_of_day}
        )
        if time_index(when) <= time_index(clock):
            raise fail(scene, "hook_past", "hook-past")
    taken = {h.id for h in [*scene.gm.hooks, *scene.state.hooks]}
    hook = Hook(
        id=new_id("seeded-hook", taken),
        trigger=HookTrigger.model_validate(
            {"type": kind, "location": location, "day": day, "time_of_day": time}
        ),
        text=str(args["text"]).strip(),
        once=args.get("once", True) is not False,
    )
    scene.state.hooks.append(hook)
    done = book(scene).t("hook_seeded", hook=hook.id)
    dumped = hook.model_dump(mode="json", by_alias=True, exclude_none=True)
    return ToolOutcome(True, {"done": done, "hook": hook.id}, changes={"hooks": [dumped]})


def cancel_hook(scene: Scene, args: Args) -> ToolOutcome:
    ident = str(args["hook"])
    hook = next((h for h in [*scene.gm.hooks, *scene.state.hooks] if h.id == ident), None)
    if hook is None:
        seeded = ", ".join(h.id for h in scene.state.hooks) or "-"
        raise fail(scene, "hook_unknown", "unknown-hook", hook=ident, options=seeded)
    if ident in scene.state.cancelled_hooks:
        raise fail(scene, "hook_cancelled", "hook-cancelled", hook=ident)
    if hook.once and ident in scene.state.fired_hooks:
        raise fail(scene, "hook_fired", "hook-fired", hook=ident)
    scene.state.cancelled_hooks.append(ident)
    done = book(scene).t("hook_cancelled_done", hook=ident)
    return ToolOutcome(True, {"done": done}, changes={"cancelledHooks": [ident]})


def seed_rumour(scene: Scene, args: Args) -> ToolOutcome:
    places = [refs.location(scene, str(p)) for p in args.get("heard_at") or []]
    if not places:
        places = [scene.me.location]
    taken = {r.id for r in [*scene.gm.rumours, *scene.state.rumours]}
    rumour = Rumour(
        id=new_id("seeded-rumour", taken),
        text=str(args["text"]).strip(),
        heard_at=list(dict.fromkeys(places)),
    )
    scene.state.rumours.append(rumour)
    known = [p for p in rumour.heard_at if scene.knows_place(p)]
    unknown = [p for p in rumour.heard_at if p not in known][:1]  # one "a place you don't know"
    where = scene.lex.join(place_label(scene, p) for p in [*known, *unknown])
    done = book(scene).t("rumour_seeded", places=where)
    dumped = rumour.model_dump(mode="json", by_alias=True)
    return ToolOutcome(True, {"done": done, "rumour": rumour.id}, changes={"rumours": [dumped]})


def note_character_fact(scene: Scene, args: Args) -> ToolOutcome:
    who = refs.character(scene, opt(args, "character"))
    fact = " ".join(str(args["fact"]).split())
    facts = scene.state.characters[who].facts
    if fact.casefold() in (f.casefold() for f in facts):
        raise fail(scene, "fact_known", "fact-known")
    facts.append(fact)
    name = scene.gm.characters_by_id[who].name
    done = book(scene).t("fact_noted", name=name)
    return ToolOutcome(True, {"done": done}, changes={"facts": {who: [fact]}})


TOOLS = [
    Tool(
        "seed_hook",
        "Sow a hook: something that happens later, when a character enters a place or from a "
        "time of day on (never in the past). The engine fires it; the text is what happens.",
        params(
            ("trigger", "text"),
            trigger=params(
                ("type",),
                type=choice("enter a place, or a time.", ["enter", "time"]),
                location=text("The place (for enter; optional for time).", 80),
                day=number("From this game day (time).", 1, 100_000),
                time_of_day=choice("From this time of day (time).", TIMES_OF_DAY),
            ),
            text=text("What happens when it fires, one or two sentences.", 300),
            once=flag("Fire only once (default true)."),
        ),
        seed_hook,
    ),
    Tool(
        "cancel_hook",
        "Cancel a hook that has not fired yet (one seeded in play, by the id seed_hook gave).",
        params(("hook",), hook=text("The hook's id.", 80)),
        cancel_hook,
    ),
    Tool(
        "seed_rumour",
        "Sow a rumour, heard at the places given (here by default).",
        params(
            ("text",),
            text=text("The rumour, as people tell it.", 300),
            heard_at={
                "type": "array",
                "items": text("A place.", 80),
                "maxItems": 5,
                "description": "Where it is heard.",
            },
        ),
        seed_rumour,
    ),
    Tool(
        "note_character_fact",
        "Note a fact about a player character that the world will remember (a crime, a "
        "reputation, a promise).",
        params(
            ("fact",),
            character=text("The character ('me' by default).", 80),
            fact=text("The fact, one sentence.", 300),
        ),
        note_character_fact,
    ),
]
