"""Dice on the server (seed 001 "Tira dados (lo hace el servidor)", "Intención antes de efecto y
el dado"; decisions 8 and 16): SRD 5.1 basics, seeded per session.

Every roll draws from a ``random.Random`` derived from (session seed, roll counter), and the
counter is stored in ``GMState.dice``: a replay with the same seed rolls the same faces, and a
failed turn (its state copy thrown away) does not consume the dice. Skill checks are d20 +
ability modifier + proficiency against a DC (advantage rolls two d20 and keeps the higher,
disadvantage the lower); attacks are the same against an armour class, a natural 20 is a
critical hit (damage dice doubled) and a natural 1 always misses. Each ``Roll`` carries its
breakdown: faces, each modifier with its source, total, DC and outcome. The model never
supplies a number.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.gm.state import Advantage, DiceState
from engine.gm.world import ABILITIES, Character, Check

Outcome = Literal["success", "failure", "critical-success", "critical-failure", "damage"]
RollKind = Literal["check", "attack", "damage"]

SKILL_ABILITY: dict[str, str] = {
    "acrobatics": "dexterity",
    "animal-handling": "wisdom",
    "arcana": "intelligence",
    "athletics": "strength",
    "deception": "charisma",
    "history": "intelligence",
    "insight": "wisdom",
    "intimidation": "charisma",
    "investigation": "intelligence",
    "medicine": "wisdom",
    "nature": "intelligence",
    "perception": "wisdom",
    "performance": "charisma",
    "persuasion": "charisma",
    "religion": "intelligence",
    "sleight-of-hand": "dexterity",
    "stealth": "dexterity",
    "survival": "wisdom",
}
DC_LADDER = (5, 10, 15, 20, 25, 30)  # very easy … nearly impossible (SRD 5.1)
_NOTATION = re.compile(r"^\s*(\d*)d(\d+)\s*(?:([+-])\s*(\d+))?\s*$", re.I)


@dataclass(frozen=True, slots=True)
class Modifier:
    source: str  # "dexterity", "proficiency", "dagger"…
    value: int


@dataclass
class Roll:
    """One roll and its breakdown; ``dc`` is the armour class for an attack."""

    kind: RollKind
    die: str  # "d20", "2d6"
    faces: list[int]
    modifiers: list[Modifier] = field(default_factory=list)
    dc: int | None = None
    outcome: Outcome = "damage"
    hidden: bool = False
    check: str | None = None
    advantage: Advantage = "normal"
    natural: int | None = None  # the d20 kept

    @property
    def modifier(self) -> int:
        return sum(m.value for m in self.modifiers)

    @property
    def total(self) -> int:
        kept = self.natural if self.natural is not None else sum(self.faces)
        return kept + self.modifier

    def to_dict(self) -> dict[str, Any]:
        """The full breakdown (decision 16)."""
        return {
            "kind": self.kind,
            "die": self.die,
            "faces": list(self.faces),
            "natural": self.natural,
            "modifier": self.modifier,
            "modifiers": [{"source": m.source, "value": m.value} for m in self.modifiers],
            "total": self.total,
            "dc": self.dc,
            "outcome": self.outcome,
            "hidden": self.hidden,
            "check": self.check,
            "advantage": self.advantage,
        }

    def summary(self) -> dict[str, Any]:
        """The six fields of the CLI contract: die, modifier, total, dc, outcome, hidden."""
        full = self.to_dict()
        return {k: full[k] for k in ("die", "modifier", "total", "dc", "outcome", "hidden")}


@dataclass(frozen=True, slots=True)
class Dice:
    count: int
    faces: int
    bonus: int = 0


def parse_dice(notation: str) -> Dice:
    """Read "2d6+3", "d20", "1d8-1"; ValueError for anything else."""
    match = _NOTATION.match(notation)
    if not match:
        raise ValueError(f"'{notation}' is not dice notation like 1d8, 2d6+3 or d20-1")
    count, faces = int(match.group(1) or 1), int(match.group(2))
    if not 1 <= count <= 100 or not 1 <= faces <= 1000:
        raise ValueError(f"'{notation}': 1-100 dice of 1-1000 faces")
    bonus = int(match.group(4) or 0) * (-1 if match.group(3) == "-" else 1)
    return Dice(count, faces, bonus)


def next_rng(dice: DiceState) -> random.Random:
    """The random source of the session's next roll; advances the counter."""
    digest = hashlib.sha256(f"{dice.seed}:{dice.counter}".encode()).digest()
    dice.counter += 1
    return random.Random(int.from_bytes(digest[:16], "big"))


def ability_modifier(score: int) -> int:
    """SRD: (score - 10) // 2, so 8-9 → -1, 10-11 → 0, 18-19 → +4."""
    return (score - 10) // 2


def check_modifiers(sheet: Character, check: Check) -> list[Modifier]:
    """The ability modifier of a check, plus proficiency when the character has it."""
    ability = check if check in ABILITIES else SKILL_ABILITY[check]
    mods = [Modifier(ability, ability_modifier(getattr(sheet.abilities, ability)))]
    if check in sheet.proficiencies:
        mods.append(Modifier("proficiency", sheet.proficiency_bonus))
    return mods


def _d20(dice: DiceState, advantage: Advantage) -> tuple[list[int], int]:
    rng = next_rng(dice)
    faces = [rng.randint(1, 20) for _ in range(1 if advantage == "normal" else 2)]
    kept = max(faces) if advantage == "advantage" else min(faces)
    return faces, kept


def skill_check(
    dice: DiceState,
    sheet: Character,
    check: Check,
    dc: int,
    *,
    advantage: Advantage = "normal",
    hidden: bool = False,
    extra: list[Modifier] | None = None,
) -> Roll:
    """Roll a check: success when d20 + modifiers reaches the DC (SRD: a natural 20 or 1 is
    not automatic on a check; ``natural`` reports it)."""
    faces, kept = _d20(dice, advantage)
    mods = check_modifiers(sheet, check) + list(extra or [])
    roll = Roll("check", "d20", faces, mods, dc, "failure", hidden, check, advantage, kept)
    roll.outcome = "success" if roll.total >= dc else "failure"
    return roll


def attack_roll(
    dice: DiceState,
    sheet: Character,
    ac: int,
    *,
    finesse: bool = False,
    advantage: Advantage = "normal",
    hidden: bool = False,
) -> Roll:
    """Roll to hit: d20 + strength (or dexterity, for a finesse weapon if better) + proficiency
    against AC; a natural 20 is a critical hit, a natural 1 a miss."""
    strength = ability_modifier(sheet.abilities.strength)
    dexterity = ability_modifier(sheet.abilities.dexterity)
    ability = "dexterity" if finesse and dexterity > strength else "strength"
    mods = [
        Modifier(ability, dexterity if ability == "dexterity" else strength),
        Modifier("proficiency", sheet.proficiency_bonus),
    ]
    faces, kept = _d20(dice, advantage)
    roll = Roll("attack", "d20", faces, mods, ac, "failure", hidden, "attack", advantage, kept)
    if kept == 20:
        roll.outcome = "critical-success"
    elif kept == 1:
        roll.outcome = "critical-failure"
    else:
        roll.outcome = "success" if roll.total >= ac else "failure"
    return roll


def damage_roll(
    dice: DiceState,
    notation: str,
    *,
    critical: bool = False,
    modifiers: list[Modifier] | None = None,
    hidden: bool = False,
) -> Roll:
    """Roll damage dice ("2d6+3"); a critical doubles the dice, never the modifiers. The total
    is at least 1 when a hit lands (negative modifiers cannot heal)."""
    spec = parse_dice(notation)
    rng = next_rng(dice)
    count = spec.count * (2 if critical else 1)
    faces = [rng.randint(1, spec.faces) for _ in range(count)]
    mods = list(modifiers or [])
    if spec.bonus:
        mods.append(Modifier("dice", spec.bonus))
    roll = Roll("damage", f"{count}d{spec.faces}", faces, mods, None, "damage", hidden)
    if roll.total < 1:
        roll.modifiers.append(Modifier("minimum", 1 - roll.total))
    return roll
