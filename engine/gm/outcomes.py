"""What a roll does once the server has rolled it (seed 001 "El servidor tira, enseña el
desglose y el máster narra la consecuencia"; decisions 8, 16 and 19).

The engine computes every number and applies every change: damage to an NPC (it collapses at
0, it never dies by the engine's hand: seed 001 forbids narrating a death), trust moves of
seed 001 (attacking it or its people, being caught lying or stealing, persuading it), a lock
forced open, a stolen item, hidden points a search finds, and the passed check clues ask for.
It narrates the outcome from templates, so the outcome can never contradict the roll.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.gm.dice import Roll, attack_roll, damage_roll, skill_check
from engine.gm.scene import Scene
from engine.gm.state import GMEvent, PassedCheck, PendingCheck
from engine.gm.trust import move_trust
from engine.gm.world import Check, Holder, Npc

UNARMED = "1d4"  # improvised or unarmed: simpler than SRD's flat 1 + strength


@dataclass
class RollOutcome:
    rolls: list[Roll] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # breakdown lines, then the consequence
    events: list[GMEvent] = field(default_factory=list)
    changes: dict[str, Any] = field(default_factory=dict)
    success: bool = False


def resolve_pending(scene: Scene, pending: PendingCheck) -> RollOutcome:
    """Roll the pending check of the scene's character and apply what follows."""
    if pending.kind == "attack":
        return _attack(scene, pending)
    return _check(scene, pending)


def _target(scene: Scene, pending: PendingCheck) -> Npc | None:
    return scene.gm.npcs_by_id.get(pending.target) if pending.target else None


def _outcome_name(scene: Scene, roll: Roll) -> str:
    return scene.lex.name("outcomes", roll.outcome)


def _heard_by(scene: Scene) -> list[str]:
    """Loud: heard in the places whose way carries sound (decision 5)."""
    return [
        who for way in scene.location.exits if way.carries_sound for who in scene.witnesses(way.to)
    ]


def _attack(scene: Scene, pending: PendingCheck) -> RollOutcome:
    lex, gm, state = scene.lex, scene.gm, scene.state
    sheet = gm.characters_by_id[scene.character_id]
    weapon = gm.items_by_id.get(scene.me.in_hand or "")
    target = _target(scene, pending)
    ac = pending.dc or (target.ac if target else 10)
    finesse = bool(weapon and weapon.finesse)
    roll = attack_roll(state.dice, sheet, ac, finesse=finesse, advantage=pending.advantage)
    faces = "/".join(map(str, roll.faces))
    out = RollOutcome([roll], [], success=roll.outcome in ("success", "critical-success"))
    out.lines.append(
        lex.t(
            "attack_line",
            faces=faces,
            modifier=_signed(roll.modifier),
            total=roll.total,
            dc=ac,
            outcome=_outcome_name(scene, roll),
        )
    )
    name = scene.npc_label(target) if target else "?"
    if out.success and target is not None:
        _damage(scene, out, roll, target, weapon.damage if weapon and weapon.damage else UNARMED)
    else:
        out.lines.append(lex.t("attack_miss", target=name))
    if target is not None:
        _attacked(scene, target, out)
    out.events.append(
        scene.log(
            "attack",
            "ev_roll",
            verb=scene.world_lex.name("verbs", "attack"),
            outcome=scene.world_lex.name("outcomes", roll.outcome),
            heard_by=_heard_by(scene),
            data={
                "target": pending.target,
                "total": roll.total,
                "natural": roll.natural,
                "outcome": roll.outcome,  # a hit on another player's character (tools.seats)
            },
        )
    )
    return out


def _damage(scene: Scene, out: RollOutcome, hit: Roll, target: Npc, notation: str) -> None:
    lex, state = scene.lex, scene.state
    used = hit.modifiers[0]
    critical = hit.outcome == "critical-success"
    roll = damage_roll(state.dice, notation, critical=critical, modifiers=[used])
    out.rolls.append(roll)
    faces = "/".join(map(str, roll.faces))
    out.lines.append(
        lex.t(
            "damage_line",
            die=roll.die,
            faces=faces,
            modifier=_signed(roll.modifier),
            total=roll.total,
        )
    )
    before = state.npc_hp.get(target.id, target.hp)
    after = max(0, before - roll.total)
    state.npc_hp[target.id] = after
    name = scene.npc_label(target)
    template = "attack_crit" if critical else "attack_hit"
    out.lines.append(lex.t(template, target=name, damage=roll.total))
    if after == 0:
        out.lines.append(lex.t("attack_down", target=name))
    out.changes["npcHp"] = {target.id: {"from": before, "to": after}}


def _attacked(scene: Scene, target: Npc, out: RollOutcome) -> None:
    """Seed 001: attacking an NPC or its people lowers their trust."""
    moves = {target.id: move_trust(scene.state, target, scene.character_id, "attack")}
    for npc in scene.gm.npcs:
        if target.id in npc.people and npc.id != target.id:
            moves[npc.id] = move_trust(scene.state, npc, scene.character_id, "attack_people")
    out.changes["trust"] = {k: v for k, v in moves.items() if v}


def _check(scene: Scene, pending: PendingCheck) -> RollOutcome:
    lex, state = scene.lex, scene.state
    sheet = scene.gm.characters_by_id[scene.character_id]
    check: Check = pending.check or "wisdom"
    dc = pending.dc or 10
    roll = skill_check(
        state.dice, sheet, check, dc, advantage=pending.advantage, hidden=pending.hidden
    )
    out = RollOutcome([roll], [], success=roll.outcome == "success")
    if not roll.hidden:
        out.lines.append(
            lex.t(
                "roll_line",
                check=lex.name("checks", check),
                faces="/".join(map(str, roll.faces)),
                modifier=_signed(roll.modifier),
                total=roll.total,
                dc=dc,
                outcome=_outcome_name(scene, roll),
            )
        )
    if out.success:
        passed = PassedCheck(
            check=check, total=roll.total, location=scene.me.location, target=pending.target
        )
        scene.me.passed.append(passed)
    effect = _EFFECTS.get(pending.verb, _plain)
    quiet = effect(scene, pending, roll, out)
    out.events.append(
        scene.log(
            "check",
            "ev_roll",
            seen_by=[scene.character_id] if quiet else None,
            verb=scene.world_lex.name("verbs", pending.verb),
            outcome=scene.world_lex.name("outcomes", roll.outcome),
            data={
                "verb": pending.verb,
                "check": check,
                "total": roll.total,
                "dc": dc,
                "natural": roll.natural,  # a natural 20 opens a secret (decision 11)
                "target": pending.target,
                "outcome": roll.outcome,  # a success against another player's (tools.seats)
            },
        )
    )
    return out


# Each effect applies a verb's consequence and tells whether nobody else noticed the attempt.
Effect = Callable[[Scene, PendingCheck, Roll, RollOutcome], bool]


def _plain(scene: Scene, pending: PendingCheck, roll: Roll, out: RollOutcome) -> bool:
    out.lines.append(scene.lex.t("check_success" if out.success else "check_failure"))
    return out.success and pending.verb == "sneak"


def _unlock(scene: Scene, pending: PendingCheck, roll: Roll, out: RollOutcome) -> bool:
    if not out.success or pending.way is None:
        return _plain(scene, pending, roll, out)
    key = f"{scene.me.location}>{pending.way}"
    if key not in scene.state.unlocked:
        scene.state.unlocked.append(key)
    out.changes["unlocked"] = [key]
    direction = scene.lex.name("directions", pending.way)
    out.lines.append(scene.lex.t("unlocked", direction=direction))
    return False


def _steal(scene: Scene, pending: PendingCheck, roll: Roll, out: RollOutcome) -> bool:
    target = _target(scene, pending)
    if out.success and pending.item is not None:
        out.changes["items"] = give(scene, pending.item)
        item = scene.gm.items_by_id[pending.item].name
        out.lines.append(scene.lex.t("stolen", item=item))
        return True
    if not out.success and target is not None:
        shift = move_trust(scene.state, target, scene.character_id, "crime_seen")
        out.changes["trust"] = {target.id: shift}
    return _plain(scene, pending, roll, out) and False


def _social(scene: Scene, pending: PendingCheck, roll: Roll, out: RollOutcome) -> bool:
    """Persuading raises trust; intimidating lowers it either way; a lie caught lowers it."""
    target = _target(scene, pending)
    if target is None:
        return _plain(scene, pending, roll, out)
    move = {"persuade": "persuade", "intimidate": "intimidate"}.get(pending.verb)
    if pending.verb == "deceive" and not out.success:
        move = "caught_lying"
    if move == "persuade" and not out.success:
        move = None
    if move is not None:
        shift = move_trust(scene.state, target, scene.character_id, move)
        out.changes["trust"] = {target.id: shift}
    name = scene.npc_label(target)
    out.lines.append(scene.lex.t("swayed" if out.success else "unmoved", target=name))
    return False


def _search(scene: Scene, pending: PendingCheck, roll: Roll, out: RollOutcome) -> bool:
    """Find the hidden points and exits here whose DC the (hidden) roll reaches."""
    here, me = scene.location, scene.me
    found: list[tuple[str, str]] = []
    for point in here.hidden_points:
        key = f"{here.id}:{point.id}"
        if key not in me.discovered and roll.total >= point.found_by.dc:
            found.append((key, point.name))
    for way in here.exits:
        key = f"{here.id}>{way.direction}"
        found_by = way.found_by if way.hidden else None
        if found_by and key not in me.discovered and roll.total >= found_by.dc:
            name = scene.lex.name("directions", way.direction)
            found.append((key, f"{name} ({scene.place_name(way.to)})"))
    me.discovered.extend(key for key, _ in found)
    out.success = bool(found)
    if found:
        out.changes["discovered"] = [key for key, _ in found]
        names = scene.lex.join(name for _, name in found)
        out.lines.append(scene.lex.t("search_found", found=names))
    else:
        out.lines.append(scene.lex.t("search_none"))
    return False


_EFFECTS: dict[str, Effect] = {
    "force": _unlock,
    "picklock": _unlock,
    "steal": _steal,
    "persuade": _social,
    "intimidate": _social,
    "deceive": _social,
    "search": _search,
}


def _signed(value: int) -> str:
    return f"+ {value}" if value >= 0 else f"- {-value}"


def give(scene: Scene, item_id: str) -> dict[str, Any]:
    """Move an item into the character's hands; returns the change."""
    before = scene.state.items.get(item_id)
    scene.state.items[item_id] = Holder(character=scene.character_id)
    return {
        item_id: {
            "from": before.model_dump(mode="json", exclude_none=True) if before else None,
            "to": {"character": scene.character_id},
        }
    }
