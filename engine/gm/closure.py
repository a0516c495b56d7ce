"""The closure check (seed 001 "Comprobación del cierre": "Antes de enseñar la narración, el motor
la revisa. Rechaza (y pide repetir) si …"; the remit table: "no actúa por un jugador, no resuelve
más de una acción por mensaje, no mata ni resucita, no adelanta el tiempo"; GAME_MASTER.md §5,
decision 15; issue 34 §1–2).

Free engine code, no model: the narration is read once (``engine.gm.closure_rules.facts.read``:
its clauses, the world's entities it mentions with pronouns and descriptions resolved, the
events it claims, each verb of a class keyed by stems with who does it to what) and each rule,
one module of ``engine.gm.closure_rules``, judges those claims against the turn's tool calls and
results, the roll and the characters present. When ``log_event`` stated its claims in structure
(``facts.claims``), they are compared with the tool results exactly and the narration with them
(``closure_rules.claims``). ``check_closure`` reports which rules fired (the loop asks again,
then falls back); ``fallback_closure`` is the templated closure built from what the tools
applied.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from engine.gm.closure_rules.acts_for_player import acts_for_player
from engine.gm.closure_rules.claims import claim_violations
from engine.gm.closure_rules.deal import unregistered_deal
from engine.gm.closure_rules.death import death_or_return
from engine.gm.closure_rules.facts import Reading, TurnFacts, ok_calls, read
from engine.gm.closure_rules.failed_tool import failed_tool_narrated
from engine.gm.closure_rules.roll import contradicts_roll
from engine.gm.closure_rules.several import several_actions
from engine.gm.closure_rules.time import time_advanced
from engine.gm.closure_rules.unknown_place import unknown_place
from engine.gm.phrasebook import phrasebook
from engine.gm.scene import Scene
from engine.gm.tools import LOG_EVENT

__all__ = [
    "RULES",
    "VIOLATIONS",
    "ClosureReport",
    "Reading",
    "TurnFacts",
    "check_closure",
    "fallback_closure",
    "read",
]

VIOLATIONS = (
    "failed-tool-narrated",
    "unknown-place",
    "unregistered-deal",
    "contradicts-roll",
    "acts-for-player",
    "death-or-return",
    "time-advanced",
    "several-actions",
)
UNTOLD = ("invalid-arguments", "unknown-tool", "invalid")  # errors meant for the master only


@dataclass(frozen=True)
class ClosureReport:
    ok: bool
    violations: list[str] = field(default_factory=list)


Rule = Callable[[Reading], bool]

# --- the check ----------------------------------------------------------------------------------

RULES: dict[str, Rule] = {
    "failed-tool-narrated": failed_tool_narrated,
    "unknown-place": unknown_place,
    "unregistered-deal": unregistered_deal,
    "contradicts-roll": contradicts_roll,
    "acts-for-player": acts_for_player,
    "death-or-return": death_or_return,
    "time-advanced": time_advanced,
    "several-actions": several_actions,
}


def check_closure(narration: str, facts: TurnFacts, scene: Scene) -> ClosureReport:
    """Run every rule on the narration; ``violations`` lists the rules that fired, in order
    (with structured claims, those their comparison breaks too)."""
    reading = read(narration, facts, scene)
    fired = {code for code, rule in RULES.items() if rule(reading)}
    if facts.claims:
        fired |= set(claim_violations(reading))
    ordered = [code for code in VIOLATIONS if code in fired]
    return ClosureReport(not ordered, ordered)


def fallback_closure(facts: TurnFacts, scene: Scene) -> str:
    """A closure built from what the tools applied (and why a failed one did not happen), for
    when the master's narration failed the check twice."""
    words = phrasebook(facts.language)
    lines = [str(o.result["done"]) for _, o in ok_calls(facts) if o.result.get("done")]
    redone = {c.name for c, _ in ok_calls(facts)}
    lines += [
        words.t("fallback_failed", error=o.error)
        for c, o in facts.tool_calls
        if not o.ok
        and c.name not in redone
        and c.name != LOG_EVENT
        and o.result.get("code") not in UNTOLD
    ]
    lines = list(dict.fromkeys(lines))
    return " ".join(lines) if lines else words.t("fallback_nothing")
