"""The closure tool ``log_event`` (seed 001 "Cierre obligatorio con log_event", "log_event,
obligatorio en cada turno"; "Al cerrar una conversación, el máster apunta en el NPC una frase con
importancia de 1 a 3"; "El gesto de quien habla … va en cursiva dentro de su propia burbuja";
decisions 14, 17, 18 and 19).

It carries the narration, who acts, the suggested actions (2–4, leak-filtered), a roll request,
NPC memory sentences with their importance, trust moves with their reason and the speech
bubbles with gestures. The engine computes the witnesses (never the model), logs the event,
writes the memories, shifts trust, sets the pending roll, and records the names the narration
delivered as known to every player character who perceived it. Any invalid part refuses the
whole closure: nothing of it is applied and the turn is not closed.
"""

from __future__ import annotations

from typing import Any

from engine.gm.dice import DC_LADDER
from engine.gm.memory import one_sentence, remember
from engine.gm.scene import Scene
from engine.gm.state import log_event as append_event
from engine.gm.suggest import filter_suggestions, learn_names
from engine.gm.tools import refs
from engine.gm.tools.base import (
    Args,
    Tool,
    ToolOutcome,
    choice,
    fail,
    label,
    number,
    opt,
    params,
    text,
)
from engine.gm.tools.dice import CHECKS, request_attack, request_skill_check
from engine.gm.tools.trust import MOVES, shift_trust

LOG_EVENT = "log_event"


def _actor(scene: Scene, ref: str | None) -> str:
    kind, ident = refs.party(scene, ref)
    if kind == "character" and ident != scene.character_id:
        name = scene.gm.characters_by_id[ident].name
        raise fail(scene, "not_your_player", "other-player", name=name)
    return ident


def _bubbles(scene: Scene, bubbles: list[dict[str, Any]]) -> list[dict[str, str]]:
    out = []
    for bubble in bubbles:
        ident = _actor(scene, str(bubble["speaker"]))
        npc = scene.gm.npcs_by_id.get(ident)
        entry = {
            "speaker": ident,
            "name": label(scene, npc) if npc else scene.name,
            "text": " ".join(str(bubble["text"]).split()),
        }
        gesture = opt(bubble, "gesture")
        if gesture:
            entry["gesture"] = gesture
        out.append(entry)
    return out


def _roll(scene: Scene, roll: dict[str, Any]) -> ToolOutcome | None:
    """The roll the closure asks for; None when this turn already set the same one."""
    waiting = scene.state.pending.get(scene.character_id)
    check = str(roll["check"])
    if waiting is not None and (waiting.check or "attack") == check:
        return None
    if check == "attack":
        return request_attack(scene, {"target": roll.get("target")})
    return request_skill_check(scene, roll)


def _trust(scene: Scene, moves: list[dict[str, Any]]) -> dict[str, int]:
    shifts: dict[str, int] = {}
    for move in moves:
        npc = refs.npc_here(scene, str(move["npc"]))
        shifts[npc.id] = shifts.get(npc.id, 0) + shift_trust(scene, npc, str(move["move"]))
    return shifts


def _memories(scene: Scene, memories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Write each memory in its NPC, about the acting character (decision 18): one sentence
    per NPC (its first; a second memory for the same NPC is left out)."""
    written: list[dict[str, Any]] = []
    for memory in memories:
        npc = refs.npc_known(scene, str(memory["npc"]))
        if any(w["npc"] == npc.id for w in written):
            continue
        importance = int(memory.get("importance") or 1)
        text = one_sentence(str(memory["text"]))
        remember(scene.gm, scene.state, npc.id, scene.character_id, text, importance)
        written.append({"npc": npc.id, "importance": importance})
    return written


def log_event(scene: Scene, args: Args) -> ToolOutcome:
    narration = str(args["narration"]).strip()
    actor = _actor(scene, opt(args, "actor"))
    bubbles = _bubbles(scene, list(args.get("bubbles") or []))
    rolled = _roll(scene, dict(args["roll"])) if args.get("roll") else None
    outcome = rolled or ToolOutcome(True, {})
    shifts = _trust(scene, list(args.get("trust") or []))
    written = _memories(scene, list(args.get("memories") or []))
    witnesses = scene.witnesses()
    said = " ".join([narration, *(b["text"] for b in bubbles)])
    learnt = learn_names(scene, said, witnesses)
    offered = list(args.get("suggestions") or [])
    suggestions = filter_suggestions(offered, scene, (), heard=said)
    event = append_event(
        scene.state,
        "master",
        actor,
        scene.me.location,
        narration,
        seen_by=witnesses,
        data={"suggestions": suggestions, "bubbles": bubbles},
        at=scene.at,
    )
    outcome.changes.update({"trust": shifts} if shifts else {})
    outcome.changes.update({"memories": written} if written else {})
    outcome.changes.update({"knownNames": learnt} if learnt else {})
    outcome.result = {"logged": event.id, "suggestions": suggestions}
    outcome.events.append(event)
    outcome.closes_turn = True
    return outcome


_ROLL = params(
    ("check",),
    check=choice("The check, or 'attack'.", [*CHECKS, "attack"]),
    dc={"type": "integer", "enum": list(DC_LADDER), "description": "How hard (not for attack)."},
    target=text("The NPC it is against, if any (id or name).", 80),
)

_WHO = "'me', an NPC present (id) or 'here'"
_CLAIMS = params(
    (),
    acted_by={
        "type": "array",
        "maxItems": 6,
        "items": text("Who acted: 'me' or an NPC present (id).", 80),
        "description": "Everyone who did or said something this turn.",
    },
    changed_hands={
        "type": "array",
        "maxItems": 6,
        "items": params(
            ("item", "to"),
            item=text("The item (id).", 80),
            to=text(f"Who or where has it now: {_WHO}.", 80),
            **{"from": text(f"Who or where had it: {_WHO}.", 80)},
        ),
        "description": "Items that changed hands, each done by a tool this turn.",
    },
    money={
        "type": "array",
        "maxItems": 4,
        "items": params(
            ("from", "to"),
            to=text(f"Who got it: {_WHO}.", 80),
            amount=number("How much.", 0, 1_000_000),
            **{"from": text(f"Who paid: {_WHO}.", 80)},
        ),
        "description": "Money that moved, each by a tool this turn.",
    },
    learned={
        "type": "array",
        "maxItems": 4,
        "items": text("A clue (id) granted this turn.", 80),
        "description": "Clues the character learned (grant_clue).",
    },
    entered=text("The place (id) the character entered this turn, if he moved.", 80),
    outcome=choice("How the roll's action ended, when there was one.", ["success", "failure"]),
)

TOOLS = [
    Tool(
        LOG_EVENT,
        "Close the turn (mandatory, last): tell what happened in two or three short lines. "
        "Narrate only what the tools did and the one action resolved; never another player's "
        "character acting, a death or a return, time passing, a deal no tool recorded, an "
        "outcome against the roll, or a place that does not exist.",
        params(
            ("narration",),
            narration=text("What happened, for a phone screen.", 1200),
            actor=text("Who acted: 'me' (default) or an NPC present.", 80),
            suggestions={
                "type": "array",
                "items": text("A short action the player might take next.", 80),
                "maxItems": 8,
                "description": "2–4 reactions to what just happened, drawn from the character; "
                "never a name he has not heard (past four are cut).",
            },
            roll=_ROLL,
            memories={
                "type": "array",
                "maxItems": 4,
                "items": params(
                    ("npc", "text", "importance"),
                    npc=text("The NPC who remembers (id).", 80),
                    text=text("One sentence it remembers about the character.", 200),
                    importance=number("1 minor, 2 notable, 3 unforgettable.", 1, 3),
                ),
                "description": "When a conversation ends: what each NPC remembers of it.",
            },
            trust={
                "type": "array",
                "maxItems": 4,
                "items": params(
                    ("npc", "move"),
                    npc=text("The NPC present (id).", 80),
                    move=choice("The move of seed 001 (see adjust_trust).", MOVES),
                    reason=text("What happened, in a few words.", 160),
                ),
                "description": "Trust moves this turn caused.",
            },
            bubbles={
                "type": "array",
                "maxItems": 6,
                "items": params(
                    ("speaker", "text"),
                    speaker=text("Who speaks: an NPC present (id), or 'me'.", 80),
                    gesture=text("A gesture, shown in italics above the words.", 80),
                    text=text("The words, 1 to 4 sentences.", 400),
                ),
                "description": "What NPCs say aloud, each in its own bubble.",
            },
            claims={
                **_CLAIMS,
                "description": "Optional: what the narration claims, in structure; the "
                "engine checks it against the tools' results and the narration against it.",
            },
        ),
        log_event,
    ),
]
