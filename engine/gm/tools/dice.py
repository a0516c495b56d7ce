"""Dice tools (seed 001 "Tira dados (lo hace el servidor)", "Cuando hay riesgo, el máster pide
tirada y aparece el botón Tirar", "Las tiradas ocultas del máster no llevan botón"; decisions 8
and 16).

The master names the check, the DC and what it is for; it never supplies a number the dice
decide. ``request_skill_check`` and ``request_attack`` set the character's pending check (the
Roll button; the server rolls it when the player presses it, ``engine.gm.outcomes``), or, for a
hidden check, roll it at once from the session's seeded dice. One roll waits at a time: a
message resolves one action. A social check against an NPC takes the engine's DC for its trust.
A check against another player's character present (the only way a tool may then change him,
``engine.gm.tools.seats``) takes the engine's DC, his passive score, and is never hidden: the
acting player sees the roll and presses for it.
"""

from __future__ import annotations

from typing import Any, cast

from engine.gm.dice import DC_LADDER, check_modifiers
from engine.gm.outcomes import resolve_pending
from engine.gm.risk import SOCIAL_DC
from engine.gm.scene import Scene
from engine.gm.state import PendingCheck
from engine.gm.tools import refs
from engine.gm.tools.base import (
    Args,
    Tool,
    ToolError,
    ToolOutcome,
    can_act,
    choice,
    fail,
    flag,
    label,
    opt,
    params,
    text,
)
from engine.gm.trust import trust_level
from engine.gm.world import ABILITIES, DIRECTIONS, SKILLS, Check, Npc

CHECKS = (*SKILLS, *ABILITIES)
PURPOSES = (
    "check",
    "climb",
    "jump",
    "swim",
    "force",
    "picklock",
    "sneak",
    "steal",
    "persuade",
    "intimidate",
    "deceive",
    "search",
)
SOCIAL_CHECKS = ("persuasion", "intimidation", "deception")
ADVANTAGE = ("normal", "advantage", "disadvantage")


def no_roll_waiting(scene: Scene) -> None:
    if scene.character_id in scene.state.pending:
        raise fail(scene, "roll_waiting", "roll-waiting")


def request_skill_check(scene: Scene, args: Args) -> ToolOutcome:
    can_act(scene)
    no_roll_waiting(scene)
    check, purpose = str(args["check"]), opt(args, "purpose") or "check"
    target_ref = opt(args, "target")
    rival = _rival(scene, target_ref)
    target = refs.npc_here(scene, target_ref) if target_ref and rival is None else None
    hidden = bool(args.get("hidden")) or purpose == "search"
    if rival is not None and hidden:
        raise fail(scene, "contest_hidden", "contest-hidden")
    dc = _contest_dc(scene, rival, check) if rival else _dc(scene, args, check, target)
    pending = PendingCheck.model_validate(
        {
            "verb": purpose,
            "check": check,
            "dc": dc,
            "target": rival or (target.id if target else None),
            "text": opt(args, "reason") or "",
            "language": scene.lex.language,
            "advantage": args.get("advantage") or "normal",
            "hidden": hidden,
        }
    )
    if purpose == "steal":
        pending.item = _loot(scene, opt(args, "item"), target, rival)
    if purpose in ("force", "picklock"):
        pending.way = _locked_way(scene, opt(args, "direction"))
    return set_pending(scene, pending)


def set_pending(scene: Scene, pending: PendingCheck) -> ToolOutcome:
    """Roll a hidden check now; otherwise leave it waiting for the player's Roll."""
    if pending.hidden:
        return roll_now(scene, pending)
    scene.state.pending[scene.character_id] = pending
    lex = scene.lex
    if pending.kind == "attack":
        target = scene.gm.npcs_by_id[pending.target or ""]
        done = lex.t("pending_attack", target=label(scene, target))
    else:
        check = lex.name("checks", pending.check or "")
        done = lex.t("pending", check=check, dc=pending.dc, verb=pending.verb)
    dumped = pending.model_dump(mode="json", exclude_none=True)
    result: dict[str, Any] = {"done": done, "pending": True, "check": pending.check or "attack"}
    result["dc"] = pending.dc
    return ToolOutcome(True, result, changes={"pending": dumped}, pending=pending)


def roll_now(scene: Scene, pending: PendingCheck) -> ToolOutcome:
    """A hidden roll: no button; the master learns the outcome, the player sees only what
    follows from it (the creator sees the breakdown in playtest)."""
    outcome = resolve_pending(scene, pending)
    word = "success" if outcome.success else "failure"
    done = " ".join(outcome.lines) or scene.lex.name("outcomes", word)
    result = {"done": done, "hidden": True, "outcome": word}
    return ToolOutcome(
        True, result, events=outcome.events, changes=outcome.changes, rolls=outcome.rolls
    )


def _dc(scene: Scene, args: Args, check: str, target: Npc | None) -> int:
    """The engine's DC for a social check against an NPC (its trust), else the master's."""
    if target is not None and check in SOCIAL_CHECKS:
        return SOCIAL_DC[trust_level(scene.state, target, scene.character_id)]
    dc = args.get("dc")
    if not isinstance(dc, int):
        raise fail(scene, "dc_needed", "dc-needed", options=", ".join(map(str, DC_LADDER)))
    return dc


def _rival(scene: Scene, ref: str | None) -> str | None:
    """Another player's character present that ``ref`` names; None for anyone else."""
    if ref is None:
        return None
    try:
        kind, ident = refs.party(scene, ref)
    except ToolError:
        return None
    if kind != "character" or ident == scene.character_id:
        return None
    if scene.state.characters[ident].location != scene.me.location:
        raise fail(scene, "not_here", "absent", name=refs.party_name(scene, kind, ident))
    return ident


def _contest_dc(scene: Scene, rival: str, check: str) -> int:
    """The engine's DC against another player's character (never the master's): 10 plus his
    own modifier for the same check, his passive score (SRD 5.1)."""
    sheet = scene.gm.characters_by_id[rival]
    modifiers = check_modifiers(sheet, cast(Check, check))
    return 10 + sum(m.value for m in modifiers)


def _loot(scene: Scene, ref: str | None, target: Npc | None, rival: str | None = None) -> str:
    """What a theft is after: something the target holds (never what another player's
    character has in hand), or something lying here."""
    if rival is not None:
        hand = scene.state.characters[rival].in_hand
        pool = [i for i in refs.held_by(scene, "character", rival) if i.id != hand]
    else:
        pool = refs.held_by(scene, "npc", target.id) if target else scene.items_here()
    if ref is None:
        raise fail(scene, "steal_what", "steal-what")
    return refs.item_among(scene, ref, pool).id


def _locked_way(scene: Scene, direction: str | None) -> str:
    locked = [e for e in scene.exits() if e.locked]
    if direction is not None:
        locked = [e for e in locked if e.direction == direction]
    if len(locked) != 1:
        options = scene.lex.join(scene.lex.name("directions", e.direction) for e in locked)
        raise fail(scene, "no_locked_way", "no-locked-way", options=options or "-")
    return locked[0].direction


def request_attack(scene: Scene, args: Args) -> ToolOutcome:
    can_act(scene)
    no_roll_waiting(scene)
    target = refs.npc_here(scene, str(args["target"]))
    if scene.state.npc_hp.get(target.id, target.hp) <= 0:
        raise fail(scene, "target_down", "target-down", target=label(scene, target))
    pending = PendingCheck.model_validate(
        {
            "verb": "attack",
            "kind": "attack",
            "dc": target.ac,
            "target": target.id,
            "text": opt(args, "reason") or "",
            "language": scene.lex.language,
            "advantage": args.get("advantage") or "normal",
        }
    )
    return set_pending(scene, pending)


_CHECK_PARAMS = params(
    ("check",),
    check=choice("The SRD 5.1 skill, or a plain ability.", CHECKS),
    dc={
        "type": "integer",
        "enum": list(DC_LADDER),
        "description": "How hard: 5 very easy … 30 nearly impossible. Social checks against an "
        "NPC take the engine's DC from its trust.",
    },
    target=text(
        "The NPC it is against or about (id or name), if any; or another player's character "
        "present, whom only a roll lets a tool change (the engine sets that DC; never hidden).",
        80,
    ),
    purpose=choice(
        "What it is for: the engine applies the consequence (force/picklock open a locked "
        "way, steal takes the item, search finds hidden things, persuade/intimidate/deceive "
        "move trust). 'check' for anything else.",
        PURPOSES,
    ),
    item=text("For steal: the item taken.", 80),
    direction=choice("For force/picklock: the locked way.", DIRECTIONS),
    advantage=choice("Advantage or disadvantage, if the situation gives it.", ADVANTAGE),
    hidden=flag("Roll it now, unseen by the player (no Roll button): a search, a hunch."),
    reason=text("The player's action the roll is for, in a few words.", 160),
)

TOOLS = [
    Tool(
        "request_skill_check",
        "Ask for a skill or ability check when an action is risky. The server rolls it when the "
        "player presses Roll (or at once, if hidden); never invent the result. One roll per "
        "action: close the turn with log_event after asking.",
        _CHECK_PARAMS,
        request_skill_check,
    ),
    Tool(
        "request_attack",
        "Ask for an attack roll against an NPC present (to hit against its armour class, then "
        "damage with the weapon in hand). The server rolls when the player presses Roll.",
        params(
            ("target",),
            target=text("The NPC attacked (id or name).", 80),
            advantage=choice("Advantage or disadvantage, if the situation gives it.", ADVANTAGE),
            reason=text("The player's action, in a few words.", 160),
        ),
        request_attack,
    ),
]
