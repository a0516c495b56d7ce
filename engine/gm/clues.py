"""Whether a character can get a clue yet (seed 001 "las pistas ancladas a este lugar o a estos
NPC que el personaje ya puede conseguir"; decision 6).

A clue's requirements are all of: a trust level at least X with an NPC, an item held, another
clue already had, a condition on the world's variables (seed 004's language), or a check passed
where the clue is anchored. The scene context lists the clues that are ``ready``, and those that
only wait for a check (``needs-check``, without their text); ``grant_clue`` (next issue) will
refuse the others with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from engine.conditions import check_condition
from engine.gm.state import CharacterState, GMState, npc_place
from engine.gm.trust import rank, trust_level
from engine.gm.world import CheckRequirement, Clue, GameMaster, Requirement

ClueStatus = Literal["obtained", "ready", "needs-check", "locked"]


def clue_status(
    gm: GameMaster,
    state: GMState,
    character_id: str,
    clue: Clue,
    values: Mapping[str, Any] | None = None,
) -> tuple[ClueStatus, list[CheckRequirement]]:
    """The clue's status for a character, and the checks it still waits for."""
    me = state.characters[character_id]
    if clue.id in me.clues:
        return "obtained", []
    checks: list[CheckRequirement] = []
    for need in clue.requires:
        if need.type == "check":
            if not _check_passed(gm, state, me, clue, need):
                checks.append(need)
        elif not _met(gm, state, character_id, need, values or {}):
            return "locked", []
    return ("needs-check", checks) if checks else ("ready", [])


def unmet_requirement(
    gm: GameMaster,
    state: GMState,
    character_id: str,
    clue: Clue,
    values: Mapping[str, Any] | None = None,
) -> Requirement | None:
    """The first requirement other than a check that the character does not meet yet (the
    reason ``grant_clue`` gives for a locked clue), or None."""
    for need in clue.requires:
        if need.type != "check" and not _met(gm, state, character_id, need, values or {}):
            return need
    return None


def _met(
    gm: GameMaster,
    state: GMState,
    character_id: str,
    need: Requirement,
    values: Mapping[str, Any],
) -> bool:
    me = state.characters[character_id]
    if need.type == "trust":
        npc = gm.npcs_by_id.get(need.npc)
        return npc is not None and rank(trust_level(state, npc, character_id)) >= rank(
            need.at_least
        )
    if need.type == "item":
        at = state.items.get(need.item)
        return at is not None and at.character == character_id
    if need.type == "clue":
        return need.clue in me.clues
    if need.type == "condition":
        condition = {"variableId": need.variable_id, "operator": need.operator, "value": need.value}
        return check_condition(condition, values)
    return False


def _check_passed(
    gm: GameMaster, state: GMState, me: CharacterState, clue: Clue, need: CheckRequirement
) -> bool:
    where = clue.anchor.location
    if clue.anchor.npc is not None:
        npc = gm.npcs_by_id.get(clue.anchor.npc)
        place = npc_place(gm, state, npc) if npc else None
        where = place.location if place else None
    return any(
        p.check == need.check
        and p.total >= need.dc
        and (p.location == where or (p.target is not None and p.target == clue.anchor.npc))
        for p in me.passed
    )
