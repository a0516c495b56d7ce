"""Progress tools (seed 001 "Progreso: conceder pista, completar encargo"; "si grant_clue da una
que no, el motor la rechaza con el motivo para narrarlo"; "Las misiones salen de la charla … El
servidor rechaza cualquier otra (too_soon)"; "El máster conoce los secretos, pero no los desvela";
decisions 6, 11 and 12).

``grant_clue`` gives a clue anchored here or to an NPC present only when ``engine.gm.clues``
says the character can get it, and otherwise says why without its text. ``offer_quest`` is
refused ``too_soon`` unless the talk has come to it. ``reveal_secret`` hands the master a secret
only past the engine's gate (``engine.gm.secrets``); no other tool result ever carries one.
"""

from __future__ import annotations

from engine.gm import handin, localize
from engine.gm.clues import clue_status, unmet_requirement
from engine.gm.scene import Scene
from engine.gm.secrets import reveal, secret_gate
from engine.gm.tools import refs
from engine.gm.tools.base import (
    Args,
    Tool,
    ToolOutcome,
    book,
    fail,
    label,
    marks,
    params,
    record,
    text,
    turn_events,
)
from engine.gm.tools.talk import quest_ids, too_soon
from engine.gm.trust import move_trust
from engine.gm.words import match_names
from engine.gm.world import Clue, JournalEntry, Quest


def _clue(scene: Scene, ref: str) -> Clue:
    """A clue anchored to this place or to an NPC present, by id or name."""
    present = {n.id for n in scene.npcs()}
    here = [
        c
        for c in scene.gm.clues
        if c.anchor.location == scene.me.location or c.anchor.npc in present
    ]
    exact = [c for c in here if c.id == ref]
    named = [(c.id, localize.either(scene.gm, c.name)) for c in here]  # the world's name too
    found = exact or [c for c in here if [c.id] == match_names(scene.lex, ref, named)]
    if len(found) != 1:
        raise fail(scene, "clue_not_here", "clue-not-here")
    return found[0]


def grant_clue(scene: Scene, args: Args) -> ToolOutcome:
    clue = _clue(scene, str(args["clue"]))
    status, checks = clue_status(scene.gm, scene.state, scene.character_id, clue, scene.values)
    if status == "obtained":
        raise fail(scene, "clue_obtained", "clue-obtained", actor=scene.name)
    if status == "needs-check":
        check = scene.lex.name("checks", checks[0].check)
        raise fail(scene, "clue_needs_check", "clue-needs-check", check=check, dc=checks[0].dc)
    if status == "locked":
        raise _locked(scene, clue)
    me = scene.me
    me.clues.append(clue.id)
    entry = JournalEntry(
        kind="clue", ref=clue.id, title=clue.name, text=clue.text, day=scene.state.clock.day
    )
    me.journal.append(entry)
    outcome = record(
        scene,
        "clue",
        "ev_clue",
        data={"clue": clue.id},
        seen_by=[scene.character_id],
        clue=clue.name,
    )
    outcome.result.update({"clue": clue.name, "text": clue.text})
    outcome.changes = {"clues": [clue.id]}
    return outcome


def _locked(scene: Scene, clue: Clue) -> Exception:
    need = unmet_requirement(scene.gm, scene.state, scene.character_id, clue, scene.values)
    if need is not None and need.type == "trust":
        npc = scene.gm.npcs_by_id[need.npc]
        return fail(
            scene, "clue_needs_trust", "clue-locked", npc=label(scene, npc), actor=scene.name
        )
    key = {"item": "clue_needs_item", "clue": "clue_needs_clue"}.get(
        need.type if need else "", "clue_locked"
    )
    return fail(scene, key, "clue-locked", actor=scene.name)


def _quest(scene: Scene, ref: str, pool: list[Quest], missing: str) -> Quest:
    exact = [q for q in pool if q.id == ref]
    named = [(q.id, localize.either(scene.gm, q.title)) for q in pool]
    found = exact or [q for q in pool if [q.id] == match_names(scene.lex, ref, named)]
    if len(found) != 1:
        raise fail(scene, missing, "unknown-quest", ref=ref, actor=scene.name)
    return found[0]


def complete_errand(scene: Scene, args: Args) -> ToolOutcome:
    taken = quest_ids(scene)
    pool = [q for q in scene.gm.quests if q.id in taken]
    quest = _quest(scene, str(args["quest"]), pool, "quest_not_taken")
    if quest.id in scene.me.completed:
        raise fail(scene, "quest_done", "quest-done", quest=quest.title)
    owner_id = quest.owner or quest.offered_by
    owner = scene.gm.npcs_by_id.get(owner_id or "")
    if owner is not None and owner not in scene.npcs():
        raise fail(scene, "owner_absent", "owner-absent", npc=label(scene, owner))
    _hand_in_holds(scene, quest)
    scene.me.completed.append(quest.id)
    outcome = record(scene, "errand", "ev_errand", data={"quest": quest.id}, quest=quest.title)
    outcome.changes = {"completed": [quest.id]}
    paid = handin.Done()
    handin.pay_reward(scene, quest, paid)  # the errand's reward is the world's, not a guess
    outcome.changes.update(paid.changes)
    outcome.result["done"] = " ".join([outcome.result["done"], *paid.lines])
    if owner is not None:
        shift = move_trust(scene.state, owner, scene.character_id, "fulfil_quest")
        outcome.changes["trust"] = {owner.id: shift}
    return outcome


def _hand_in_holds(scene: Scene, quest: Quest) -> None:
    """An errand with a hand-in is done by its world rule (``engine.gm.handin``): never
    before its item is in its receiver's hands."""
    rule, to = quest.hand_in, handin.receiver(quest)
    if (
        rule is None
        or to is None
        or (handin.delivered(scene, quest) and handin.ready(scene, quest))
    ):
        return
    item = scene.gm.items_by_id[rule.item].name
    npc = label(scene, scene.gm.npcs_by_id[to])
    raise fail(scene, "quest_unmet", "quest-unmet", quest=quest.title, item=item, npc=npc)


def offer_quest(scene: Scene, args: Args) -> ToolOutcome:
    npc = refs.npc_here(scene, str(args["npc"]))
    mine = [
        q
        for q in scene.gm.quests
        if npc.id in (q.owner, q.offered_by) or (q.owner is not None and q.owner in npc.people)
    ]
    quest = _quest(scene, str(args["quest"]), mine, "not_quest_giver")
    if quest.id in scene.me.completed or any(
        e.kind == "quest" and e.ref == quest.id for e in scene.me.journal
    ):
        raise fail(scene, "quest_known", "quest-known", actor=scene.name, quest=quest.title)
    if too_soon(scene, npc):
        raise fail(scene, "too_soon", "too_soon", npc=label(scene, npc))
    marks(scene).append("offer")
    scene.me.journal.append(
        JournalEntry(
            kind="quest",
            ref=quest.id,
            title=quest.title,
            text=quest.summary,
            day=scene.state.clock.day,
        )
    )
    outcome = record(
        scene,
        "offer",
        "ev_offer",
        data={"quest": quest.id, "npc": npc.id},
        npc=npc,
        quest=quest.title,
    )
    outcome.changes = {"journal": {"added": [quest.id]}}
    return outcome


def reveal_secret(scene: Scene, args: Args) -> ToolOutcome:
    npc = refs.npc_here(scene, str(args["npc"]))
    if npc.secret is None:
        raise fail(scene, "secret_none", "no-secret", npc=label(scene, npc))
    gate = secret_gate(scene.state, npc, scene.character_id, turn_events(scene))
    if gate is None:
        raise fail(scene, "secret_gate", "gated", npc=label(scene, npc))
    reveal(scene.state, npc, scene.character_id)
    outcome = record(
        scene,
        "confide",
        "ev_confide",
        data={"npc": npc.id},
        seen_by=[scene.character_id, npc.id],
        npc=npc,
    )
    told = book(scene).t("confided", npc=label(scene, npc), text=npc.secret.text)
    outcome.result.update({"done": told, "secret": npc.secret.text, "gate": gate})
    outcome.changes = {"revealed": {npc.id: scene.character_id}}
    return outcome


TOOLS = [
    Tool(
        "grant_clue",
        "Give the character a clue listed as one he can get here. Refused, with the reason to "
        "narrate, when he cannot get it yet.",
        params(("clue",), clue=text("The clue (its name as listed, or id).", 120)),
        grant_clue,
    ),
    Tool(
        "complete_errand",
        "Mark an errand in the character's journal as done; its owner, if any, must be present "
        "to receive it (their trust rises).",
        params(("quest",), quest=text("The errand (its title or id).", 120)),
        complete_errand,
    ),
    Tool(
        "offer_quest",
        "An NPC present gives the character one of its errands. Refused too_soon unless the "
        "talk has come to it: the player asked it for work or about its troubles, or they have "
        "talked for a while. Never in the opening scene, a fight or a move; one per turn.",
        params(
            ("npc", "quest"),
            npc=text("The NPC offering it (id or name).", 80),
            quest=text("The errand (its title or id).", 120),
        ),
        offer_quest,
    ),
    Tool(
        "reveal_secret",
        "An NPC present tells the character its secret. The engine checks the reason: enough "
        "trust, pressure that passed a DC 20 check this turn, or a natural 20. Only then does "
        "the result carry the secret.",
        params(("npc",), npc=text("The NPC (id or name).", 80)),
        reveal_secret,
    ),
]
