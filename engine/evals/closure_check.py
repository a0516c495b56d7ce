"""The game-master detectors (seed 001 "Comprobación del cierre", "No adelantan lo que el jugador
no sabe"; decisions 15, 17): the closure check's rules and names the character has not heard.

The closure check of ``engine.gm.closure`` is run again, after the fact, on every narration the
master offered in a step: each ``log_event`` attempt (a rejected one is an error the engine
caught: the model made it all the same) and, when the master closed no turn through the loop
(the offline master; a plain world has none), on the narration shown. Engine templates (moves,
a roll's consequence offline) are the engine's own words and are not checked. The scene is
rebuilt from the step's record: the world's authored state with the character where he stood
and knowing whom he knew. An unknown name is an NPC the narration names whom the character
neither knew before, nor has with him, nor named himself, nor heard named earlier in the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.evals.transcript import Finding, Step
from engine.gm.closure import TurnFacts, check_closure
from engine.gm.dice import Modifier, Roll
from engine.gm.scene import Scene
from engine.gm.state import initial_gm_state
from engine.gm.suggest import names_in
from engine.gm.tools import LOG_EVENT, ToolCall, ToolOutcome
from engine.gm.words import lexicon
from engine.world import WorldDefinition

MASTER_KINDS = ("master",)


def gm_findings(
    world: WorldDefinition, character_id: str | None, step: Step, earlier: Sequence[Step]
) -> list[Finding]:
    """The closure rules and the unknown names of one step; nothing in a plain world."""
    gm = world.game_master
    if gm is None or step.failed or not gm.characters:
        return []
    scene = rebuild_scene(world, character_id or gm.characters[0].id, step)
    if scene is None:
        return []
    return [*closure_findings(scene, step), *unknown_names(scene, step, earlier)]


def rebuild_scene(world: WorldDefinition, character_id: str, step: Step) -> Scene | None:
    """The scene of the step as far as its record tells; None for an unknown character."""
    gm = world.game_master
    assert gm is not None
    state = initial_gm_state(gm)
    me = state.characters.get(character_id)
    if me is None:
        return None
    if step.location and step.location in gm.locations_by_id:
        me.location = step.location
    me.known_names = list(dict.fromkeys([*me.known_names, *step.known_names]))
    language = world.language or "en"
    return Scene(gm, state, character_id, lexicon(language), lexicon(language))


def closure_findings(scene: Scene, step: Step) -> list[Finding]:
    """Each rule that fires on a narration the master offered; shown ones say so."""
    attempts = [
        str(call.get("arguments", {}).get("narration") or "")
        for call in step.tool_calls
        if call.get("name") == LOG_EVENT and call.get("arguments", {}).get("narration")
    ]
    if not attempts and step.kind in MASTER_KINDS and step.model_calls > 0:
        attempts = [step.narration]  # a model's (the offline master's), not an engine template
    facts = _facts(scene, step)
    out: dict[str, Finding] = {}
    for text in attempts:
        shown = text.strip() == step.narration.strip()
        for rule in check_closure(text, facts, scene).violations:
            detail = "shown to the player" if shown else "caught by the closure check"
            if rule not in out or shown:
                out[rule] = Finding(rule, detail=detail)
    return list(out.values())


def _facts(scene: Scene, step: Step) -> TurnFacts:
    calls = [
        (
            ToolCall(str(n), str(c.get("name", "")), dict(c.get("arguments") or {})),
            ToolOutcome(bool(c.get("ok")), dict(c.get("result") or {}), str(c.get("error", ""))),
        )
        for n, c in enumerate(step.tool_calls)
        if c.get("name") != LOG_EVENT
    ]
    return TurnFacts(
        tool_calls=calls,
        rolls=[_roll(r) for r in step.rolls],
        character_id=scene.character_id,
        player_character_ids=[c.id for c in scene.gm.characters if c.id != scene.character_id],
        language=scene.lex.language,
    )


def _roll(data: dict[str, Any]) -> Roll:
    faces = [int(f) for f in data.get("faces") or [] if isinstance(f, int)]
    modifiers = [
        Modifier(str(m.get("source", "")), int(m.get("value", 0)))
        for m in data.get("modifiers") or []
        if isinstance(m, dict)
    ]
    return Roll(
        kind=data.get("kind", "check"),
        die=str(data.get("die", "d20")),
        faces=faces,
        modifiers=modifiers,
        dc=data.get("dc"),
        outcome=data.get("outcome", "damage"),
        natural=data.get("natural"),
    )


def unknown_names(scene: Scene, step: Step, earlier: Sequence[Step]) -> list[Finding]:
    """NPCs named to the player who are neither known, present, named by him nor heard of."""
    said = names_in(scene, "\n".join([step.narration, *step.suggestions]))
    if not said:
        return []
    heard = set(step.known_names) | set(step.present) | set(names_in(scene, step.action))
    for before in earlier:
        heard |= set(names_in(scene, "\n".join([before.action, before.narration])))
    unknown = [n for n in said if n not in heard]
    if not unknown:
        return []
    names = ", ".join(scene.gm.npcs_by_id[n].name for n in unknown)
    return [Finding("unknown-name", detail=names)]
