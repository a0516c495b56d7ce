"""The draft's ``gameMaster`` block (issue 10 §1; seed 001 "El máster IA"), edited in the studio.

The block has no rows of its own: the draft keeps it whole in ``World.extra["gameMaster"]``
(``studio.worlds._KNOWN_TOP_LEVEL``), in the engine's normalised JSON, so import → export is
unchanged. Every write validates the *whole* block with the engine's models
(``engine.gm.world.GameMaster``) and runs its linter (``engine.gm.lint``): a save that would
introduce a broken reference (an exit to a missing location, an item in two places, a clue
anchored to nothing…) is refused with ``gameMaster.<path>: message`` lines and nothing is saved.
Problems already there (say, a clue condition on a variable deleted since) do not block other
edits; they are listed on the page.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction
from django.utils.text import slugify

from engine.gm.lint import ROOT, Problem, lint_game_master
from engine.gm.world import GameMaster
from engine.world import WorldValidationError, validate_part
from studio.models import World

KEY = ROOT  # "gameMaster": the key of the block in the world JSON and in World.extra
# The lists of the block, each with the field that names one of its records.
SECTIONS: dict[str, str] = {
    "locations": "id",
    "items": "id",
    "npcs": "id",
    "characters": "id",
    "clues": "id",
    "quests": "id",
    "boards": "id",
    "shops": "id",
    "debts": "id",
    "pawns": "item",
    "hooks": "id",
    "rumours": "id",
}
SINGLES = ("settings", "clock", "campaign")  # the block's single objects (the overview page)


class RecordNotFound(LookupError):
    """No record of that section has that id (the views answer 404)."""


# --- reading ------------------------------------------------------------------------------


def game_master_data(world: World) -> dict[str, Any] | None:
    """A copy of the block as stored (normalised world JSON), or None when the world has none."""
    data = (world.extra or {}).get(KEY)
    return copy.deepcopy(data) if isinstance(data, dict) else None


def has_game_master(world: World) -> bool:
    return isinstance((world.extra or {}).get(KEY), dict)


def load_game_master(world: World) -> GameMaster | None:
    """The block as the engine's model, or None (also for a stored block that no longer
    validates, which only a hand-edited database could hold)."""
    data = game_master_data(world)
    if data is None:
        return None
    try:
        return validate_part(GameMaster, data)
    except WorldValidationError:
        return None


def variable_ids(world: World) -> list[str]:
    return list(world.variables.values_list("key", flat=True))


def game_master_problems(world: World) -> list[Problem]:
    """The linter's problems of the stored block (paths from the world's root)."""
    gm = load_game_master(world)
    return [] if gm is None else lint_game_master(gm, variable_ids(world))


def records(block: Mapping[str, Any] | None, section: str) -> list[dict[str, Any]]:
    """The records of one list of the block ([] for an unknown section or no block)."""
    found = (block or {}).get(section) if section in SECTIONS else None
    return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []


def ref_of(section: str, record: Mapping[str, Any]) -> str:
    return str(record.get(SECTIONS[section]) or "")


def find_record(
    block: Mapping[str, Any] | None, section: str, ref: str
) -> tuple[int, dict[str, Any]]:
    """The index and record of ``section`` named ``ref``; RecordNotFound otherwise."""
    for index, record in enumerate(records(block, section)):
        if ref_of(section, record) == ref:
            return index, record
    raise RecordNotFound(f"no {section} record '{ref}'")


# --- writing ------------------------------------------------------------------------------


def enable_game_master(world: World) -> dict[str, Any]:
    """Give the world an empty block (settings and clock at their defaults); idempotent."""
    with transaction.atomic():
        fresh = _locked(world)
        block = game_master_data(fresh)
        if block is None:
            block = _dump(GameMaster())
            _store(world, fresh, block)
    return block


def disable_game_master(world: World) -> None:
    """Remove the block: the world plays as a plain 20.0.0 world again."""
    with transaction.atomic():
        fresh = _locked(world)
        extra = {k: v for k, v in (fresh.extra or {}).items() if k != KEY}
        fresh.extra = world.extra = extra
        fresh.save(update_fields=["extra", "updated"])


def save_game_master(world: World, data: Any) -> GameMaster:
    """Replace the whole block (the raw JSON editor and ``PUT …/game-master``)."""
    with transaction.atomic():
        fresh = _locked(world)
        return _commit(world, fresh, data)


def save_singles(world: World, data: Mapping[str, Any]) -> GameMaster:
    """Change the settings, the clock and the campaign notes (keys of ``SINGLES`` only)."""
    unknown = [f"{KEY}.{key}: unknown field" for key in data if key not in SINGLES]
    if unknown:
        raise WorldValidationError(unknown)
    with transaction.atomic():
        fresh = _locked(world)
        block = _require(fresh)
        for key, value in data.items():
            old = block.get(key)
            block[key] = (
                {**old, **value} if isinstance(old, dict) and isinstance(value, dict) else value
            )
        return _commit(world, fresh, block)


def save_record(
    world: World, section: str, ref: str | None, data: Mapping[str, Any]
) -> dict[str, Any]:
    """Create (``ref`` None) or change one record of ``section``; returns it as stored.

    The record's keys the form does not manage (memories, journal, unknown keys…) are kept. A
    new record without an id gets one made from its name. RecordNotFound for an unknown ``ref``.
    """
    with transaction.atomic():
        fresh = _locked(world)
        block = _require(fresh)
        rows = block.setdefault(section, [])
        key = SECTIONS[section]
        if ref is None:
            record = dict(data)
            if key == "id" and not record.get("id"):
                record["id"] = fresh_id(rows, str(record.get("name") or record.get("title") or ""))
            index = len(rows)
            rows.append(record)
        else:
            index, old = find_record(block, section, ref)
            record = {**old, **_with_translations(old, data)}
            rows[index] = record
        gm = _commit(world, fresh, block)
    return _dump(gm)[section][index]  # type: ignore[no-any-return]


def delete_record(world: World, section: str, ref: str) -> None:
    """Remove one record; refused (with the paths that would break) while others name it."""
    with transaction.atomic():
        fresh = _locked(world)
        block = _require(fresh)
        index, _record = find_record(block, section, ref)
        del block[section][index]
        _commit(world, fresh, block)


def _with_translations(old: Any, new: Any) -> Any:
    """``new`` with the ``translations`` ``old`` had at the same place (a place's points by id,
    a character's public sheet): no form edits them (issue 33 §3), so a save keeps them."""
    if isinstance(new, dict) and isinstance(old, Mapping):
        out = {k: _with_translations(old.get(k), v) for k, v in new.items()}
        if "translations" in old and "translations" not in new:
            out["translations"] = old["translations"]
        return out
    if isinstance(new, list) and isinstance(old, list):
        by_id = {r.get("id"): r for r in old if isinstance(r, Mapping) and r.get("id")}
        return [
            _with_translations(by_id.get(r.get("id")), r) if isinstance(r, Mapping) else r
            for r in new
        ]
    return new


def fresh_id(rows: Iterable[Mapping[str, Any]], name: str, fallback: str = "record") -> str:
    """A kebab-case id made from ``name``, unused among ``rows``."""
    base = re.sub(r"[^a-z0-9-]", "", slugify(name).replace("_", "-"))
    base = re.sub(r"-{2,}", "-", base).strip("-") or fallback
    taken = {str(r.get("id")) for r in rows}
    key, n = base, 2
    while key in taken:
        key, n = f"{base}-{n}", n + 1
    return key


def introduced(before: Iterable[Problem], after: Iterable[Problem]) -> list[Problem]:
    """The problems of ``after`` that ``before`` did not have.

    Compared by message, not path: deleting a record shifts the index in the path of every
    problem after it, which is not a new problem.
    """
    left = Counter(p.message for p in before)
    new = []
    for problem in after:
        if left[problem.message] > 0:
            left[problem.message] -= 1
        else:
            new.append(problem)
    return new


# --- helpers ------------------------------------------------------------------------------


def _locked(world: World) -> World:
    # Re-read the row under a lock: two tabs saving at once must not drop each other's edit.
    return World.objects.select_for_update().get(pk=world.pk)


def _require(world: World) -> dict[str, Any]:
    block = game_master_data(world)
    if block is None:
        raise WorldValidationError([f"{KEY}: this world has no game master; enable it first"])
    return block


def _validated(data: Any) -> GameMaster:
    try:
        return validate_part(GameMaster, data)
    except WorldValidationError as exc:
        raise WorldValidationError([_rooted(line) for line in exc.errors]) from None


def _rooted(line: str) -> str:
    path, sep, message = line.partition(": ")
    if not sep:
        return f"{KEY}: {line}"
    return f"{KEY}: {message}" if path == "$" else f"{KEY}.{path}: {message}"


def _commit(world: World, fresh: World, data: Any) -> GameMaster:
    gm = _validated(data)
    variables = variable_ids(fresh)
    old = load_game_master(fresh)
    before = lint_game_master(old, variables) if old is not None else []
    new = introduced(before, lint_game_master(gm, variables))
    if new:
        raise WorldValidationError([str(p) for p in new])
    _store(world, fresh, _dump(gm))
    return gm


def _store(world: World, fresh: World, block: dict[str, Any]) -> None:
    fresh.extra = {**(fresh.extra or {}), KEY: block}
    fresh.save(update_fields=["extra", "updated"])
    world.extra = fresh.extra


def _dump(gm: GameMaster) -> dict[str, Any]:
    return gm.model_dump(mode="json", by_alias=True)
