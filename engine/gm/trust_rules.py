"""The engine's own reading of what moves trust (seed 001 "Qué mueve el trato": "Sube: cumplir sus
encargos, darle lo que necesita, ayudar a los suyos, adularle con gracia (a algunos les sienta
mal), persuadirle y volver a charlar con él. Baja: intimidarle, atacarle a él o a los suyos,
insultarle, hostigarle, mentirle y que te pille, o un crimen que vea"; decision 19).

Every move is an engine rule; the master's ``adjust_trust`` only adds what no rule can see.

=============== ==================================================================== ==========
move            the rule                                                             where
=============== ==================================================================== ==========
fulfil_quest    he completes one of its errands                                      complete_errand
give_needed     an item it ``needs`` ends in its hands (a give this turn)            here
help_people     he completes an errand whose owner is one of its ``people``          here
flatter         his words flatter it (an NPC that dislikes flattery: lowers it)      here
persuade        a persuasion check against it succeeds                               outcomes
chat_again      he comes back to talk to it (a reunion), once a game day             here
intimidate      an intimidation check against it, or threatening words               outcomes, here
attack          he attacks it                                                        outcomes
attack_people   he attacks one of its people                                         outcomes
insult          his words insult it                                                  here
harass          he keeps at it: a second insult in one talk (the ladder's insistence) here
caught_lying    a deception check against it fails                                   outcomes
crime_seen      it sees him try to rob it, or sees a theft or an attack on another   outcomes, here
=============== ==================================================================== ==========

The rules here use the turn's marks (``engine.gm.tools.base.marks``) like ``adjust_trust``: one
move shifts one NPC once per turn, whoever noticed it first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.gm.conversation import INSISTENCE
from engine.gm.scene import Scene
from engine.gm.state import GMEvent
from engine.gm.tools.base import marks, turn_events
from engine.gm.trust import move_trust
from engine.gm.world import Npc

RAISES = ("fulfil_quest", "give_needed", "help_people", "flatter", "persuade", "chat_again")
LOWERS = (
    "intimidate",
    "attack",
    "attack_people",
    "insult",
    "harass",
    "caught_lying",
    "crime_seen",
)
Move = tuple[Npc, str]


def word_moves(kinds: Sequence[str], escalation_before: int, escalation_after: int) -> list[str]:
    """The moves his words make on the NPC he talks to."""
    out = []
    if "flattery" in kinds:
        out.append("flatter")
    if "insult" in kinds:
        out.append("insult")
    if "threat" in kinds:
        out.append("intimidate")
    if escalation_before < INSISTENCE <= escalation_after and "insult" in kinds:
        out.append("harass")
    return out


def event_moves(scene: Scene, events: Iterable[GMEvent]) -> list[Move]:
    """The moves this turn's events make: a needed gift, help to its people, a crime seen."""
    out: list[Move] = []
    for event in events:
        if event.actor != scene.character_id:
            continue
        if event.kind == "give":
            out += _gift(scene, event)
        elif event.kind == "errand":
            out += _help(scene, event)
        elif _crime(event):
            out += _seen(scene, event)
    return out


def _gift(scene: Scene, event: GMEvent) -> list[Move]:
    item = str(event.data.get("item") or "")
    holder = scene.state.items.get(item)
    npc = scene.gm.npcs_by_id.get(holder.npc or "") if holder is not None else None
    return [(npc, "give_needed")] if npc is not None and item in npc.needs else []


def _help(scene: Scene, event: GMEvent) -> list[Move]:
    quest = scene.gm.quests_by_id.get(str(event.data.get("quest") or ""))
    owner = (quest.owner or quest.offered_by) if quest is not None else None
    if owner is None:
        return []
    return [(n, "help_people") for n in scene.gm.npcs if owner in n.people and n.id != owner]


def _crime(event: GMEvent) -> bool:
    """An attack, or a theft that was noticed (a quiet success is seen by nobody)."""
    if event.kind == "attack":
        return True
    data = event.data
    if event.kind != "check" or data.get("verb") != "steal":
        return False
    total, dc = data.get("total"), data.get("dc")
    return isinstance(total, int) and isinstance(dc, int) and total < dc


def _seen(scene: Scene, event: GMEvent) -> list[Move]:
    """Each NPC that saw the crime, but neither its victim nor the victim's people (the attack
    and theft rules already moved theirs)."""
    victim = event.data.get("target")
    out: list[Move] = []
    for who in event.seen_by:
        npc = scene.gm.npcs_by_id.get(who)
        if npc is None or npc.id == victim:
            continue
        if event.kind == "attack" and victim in npc.people:
            continue
        out.append((npc, "crime_seen"))
    return out


def apply_moves(scene: Scene, moves: Iterable[Move]) -> dict[str, int]:
    """Shift trust for each move not yet made on that NPC this turn; returns the shifts."""
    done = marks(scene)
    shifts: dict[str, int] = {}
    for npc, move in moves:
        mark = f"trust:{npc.id}:{move}"
        if mark in done:
            continue
        done.append(mark)
        shift = move_trust(scene.state, npc, scene.character_id, move)
        shifts[npc.id] = shifts.get(npc.id, 0) + shift
    return {k: v for k, v in shifts.items() if v}


def apply_turn_rules(scene: Scene) -> dict[str, int]:
    """Apply the event rules to the events of the character's current turn."""
    return apply_moves(scene, event_moves(scene, turn_events(scene)))
