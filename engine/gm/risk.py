"""Risky actions and their checks, decided offline (seed 001 "Intención antes de efecto y el
dado"; GAME_MASTER.md GM-R-1…R-7).

Until the tool-calling master comes (issue "Game master II"), a small lexicon per language
(``risky`` in ``engine/gm/lexicon/*.json``: attack, climb, sneak, persuade, steal, search…)
decides what is risky and which check it takes. An act with consequences and no target, while
several could be meant ("attack" with three people about), asks first at no cost. A risky act
ends the turn with a pending check: the play page shows the Roll button, and ``{"roll": true}``
resolves it (``engine.gm.outcomes``). A search is a hidden roll: rolled at once, no button and no
breakdown for the player.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from engine.gm.scene import Scene
from engine.gm.state import PendingCheck, items_held
from engine.gm.trust import trust_level
from engine.gm.words import (
    RiskyVerb,
    lexicon,
    match_names,
    match_phrase,
    normalize,
    strip_fillers,
    without_subject,
)
from engine.gm.world import Npc, TrustLevel

# A social check is harder the less the NPC trusts the character.
SOCIAL_DC: dict[TrustLevel, int] = {
    "hostile": 25,
    "wary": 20,
    "stranger": 15,
    "acquaintance": 15,
    "friend": 10,
    "ally": 5,
}
SOCIAL = ("persuade", "intimidate", "deceive")


@dataclass(frozen=True)
class RiskyAction:
    verb: RiskyVerb
    target: str  # the normalised rest of the sentence
    language: str
    text: str


@dataclass
class RiskPlan:
    """What a risky action leads to before any die: ask, refuse, wait for the roll, or roll
    hidden now (``pending`` then holds the check to resolve at once)."""

    kind: Literal["ask", "refused", "pending", "hidden"]
    narration: str = ""
    pending: PendingCheck | None = None
    suggestions: list[str] = field(default_factory=list)


def classify_risky(text: str, languages: list[str]) -> RiskyAction | None:
    """The risky verb ``text`` starts with, in the first language that has one."""
    for code in languages:
        lex = lexicon(code)
        table = {verb.key: verb.words for verb in lex.risky.values()}
        for candidate in without_subject(lex, normalize(text)):
            key, rest, length = match_phrase(lex, candidate, table)
            if length:
                return RiskyAction(lex.risky[key], strip_fillers(lex, rest), code, text)
    return None


def plan_risk(action: RiskyAction, scene: Scene) -> RiskPlan:
    """Decide the check of a risky action, or ask for its missing target; changes nothing."""
    verb, lex = action.verb, scene.lex
    verb_name = lex.name("verbs", verb.key)
    target: Npc | None = None
    item: str | None = None
    if verb.target is not None:
        found = _target(action, scene)
        if isinstance(found, RiskPlan):
            return found
        target, item = found
    if verb.kind == "attack":
        assert target is not None
        pending = _pending(action, "attack", None, target.ac, target.id, None)
        narration = lex.t("pending_attack", target=scene.npc_label(target))
        return RiskPlan("pending", narration, pending, [lex.t("suggest_roll")])
    dc = verb.dc
    if verb.key in SOCIAL and target is not None:
        dc = SOCIAL_DC[trust_level(scene.state, target, scene.character_id)]
    pending = _pending(action, "check", verb.check, dc, target.id if target else None, item)
    if verb.unlocks:
        way = _locked_way(action, scene)
        if isinstance(way, RiskPlan):
            return way
        pending.way = way
    if verb.hidden:
        pending.hidden = True
        return RiskPlan("hidden", "", pending)
    check = lex.name("checks", verb.check or "")
    narration = lex.t("pending", check=check, dc=dc, verb=verb_name)
    return RiskPlan("pending", narration, pending, [lex.t("suggest_roll")])


def _pending(
    action: RiskyAction,
    kind: Literal["check", "attack"],
    check: str | None,
    dc: int,
    target: str | None,
    item: str | None,
) -> PendingCheck:
    return PendingCheck.model_validate(
        {
            "verb": action.verb.key,
            "kind": kind,
            "check": check,
            "dc": dc,
            "target": target,
            "item": item,
            "text": action.text,
            "language": action.language,
        }
    )


def _target(action: RiskyAction, scene: Scene) -> tuple[Npc | None, str | None] | RiskPlan:
    """The NPC (and, for a theft, the item) meant; a plan to ask or refuse when unclear."""
    lex, verb = scene.lex, action.verb
    people = scene.npcs()
    verb_name = lex.name("verbs", verb.key)
    options = lex.join(scene.npc_label(n) for n in people)
    if not people:
        if verb.target == "npc-optional":
            return None, None
        return RiskPlan("refused", lex.t("nobody", verb=verb_name))
    if not action.target:
        if len(people) == 1:
            return people[0], None
        return RiskPlan("ask", lex.t("ask_target", verb=verb_name, options=options))
    named = match_names(lex, action.target, [(n.id, _npc_names(scene, n)) for n in people])
    if len(named) == 1:
        return scene.gm.npcs_by_id[named[0]], None
    if verb.target == "npc-optional":
        theft = _stolen_item(action, scene, people)
        if theft is not None:
            return theft
    template = "ambiguous" if named else "ask_target"
    kind: Literal["ask", "refused"] = "refused" if named else "ask"
    return RiskPlan(kind, lex.t(template, verb=verb_name, options=options))


def _locked_way(action: RiskyAction, scene: Scene) -> str | RiskPlan | None:
    """The direction of the locked exit meant: named, else the only one; None when none is."""
    lex = scene.lex
    locked = [e for e in scene.exits() if e.locked]
    if len(locked) <= 1 or not action.target:
        if len(locked) > 1:
            options = scene.exit_options()
            verb = lex.name("verbs", action.verb.key)
            return RiskPlan("ask", lex.t("ask_target", verb=verb, options=options))
        return locked[0].direction if locked else None
    candidates = [
        (e.direction, [lex.name("directions", e.direction), *_place_names(scene, e.to)])
        for e in locked
    ]
    found = match_names(lex, action.target, candidates)
    return found[0] if len(found) == 1 else None


def _place_names(scene: Scene, location_id: str) -> list[str]:
    place = scene.gm.locations_by_id[location_id]
    return [place.name, *place.aliases]


def _npc_names(scene: Scene, npc: Npc) -> list[str]:
    names = [scene.npc_label(npc), *([npc.trade] if npc.trade else [])]
    return names + (npc.aliases if npc.id in scene.me.known_names else [])


def _stolen_item(action: RiskyAction, scene: Scene, people: list[Npc]) -> tuple[Npc, str] | None:
    for npc in people:
        held = [scene.gm.items_by_id[i] for i in items_held(scene.state, "npc", npc.id)]
        found = match_names(scene.lex, action.target, [(i.id, [i.name, *i.aliases]) for i in held])
        if len(found) == 1:
            return npc, found[0]
    return None
