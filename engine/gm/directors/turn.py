"""What the Scene Director's turn leaves in the log (seed 003 "El Director de Escena retiene las
escenas generadas previamente … Al final de las escenas, esas escenas forman recuerdos para el
PNJ"; decision 5: "A whisper reaches only its addressee"; decision 17).

The Game Director's ``log_event`` logged the turn's event with its own plain account; once the
Scene Director has played the turn, ``apply_scene`` puts the Scene Director's words on that
event (its narration, each NPC's words as a bubble) so that what the people here perceived is
what they later remember. When a secret was confided this turn, the event is seen only by the
confidence's witnesses; everyone else present perceives only that it happened (the engine's
``confide`` line). The names the words delivered become known to the characters who perceived
them. ``private_lines`` are what the character alone learnt (a clue's text): shown to his
player after the scene, never given to the Scene Director.
"""

from __future__ import annotations

from engine.gm.directors.stage import SceneReply
from engine.gm.report import MasterTurn
from engine.gm.scene import Scene
from engine.gm.state import GMEvent, log_event
from engine.gm.suggest import learn_names


def _replace(scene: Scene, turn: MasterTurn, old: GMEvent, new: GMEvent) -> None:
    events = scene.state.events
    for index in range(len(events) - 1, -1, -1):
        if events[index].id == old.id:
            events[index] = new
            break
    turn.events = [new if e.id == old.id else e for e in turn.events]


def _confidants(turn: MasterTurn) -> tuple[set[str], list[GMEvent]]:
    confides = [e for e in turn.events if e.kind == "confide"]
    return {w for e in confides for w in (e.actor, *e.seen_by, *e.heard_by)}, confides


def apply_scene(scene: Scene, turn: MasterTurn, reply: SceneReply | None) -> str:
    """Put the Scene Director's words (or, when it failed, keep the Game Director's account) on
    the turn's event; returns the narration to show."""
    narration = reply.narration if reply is not None else turn.narration
    master = next((e for e in reversed(turn.events) if e.kind == "master"), None)
    if master is None:
        return narration
    update: dict[str, object] = {}
    if reply is not None:
        bubbles = [b.to_dict() for b in reply.bubbles]
        update.update(text=reply.narration, data={**master.data, "bubbles": bubbles})
    allowed, confides = _confidants(turn)
    if confides:
        update["seen_by"] = [w for w in master.seen_by if w in allowed]
        update["heard_by"] = [w for w in master.heard_by if w in allowed]
        others = [w for w in (*master.seen_by, *master.heard_by) if w not in allowed]
        for confide in confides if others else []:
            turn.events.append(
                log_event(
                    scene.state,
                    "aside",
                    confide.actor,
                    confide.location,
                    confide.text,
                    seen_by=others,
                    at=confide.at,
                )
            )
    fresh = master.model_copy(update=update)
    _replace(scene, turn, master, fresh)
    if reply is not None:
        readers = [w for w in fresh.seen_by if w in scene.state.characters]
        learnt = learn_names(scene, reply.said, readers)
        known = turn.changes.setdefault("knownNames", {})
        for who, names in learnt.items():
            known[who] = list(dict.fromkeys([*known.get(who, []), *names]))
        if not known:
            del turn.changes["knownNames"]
    return narration


def private_lines(turn: MasterTurn) -> list[str]:
    """What the character alone learnt this turn: each clue's text."""
    out = []
    for call in turn.tool_calls:
        text = call.result.get("text")
        if call.name == "grant_clue" and call.ok and isinstance(text, str) and text.strip():
            out.append(f"{call.result.get('clue', '')}: {text}".strip(": "))
    return out
