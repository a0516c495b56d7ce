"""The trust tool (seed 001 "Qué mueve el trato": "Sube: cumplir sus encargos, darle lo que
necesita, ayudar a los suyos, adularle con gracia (a algunos les sienta mal), persuadirle y volver
a charlar con él. Baja: intimidarle, atacarle a él o a los suyos, insultarle, hostigarle, mentirle
y que te pille, o un crimen que vea"; decision 19).

The master names the move from that list and why; the engine shifts the score by the NPC's
authored amount (flattery sours an NPC that dislikes it). The same move shifts the same NPC once
per turn at most.
"""

from __future__ import annotations

from engine.gm.scene import Scene
from engine.gm.tools import refs
from engine.gm.tools.base import (
    Args,
    Tool,
    ToolOutcome,
    book,
    choice,
    fail,
    label,
    marks,
    params,
    text,
)
from engine.gm.trust import move_trust, trust_level
from engine.gm.world import Npc, TrustMoves

MOVES = tuple(TrustMoves.model_fields)


def shift_trust(scene: Scene, npc: Npc, move: str) -> int:
    """Apply one trust move of this turn; ToolError for an unknown move or a repeat."""
    if move not in MOVES:
        raise fail(scene, "arg_enum", "invalid", field="move", options=", ".join(MOVES))
    done = marks(scene)
    mark = f"trust:{npc.id}:{move}"
    if mark in done:
        raise fail(scene, "trust_again", "once-per-turn", npc=label(scene, npc))
    done.append(mark)
    return move_trust(scene.state, npc, scene.character_id, move)


def adjust_trust(scene: Scene, args: Args) -> ToolOutcome:
    npc = refs.npc_here(scene, str(args["npc"]))
    shift = shift_trust(scene, npc, str(args["move"]))
    level = trust_level(scene.state, npc, scene.character_id)
    done = book(scene).t(
        "trust_moved", npc=label(scene, npc), level=book(scene).t(f"trust_{level}")
    )
    result = {"done": done, "level": level}
    return ToolOutcome(True, result, changes={"trust": {npc.id: shift}})


TOOLS = [
    Tool(
        "adjust_trust",
        "Shift an NPC's trust in the character after what just happened, by one of seed 001's "
        "moves; the engine owns the amounts. Once per NPC and move per turn.",
        params(
            ("npc", "move"),
            npc=text("The NPC present (id or name).", 80),
            move=choice(
                "Raises: fulfil_quest, give_needed, help_people, flatter, persuade, chat_again. "
                "Lowers: intimidate, attack, attack_people, insult, harass, caught_lying, "
                "crime_seen.",
                MOVES,
            ),
            reason=text("What happened, in a few words.", 160),
        ),
        adjust_trust,
    ),
]
