"""engine.gm.dice: seeded server dice, SRD 5.1 checks, attacks and damage, breakdowns."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.gm.dice import (
    Modifier,
    ability_modifier,
    attack_roll,
    check_modifiers,
    damage_roll,
    next_rng,
    parse_dice,
    skill_check,
)
from engine.gm.state import DiceState
from engine.gm.world import Character

SHEET = Character.model_validate(
    {
        "id": "kai",
        "name": "Kai",
        "location": "hall",
        "abilities": {"strength": 16, "dexterity": 12, "wisdom": 8},
        "proficiencyBonus": 2,
        "proficiencies": ["athletics"],
    }
)


def d20s(seed: int, count: int) -> list[int]:
    dice = DiceState(seed=seed)
    return [next_rng(dice).randint(1, 20) for _ in range(count)]


def test_the_same_seed_rolls_the_same_faces_and_another_seed_others():
    assert d20s(42, 50) == d20s(42, 50)
    assert d20s(42, 50) != d20s(43, 50)


def test_each_roll_advances_the_stored_counter():
    dice = DiceState(seed=5)
    skill_check(dice, SHEET, "athletics", 10)
    damage_roll(dice, "2d6")
    assert dice.counter == 2


def test_a_roll_depends_only_on_seed_and_counter():
    later = DiceState(seed=9, counter=7)
    replay = DiceState(seed=9)
    for _ in range(7):
        next_rng(replay)
    assert (
        skill_check(later, SHEET, "athletics", 10).faces
        == skill_check(replay, SHEET, "athletics", 10).faces
    )


def test_d20_faces_are_uniform_chi_squared_on_10000_seeded_rolls():
    counts = Counter(d20s(2026, 10_000))
    expected = 10_000 / 20
    chi2 = sum((counts[face] - expected) ** 2 / expected for face in range(1, 21))
    assert set(counts) == set(range(1, 21))
    assert chi2 < 43.82  # 19 degrees of freedom, p = 0.001


@pytest.mark.parametrize(
    ("notation", "dice"),
    [("2d6+3", (2, 6, 3)), ("d20", (1, 20, 0)), ("1d8 - 1", (1, 8, -1)), ("3D4", (3, 4, 0))],
)
def test_parse_dice(notation, dice):
    spec = parse_dice(notation)
    assert (spec.count, spec.faces, spec.bonus) == dice


@pytest.mark.parametrize("notation", ["", "d", "2x6", "0d6", "1d0", "d20+x"])
def test_bad_dice_notation_is_refused(notation):
    with pytest.raises(ValueError, match=r"not dice notation|1-100 dice"):
        parse_dice(notation)


@pytest.mark.parametrize(
    ("score", "mod"), [(1, -5), (8, -1), (9, -1), (10, 0), (11, 0), (16, 3), (20, 5)]
)
def test_ability_modifiers_follow_the_srd(score, mod):
    assert ability_modifier(score) == mod


def test_a_check_adds_ability_and_proficiency_with_their_sources():
    assert check_modifiers(SHEET, "athletics") == [
        Modifier("strength", 3),
        Modifier("proficiency", 2),
    ]
    assert check_modifiers(SHEET, "perception") == [Modifier("wisdom", -1)]
    assert check_modifiers(SHEET, "dexterity") == [Modifier("dexterity", 1)]


def test_a_check_succeeds_when_the_total_reaches_the_dc():
    for seed in range(40):
        roll = skill_check(DiceState(seed=seed), SHEET, "athletics", 15)
        assert roll.total == roll.faces[0] + 5
        assert roll.outcome == ("success" if roll.total >= 15 else "failure")
        assert roll.to_dict()["modifiers"] == [
            {"source": "strength", "value": 3},
            {"source": "proficiency", "value": 2},
        ]


def test_advantage_keeps_the_higher_and_disadvantage_the_lower_die():
    for seed in range(40):
        high = skill_check(DiceState(seed=seed), SHEET, "athletics", 10, advantage="advantage")
        low = skill_check(DiceState(seed=seed), SHEET, "athletics", 10, advantage="disadvantage")
        assert len(high.faces) == 2 and high.natural == max(high.faces)
        assert low.faces == high.faces and low.natural == min(low.faces)


def test_natural_twenty_is_a_critical_hit_and_natural_one_a_miss():
    outcomes = {}
    for seed in range(400):
        roll = attack_roll(DiceState(seed=seed), SHEET, ac=30)
        outcomes.setdefault(roll.natural, roll.outcome)
    assert outcomes[20] == "critical-success"  # hits even AC 30
    assert outcomes[1] == "critical-failure"
    assert outcomes[10] == "failure"


def test_a_critical_doubles_the_damage_dice_not_the_modifier():
    plain = damage_roll(DiceState(seed=1), "2d6+3")
    critical = damage_roll(DiceState(seed=1), "2d6+3", critical=True)
    assert (plain.die, len(plain.faces)) == ("2d6", 2)
    assert (critical.die, len(critical.faces)) == ("4d6", 4)
    assert plain.modifier == critical.modifier == 3
    assert critical.total == sum(critical.faces) + 3


def test_damage_is_at_least_one():
    roll = damage_roll(DiceState(seed=3), "1d4-10")
    assert roll.total == 1


def test_a_hidden_roll_says_so_in_its_summary():
    roll = skill_check(DiceState(seed=3), SHEET, "perception", 12, hidden=True)
    summary = roll.summary()
    assert set(summary) == {"die", "modifier", "total", "dc", "outcome", "hidden"}
    assert summary["hidden"] is True and summary["die"] == "d20" and summary["dc"] == 12
