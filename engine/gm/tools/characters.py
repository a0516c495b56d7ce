"""Character tools (seed 001 "Personajes: daño, curación, estabilizar, descansar, gastar
recursos"; "El máster no cura o hiere sin tool", "no mata ni resucita", "no adelanta el tiempo";
decisions 2 and 8).

Every amount is the engine's: damage and healing are rolled from dice notation (or the weapon's
dice) on the session's seeded dice, within the hit-point bounds. Nobody dies by a tool: a
character at 0 falls unconscious and dying, an NPC collapses, and damage to someone already down
is refused. Stabilising is a Medicine check (DC 10) rolled at once. Resting advances the clock
by the world's authored amount (the engine's clock, never the master's) and fires time hooks.
"""

from __future__ import annotations

from typing import Any

from engine.gm.dice import Roll, ability_modifier, damage_roll, parse_dice, skill_check
from engine.gm.hooks import fire_hooks
from engine.gm.scene import Scene
from engine.gm.state import advance_clock
from engine.gm.tools import refs
from engine.gm.tools.base import (
    Args,
    Tool,
    ToolOutcome,
    book,
    can_act,
    choice,
    fail,
    number,
    opt,
    params,
    record,
    text,
)
from engine.gm.tools.dice import no_roll_waiting

DOWN = ("unconscious", "dying", "stable")
MAX_DICE, MAX_FACES, MAX_BONUS = 10, 20, 20


def _notation(scene: Scene, args: Args, *, weapon: bool) -> str:
    """Dice notation from ``dice`` or (for damage) the weapon's; ToolError otherwise."""
    given = opt(args, "dice")
    if weapon and opt(args, "weapon") is not None:
        if given is not None:
            raise fail(scene, "dice_or_weapon", "dice-or-weapon")
        item = refs.item_among(scene, str(args["weapon"]), refs.within_reach(scene))
        if item.damage is None:
            raise fail(scene, "not_weapon", "not-weapon", item=item.name)
        return item.damage
    if given is None:
        raise fail(scene, "dice_or_weapon", "dice-or-weapon")
    try:
        spec = parse_dice(given)
    except ValueError:
        raise fail(scene, "bad_dice", "bad-dice", dice=given) from None
    if spec.count > MAX_DICE or spec.faces > MAX_FACES or abs(spec.bonus) > MAX_BONUS:
        raise fail(scene, "bad_dice", "bad-dice", dice=given)
    return given


class _Body:
    """Hit points of a character or an NPC, read and written the same way."""

    def __init__(self, scene: Scene, ref: str) -> None:
        self.scene = scene
        self.kind, self.id = refs.party(scene, ref)
        if self.kind == "character":
            me = scene.state.characters[self.id]
            if me.location != scene.me.location:
                raise fail(scene, "not_here", "absent", name=self.name)
            self.max = me.max_hp
        else:
            self.max = scene.gm.npcs_by_id[self.id].hp

    @property
    def name(self) -> str:
        return refs.party_name(self.scene, self.kind, self.id)

    @property
    def who(self) -> Any:
        return self.scene.gm.npcs_by_id[self.id] if self.kind == "npc" else self.name

    @property
    def hp(self) -> int:
        if self.kind == "character":
            return self.scene.state.characters[self.id].hp
        return self.scene.state.npc_hp.get(self.id, self.max)

    def set_hp(self, value: int) -> dict[str, Any]:
        before, state = self.hp, self.scene.state
        if self.kind == "character":
            sheet = state.characters[self.id]
            sheet.hp = value
            if value == 0:
                sheet.conditions = [*(c for c in sheet.conditions if c not in DOWN), *DOWN[:2]]
            elif before == 0:
                sheet.conditions = [c for c in sheet.conditions if c not in DOWN]
            return {"hp": {self.id: {"from": before, "to": value}}}
        state.npc_hp[self.id] = value
        return {"npcHp": {self.id: {"from": before, "to": value}}}


def damage(scene: Scene, args: Args) -> ToolOutcome:
    body = _Body(scene, str(args["target"]))
    if body.hp <= 0:
        raise fail(scene, "target_down", "target-down", target=body.name)
    roll = damage_roll(scene.state.dice, _notation(scene, args, weapon=True))
    after = max(0, body.hp - roll.total)
    change = body.set_hp(after)
    key = "ev_damage_down" if after == 0 else "ev_damage"
    outcome = record(
        scene, "damage", key, data={"target": body.id}, target=body.who, amount=roll.total
    )
    outcome.rolls, outcome.changes = [roll], change
    return outcome


def heal(scene: Scene, args: Args) -> ToolOutcome:
    body = _Body(scene, str(args["target"]))
    if body.hp >= body.max:
        raise fail(scene, "full_health", "full-health", target=body.name)
    notation = _notation(scene, args, weapon=False)
    spent = _spend(scene, opt(args, "spend"), 1) if opt(args, "spend") else {}
    roll = damage_roll(scene.state.dice, notation)
    after = min(body.max, body.hp + roll.total)
    change = body.set_hp(after)
    outcome = record(
        scene, "heal", "ev_heal", data={"target": body.id}, target=body.who, amount=roll.total
    )
    outcome.rolls, outcome.changes = [roll], {**change, **spent}
    return outcome


def stabilise(scene: Scene, args: Args) -> ToolOutcome:
    can_act(scene)
    body = _Body(scene, str(args["target"]))
    sheet = scene.state.characters.get(body.id) if body.kind == "character" else None
    if sheet is None or "dying" not in sheet.conditions:
        raise fail(scene, "not_dying", "not-dying", target=body.name)
    medic = scene.gm.characters_by_id[scene.character_id]
    roll = skill_check(scene.state.dice, medic, "medicine", 10)
    if roll.outcome != "success":
        done = book(scene).t("stabilise_failed", target=body.name)
        return ToolOutcome(True, {"done": done, "stabilised": False}, rolls=[roll])
    sheet.conditions = [*(c for c in sheet.conditions if c != "dying"), "stable"]
    data = {"target": body.id, "outcome": roll.outcome}  # its own roll on him (tools.seats)
    outcome = record(scene, "stabilise", "ev_stable", data=data, target=body.name)
    outcome.rolls = [roll]
    outcome.result["stabilised"] = True
    outcome.changes = {"conditions": {body.id: list(sheet.conditions)}}
    return outcome


def rest(scene: Scene, args: Args) -> ToolOutcome:
    can_act(scene)
    no_roll_waiting(scene)
    me, state, long = scene.me, scene.state, args["kind"] == "long"
    if long and me.long_rest_day == state.clock.day:
        raise fail(scene, "rested_today", "rested-today", actor=scene.name)
    settings = scene.gm.settings
    before = state.clock.model_dump(mode="json", by_alias=True)
    state.clock = advance_clock(state.clock, settings.long_rest if long else settings.short_rest)
    hp_before, rolls = me.hp, []
    if long:
        me.hp, me.long_rest_day = me.max_hp, state.clock.day
        for pool in me.resources.values():
            pool.current = max(pool.current, pool.max)
    else:
        rolls = [_hit_die(scene)]
        me.hp = min(me.max_hp, me.hp + rolls[0].total)
    time = scene.world_lex.name("times", state.clock.time_of_day)
    outcome = record(scene, "rest", "ev_rest", data={"kind": args["kind"]}, time=time)
    outcome.events += fire_hooks(scene, "time")
    outcome.rolls = rolls
    outcome.changes = {
        "clock": {"from": before, "to": state.clock.model_dump(mode="json", by_alias=True)},
        "hp": {scene.character_id: {"from": hp_before, "to": me.hp}},
    }
    return outcome


def _hit_die(scene: Scene) -> Roll:
    sheet = scene.gm.characters_by_id[scene.character_id]
    constitution = ability_modifier(sheet.abilities.constitution)
    notation = f"1d8{constitution:+d}" if constitution else "1d8"
    return damage_roll(scene.state.dice, notation)


def _spend(scene: Scene, resource: str | None, amount: int) -> dict[str, Any]:
    pools = scene.me.resources
    key = next((k for k in pools if resource and k.casefold() == resource.casefold()), None)
    if key is None:
        raise fail(scene, "no_resource", "no-resource", actor=scene.name, resource=resource)
    pool = pools[key]
    if pool.current < amount:
        raise fail(
            scene,
            "resource_short",
            "resource-short",
            actor=scene.name,
            resource=key,
            current=pool.current,
        )
    before = pool.current
    pool.current -= amount
    return {"resources": {key: {"from": before, "to": pool.current}}}


def spend_resource(scene: Scene, args: Args) -> ToolOutcome:
    amount = int(args.get("amount") or 1)
    change = _spend(scene, str(args["resource"]), amount)
    key = next(iter(change["resources"]))
    done = book(scene).t("spent", actor=scene.name, amount=amount, resource=key)
    return ToolOutcome(True, {"done": done}, changes=change)


_DICE = "Dice notation the engine rolls, like 1d6 or 2d4+2 (at most 10 dice of d20)."

TOOLS = [
    Tool(
        "damage",
        "Harm a character or an NPC present: the engine rolls the dice (or the weapon's) and "
        "applies it. At 0 a character falls dying, an NPC collapses; nobody dies.",
        params(
            ("target",),
            target=text("Who is hurt: 'me', a character, or an NPC present.", 80),
            dice=text(_DICE, 20),
            weapon=text("Or the weapon that hurts (its damage dice).", 80),
            reason=text("What hurts, in a few words.", 160),
        ),
        damage,
    ),
    Tool(
        "heal",
        "Heal a character or an NPC present: the engine rolls the dice, up to its maximum; a "
        "character at 0 comes round. Optionally spends one of the acting character's resources.",
        params(
            ("target", "dice"),
            target=text("Who is healed: 'me', a character, or an NPC present.", 80),
            dice=text(_DICE, 20),
            spend=text("A resource of the acting character spent for it (a potion, a slot).", 60),
            reason=text("What heals, in a few words.", 160),
        ),
        heal,
    ),
    Tool(
        "stabilise",
        "Tend a dying character: a Medicine check (DC 10) the engine rolls at once; on a success "
        "the character is stable.",
        params(("target",), target=text("The dying character.", 80)),
        stabilise,
    ),
    Tool(
        "rest",
        "Rest: short (spend a hit die) or long (all hit points and resources, once a day). The "
        "engine advances the clock by the world's amount; the master never does.",
        params(("kind",), kind=choice("short or long.", ["short", "long"])),
        rest,
    ),
    Tool(
        "spend_resource",
        "Spend some of the acting character's resources (arrows, spell slots, herbs).",
        params(
            ("resource",),
            resource=text("The resource, as named on the sheet.", 60),
            amount=number("How much (default 1).", 1, 10),
        ),
        spend_resource,
    ),
]
