"""The master's claims in structure (issue 34 §1: "make the master state its claims in structure
… so that the check compares claims with tool results exactly and the narration with the
claims; a narration that claims more than its structure is rejected").

``log_event`` may carry ``claims``: which items changed hands, which money moved, the clues
learned, the place entered, who acted and the outcome. Each claim must be a result of this
turn's successful tools (or of the roll); each effect the narration tells must be among the
claims. A break is reported under the rule it belongs to: an item or clue the tools never gave
is a failed or missing tool told as done, money or a pledge a deal not registered, a place a
place that is not there or not reached, an outcome the roll's, an actor another player's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.gm.closure_rules.deal import deal_claims
from engine.gm.closure_rules.entities import YOU, Ref
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.roll import deciding_roll, told_outcome
from engine.gm.closure_rules.targets import ref_of, targets

HANDS = ("transfer_item", "buy_item", "sell_item", "pawn_item", "complete_errand", "gather")
MONEY = ("buy_item", "sell_item", "settle_debt", "set_debt", "pawn_item", "complete_errand")
FAILED, PLACE, DEAL, ROLL, ACTS = (
    "failed-tool-narrated",
    "unknown-place",
    "unregistered-deal",
    "contradicts-roll",
    "acts-for-player",
)


def claim_violations(reading: Reading) -> list[str]:
    claims = reading.facts.claims or {}
    return sorted({*_against_tools(reading, claims), *_against_narration(reading, claims)})


# --- the claims against the tools -------------------------------------------------------------


def _against_tools(reading: Reading, claims: Mapping[str, Any]) -> set[str]:
    out: set[str] = set()
    done = reading.ok_calls()
    handed = {r for c, _ in done if c.name in HANDS for r in targets(c, reading.scene, ("item",))}
    for item in _claimed_items(reading, claims):
        if item not in handed:
            out.add(FAILED)
    if claims.get("money") and not any(c.name in MONEY for c, _ in done):
        out.add(DEAL)
    learnt = {r for c, _ in done if c.name == "grant_clue" for r in targets(c, reading.scene)}
    if any(not (ref_of(str(c), reading.scene) & learnt) for c in _list(claims, "learned")):
        out.add(FAILED)
    entered = claims.get("entered")
    if isinstance(entered, str) and entered.strip():
        out |= _entered(reading, entered)
    out |= _outcome(reading, claims)
    actors = {r for a in _list(claims, "acted_by") for r in ref_of(str(a), reading.scene)}
    others = {Ref("pc", i) for i in reading.facts.player_character_ids}
    if actors & others:
        out.add(ACTS)
    return out


def _entered(reading: Reading, place: str) -> set[str]:
    refs = {r for r in ref_of(place, reading.scene) if r.kind == "place"}
    moved = {
        r
        for c, _ in reading.ok_calls()
        if c.name == "move_character" and (targets(c, reading.scene, ("who",)) or {YOU}) == {YOU}
        for r in targets(c, reading.scene, ("to",))
    }
    here = Ref("place", reading.scene.me.location)
    if refs & (moved | {here}):
        return set()
    known = any(reading.scene.knows_place(r.id) for r in refs)
    return {FAILED if known else PLACE}


def _outcome(reading: Reading, claims: Mapping[str, Any]) -> set[str]:
    said = claims.get("outcome")
    roll = deciding_roll(reading)
    if said not in ("success", "failure") or roll is None:
        return set()
    success = roll.outcome in ("success", "critical-success")
    return set() if (said == "success") == success else {ROLL}


# --- the narration against the claims ---------------------------------------------------------


def _against_narration(reading: Reading, claims: Mapping[str, Any]) -> set[str]:
    out: set[str] = set()
    claimed = _claimed_items(reading, claims)
    for event in reading.of("acquire", "give", "own"):
        items = {r for r in event.objects if r.kind == "item"}
        if items - claimed and _hands_change(event):
            out.add(FAILED)
    if deal_claims(reading) and not (claims.get("money") or claimed):
        out.add(DEAL)
    if not _list(claims, "learned") and any(
        r.kind == "clue" for e in reading.of("learn", "acquire") for r in e.objects
    ):
        out.add(FAILED)
    if not claims.get("entered") and any(
        e.actor == YOU and any(r.kind == "place" for r in e.objects)
        for e in reading.of("enter", "arrive")
    ):
        out.add(FAILED)
    roll = deciding_roll(reading)
    said = claims.get("outcome")
    if roll is not None and said in ("success", "failure"):
        told = told_outcome(reading, roll)
        if told is not None and told != (said == "success"):
            out.add(ROLL)
    return out


def _hands_change(event: Any) -> bool:
    if event.key in ("acquire", "own"):
        return bool(event.actor in (YOU, None) or (event.actor and event.actor.person))
    return event.recipient is not None or event.actor == YOU


def _claimed_items(reading: Reading, claims: Mapping[str, Any]) -> set[Ref]:
    out: set[Ref] = set()
    for entry in _list(claims, "changed_hands"):
        if isinstance(entry, Mapping):
            out |= {
                r for r in ref_of(str(entry.get("item", "")), reading.scene) if r.kind == "item"
            }
    return out


def _list(claims: Mapping[str, Any], key: str) -> list[Any]:
    value = claims.get(key)
    return list(value) if isinstance(value, list) else []
