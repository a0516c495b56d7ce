"""Whether the talk has come to an errand yet (seed 001 "Las misiones salen de la charla": "Un NPC
solo pide una misión o un encargo en una charla con el PJ que haya llegado a eso … Estar cerca
no basta: ni en la escena de apertura, ni en un turno en que el jugador pelea, se mueve o se
acerca a otro, ni de dos en dos. El servidor rechaza cualquier otra (too_soon)").

The talk has come to it when, this turn, the player speaks to this NPC (names it as he knows
it, or it is the only one here) and asks for work or about its troubles (``quest_asks`` in the
phrasebooks, any of the three languages); or when his last ``WHILE`` actions all happened in
its presence. Never before his first action (the opening scene), in a turn where he fights or
moves or turns to someone else, or for a second errand in the same turn.
"""

from __future__ import annotations

from engine.gm.mentions import mentioned, mentions
from engine.gm.phrasebook import phrasebook
from engine.gm.scene import Scene
from engine.gm.tools.base import marks, turn_events
from engine.gm.words import LANGUAGES
from engine.gm.world import Npc

WHILE = 3  # actions in its presence that make "a while" of talk
FIGHT_OR_MOVE = ("attack", "go", "arrive", "point")


def quest_ids(scene: Scene) -> set[str]:
    """The errands in the character's journal: taken in talk, or read on a notice."""
    notices = {n.id: n.quest for b in scene.gm.boards for n in b.notices if n.quest}
    out = set()
    for entry in scene.me.journal:
        if entry.kind == "quest" and entry.ref:
            out.add(entry.ref)
        elif entry.kind == "notice" and entry.ref in notices:
            out.add(str(notices[entry.ref]))
    return out


def asks_for_work(text: str) -> bool:
    for code in LANGUAGES:
        book = phrasebook(code)
        spaced = code != "zh"
        if any(mentions(text, phrase, spaced) for phrase in book.list("quest_asks")):
            return True
    return False


def too_soon(scene: Scene, npc: Npc) -> bool:
    """True unless the talk with ``npc`` has come to an errand (see the module docstring)."""
    me = scene.character_id
    actions = [e for e in scene.state.events if e.kind == "action" and e.actor == me]
    if not actions or "offer" in marks(scene):
        return True
    turn = turn_events(scene)
    fighting = scene.state.pending.get(me)
    if any(e.actor == me and e.kind in FIGHT_OR_MOVE for e in turn) or (
        fighting is not None and fighting.kind == "attack"
    ):
        return True
    words = actions[-1].text
    present = scene.npcs()
    named = mentioned(words, [(n.id, scene.npc_names_known(n)) for n in present], scene.lex.spaced)
    if named and npc.id not in named:
        return True
    spoken_to = npc.id in named or len(present) == 1
    if spoken_to and asks_for_work(words):
        return False
    recent = actions[-WHILE:]
    return not (len(recent) == WHILE and all(npc.id in e.seen_by for e in recent))
