"""One player action in a game-master world (seed 001 "Una llamada por acción", "Intención antes
de efecto y el dado"; GAME_MASTER.md decisions 1, 3, 10, 16).

``play_gm_action`` is the dispatcher: an engine move is resolved and narrated by template (0
model calls, kind ``engine``; impossible or ambiguous: ``refused``; no target: ``ask``);
``{"roll": true}`` rolls the pending check, shows the breakdown and the consequence; anything
else goes to the master, who alone decides what needs a check (issue 33 §2). With a live,
scripted or replayed provider that is the tool-calling master (``engine.gm.loop``, issue "Game
master II"): tools (``request_skill_check`` asks for a roll), ``log_event``, the closure check;
a roll's consequence goes through the same loop, the rolls known to the check. Offline, the
offline master answers: a risky act read by ``engine.gm.risk`` gets its check (kind
``master``, the narration asks for the roll; a search rolls hidden at once) or a question
when its target is unclear; words to an NPC get the talk templates; anything else a neutral
closure that quotes the player (``engine.gm.offline``) and 2–3 suggestions. The input state
is never mutated: the result carries a new one, and a provider error leaves nothing applied.

``model_calls`` counts provider requests (decision 3): every call of the loop; 1 for each
answer of the offline master (its check or closure), at zero cost, none for its question of a
missing target; none for a roll's consequence offline, which is the engine's templated
closure.

Several characters (issue 12 §4): before the master, ``engine.gm.party`` hushes a whisper and
answers a join or a "wait your turn" for free; ``engine.gm.narrator`` settles the master's
narration; ``delivered_to`` says what each character perceived (``engine.gm.delivery``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from random import Random
from typing import Any

from engine.gm.aloud import others_see, private
from engine.gm.brief import brief, master_settings
from engine.gm.closure_rules.actions import action_clauses, tell_first
from engine.gm.delivery import delivered_to
from engine.gm.dice import Roll
from engine.gm.directors.pipeline import play_master
from engine.gm.moves import classify, click_move, languages_from, resolve
from engine.gm.narrator import narrate
from engine.gm.offline import closure
from engine.gm.outcomes import resolve_pending
from engine.gm.party import hold_turn, hush
from engine.gm.perception import perceive, scene_context
from engine.gm.report import MasterTurn
from engine.gm.result import GMAction as GMAction
from engine.gm.result import GMActionResult as GMActionResult
from engine.gm.result import Kind as Kind
from engine.gm.risk import RiskyAction, classify_risky, plan_risk
from engine.gm.scene import MoveResult, Scene
from engine.gm.scrub import scrub_result
from engine.gm.space import suggest
from engine.gm.state import GMEvent, GMState, PendingCheck, clone_gm_state, initial_gm_state
from engine.gm.suggest import offline_suggestions
from engine.gm.talk_turn import TalkTurn, offline_talk, rule_moves, settle_live, start_talk
from engine.gm.words import lexicon, normalize, split_actions
from engine.llm.base import ChatRequest, Provider
from engine.session import SessionState
from engine.world import WorldDefinition

Clock = Callable[[], datetime]
MAX_SUGGESTIONS = 4


def _suggestions(*groups: list[str]) -> list[str]:
    """Two to four suggestions, in order, without repeats (case aside)."""
    out: dict[str, str] = {}
    for group in groups:
        for text in group:
            out.setdefault(text.casefold(), text)
    return list(out.values())[:MAX_SUGGESTIONS]


def is_roll(text: str, language: str | None = None) -> bool:
    """``text`` alone asks to roll ("roll", "Roll", "tirar", "tiro", "掷骰"), in any language."""
    said = normalize(text)
    return bool(said) and any(said in lexicon(code).roll for code in languages_from(language))


class GMError(ValueError):
    """The action cannot be played: no gameMaster block, unknown character, bad action."""


def ensure_gm_state(
    world: WorldDefinition, state: SessionState, seed: int | None = None
) -> GMState:
    """The session's GM state, created from the block on first use (dice seeded by ``seed``);
    characters added to the world since are added to it. GMError without a block."""
    gm = world.game_master
    if gm is None:
        raise GMError("the world has no gameMaster block")
    if state.gm is None:
        state.gm = initial_gm_state(gm, seed or 0)
    missing = [c for c in gm.characters if c.id not in state.gm.characters]
    if missing:
        fresh = initial_gm_state(gm.model_copy(update={"characters": missing}), 0)
        state.gm.characters.update(fresh.characters)
    return state.gm


async def play_gm_action(
    world: WorldDefinition,
    state: SessionState,
    character_id: str,
    action: GMAction,
    *,
    provider: Provider | None = None,
    clock: Clock | None = None,
    rng_seed: int | None = None,
    language: str | None = None,
) -> GMActionResult:
    """Play one action (text, ``{"roll": true}`` or ``{"click": {"location"|"point": id}}``)
    for ``character_id``. GMError for a world without a block, an unknown character or an
    action of another shape; a provider's ProviderError passes through (nothing applied)."""
    new = _clone(state)
    gm_state = ensure_gm_state(world, new, rng_seed)
    if character_id not in gm_state.characters:
        known = ", ".join(gm_state.characters) or "none"
        raise GMError(f"unknown character '{character_id}' (the world has: {known})")
    first = gm_state.next_event
    run = _Run(world, new, character_id, action, provider, clock, language)
    result = await run.play()
    result.location = gm_state.characters[character_id].location
    result.delivered_to = delivered_to(world, result, character_id, first)  # by perception
    scrub_result(result, first)  # no directive is shown, nor applied (engine.gm.scrub)
    return result


def _clone(state: SessionState) -> SessionState:
    """``state.clone()``, with the GM state's event log shared rather than deep-copied."""
    shell = state.model_copy()
    shell.gm = None
    new = shell.model_copy(deep=True)
    new.gm = clone_gm_state(state.gm) if state.gm is not None else None
    return new


class _Run:
    def __init__(
        self,
        world: WorldDefinition,
        state: SessionState,
        character_id: str,
        action: GMAction,
        provider: Provider | None,
        clock: Clock | None,
        language: str | None,
    ) -> None:
        assert world.game_master is not None and state.gm is not None
        self.world, self.state, self.character_id, self.action = world, state, character_id, action
        self.gm, self.gm_state = world.game_master, state.gm
        self.provider = provider
        self.language = lexicon(language or world.language or "en").language
        self.at = clock().isoformat() if clock else None
        view = perceive(
            self.gm, self.gm_state, character_id, values=state.values, language=world.language
        )
        self.context = scene_context(view)
        self.request = ChatRequest.from_settings([], None, master_settings(world.settings))

    @property
    def live(self) -> bool:
        """A provider that answers as a model (live, scripted, replayed), not the offline one."""
        return self.provider is not None and self.provider.name != "offline"

    def scene(self, language: str) -> Scene:
        world_lex = lexicon(self.world.language or "en")
        lex = lexicon(language)
        values = self.state.values  # clue conditions read the world's variables
        return Scene(self.gm, self.gm_state, self.character_id, lex, world_lex, self.at, values)

    def result(self, kind: Kind, narration: str, language: str, **more: Any) -> GMActionResult:
        return GMActionResult(
            input=self.action,
            kind=kind,
            narration=narration,
            state=self.state,
            location="",
            context=self.context,
            language=language,
            **more,
        )

    async def play(self) -> GMActionResult:
        action = self.action
        if isinstance(action, str):
            return await self.text(action)
        if isinstance(action, Mapping) and action.get("roll") is True:
            return await self.roll()
        if isinstance(action, Mapping) and isinstance(action.get("click"), Mapping):
            move = click_move(action["click"], self.language)
            if move is not None:
                return self.engine_move(resolve(move, self.scene(move.language)), move.language)
        if isinstance(action, Mapping) and isinstance(action.get("text"), str):
            return await self.text(action["text"])
        raise GMError(
            'an action is a string, {"roll": true} or {"click": {"location"|"point": id}}'
        )

    def engine_move(
        self, moved: MoveResult, language: str, rest: list[str] | None = None
    ) -> GMActionResult:
        narration, suggestions = moved.narration, list(moved.suggestions)
        if rest:
            narration += "\n" + lexicon(language).t("one_at_a_time")
            suggestions = _suggestions(rest, suggestions)
        if moved.kind == "engine" and (moved.events or moved.changes):
            # a read of his own pack, sheet or journal did nothing: a waiting roll still waits
            self.clear_pending(moved.changes)
        return self.result(
            moved.kind,
            narration,
            language,
            events=moved.events,
            changes=moved.changes,
            suggestions=_suggestions(suggestions),
        )

    def clear_pending(self, changes: dict[str, Any]) -> None:
        """A new action drops a check still waiting for its roll: the player chose otherwise."""
        if self.gm_state.pending.pop(self.character_id, None) is not None:
            changes["pending"] = None

    async def text(self, text: str) -> GMActionResult:
        if self.character_id in self.gm_state.pending and is_roll(text, self.language):
            return await self.roll()  # typing the Roll button's word is pressing it (seed 001)
        parts = [text]
        for code in languages_from(self.language):
            parts = split_actions(lexicon(code), text)
            if len(parts) > 1:
                break
        for code in languages_from(self.language):
            clauses = action_clauses(parts[0], code)  # "Abro la puerta, cojo la gema y huyo"
            if len(clauses) > 1:
                parts = [*clauses, *parts[1:]]
                break
        first, rest = parts[0], parts[1:]
        move = classify(first, self.language, self.scene(self.language))
        if move is not None:
            return self.engine_move(resolve(move, self.scene(move.language)), move.language, rest)
        # Only the master decides what needs a check: live, the model; offline, its reading.
        risky = None if self.live else classify_risky(first, languages_from(self.language))
        if risky is not None:
            return await self.risky(risky, rest)
        return await self.master(first, rest)

    async def risky(self, risky: RiskyAction, rest: list[str]) -> GMActionResult:
        """The offline master's check for a risky act: one answer of it (1 call, no cost); its
        question for a missing target spends nothing (seed 001 "No se gasta nada")."""
        done = await self.plan(risky, rest)
        done.model_calls = 1 if done.kind == "master" else 0
        return done

    async def plan(self, risky: RiskyAction, rest: list[str]) -> GMActionResult:
        scene = self.scene(risky.language)
        plan = plan_risk(risky, scene)
        if plan.kind in ("ask", "refused"):
            return self.result(plan.kind, plan.narration, risky.language)
        assert plan.pending is not None
        changes: dict[str, Any] = {}
        self.clear_pending(changes)
        event = scene.log("action", "ev_action", text=risky.text)
        if plan.kind == "hidden":
            return await self.resolve_roll(scene, plan.pending, [event], changes)
        self.gm_state.pending[self.character_id] = plan.pending
        changes["pending"] = plan.pending.model_dump(mode="json", exclude_none=True)
        suggestions = _suggestions(plan.suggestions, rest)
        return self.result(
            "master",
            plan.narration + _one_at_a_time(rest, risky.language),
            risky.language,
            events=[event],
            changes=changes,
            suggestions=suggestions,
            pending=plan.pending,
        )

    async def roll(self) -> GMActionResult:
        pending = self.gm_state.pending.pop(self.character_id, None)
        if pending is None:
            narration = lexicon(self.language).t("nothing_to_roll")
            return self.result("refused", narration, self.language)
        scene = self.scene(pending.language)
        return await self.resolve_roll(scene, pending, [], {"pending": None})

    async def resolve_roll(
        self, scene: Scene, pending: PendingCheck, events: list[GMEvent], changes: dict[str, Any]
    ) -> GMActionResult:
        outcome = resolve_pending(scene, pending)
        narration = "\n".join(outcome.lines)
        done = self.result(
            "master",
            narration,
            pending.language,
            events=[*events, *outcome.events],
            rolls=outcome.rolls,
            changes={**changes, **outcome.changes},
            suggestions=suggest(scene),
        )
        if not self.live:
            rule_moves(scene, done.changes)
            return done
        told = brief(scene.lex.language).t("roll_turn", action=pending.text, rolled=narration)
        turn = await self.run_master(scene, told, outcome.rolls)
        self.absorb(done, turn)
        rule_moves(scene, done.changes)
        done.narration = (
            f"{narration}\n{narrate(self.gm_state, self.character_id, turn.narration)}".strip()
        )
        done.suggestions = turn.suggestions or done.suggestions
        return done

    async def master(self, text: str, rest: list[str]) -> GMActionResult:
        scene = hush(self.scene(self.language), text)  # a whisper: only its addressee hears
        held = hold_turn(scene, text)  # one character at a time with an NPC (engine.gm.party)
        if held is not None:
            return self.engine_move(held, scene.lex.language, rest)
        changes: dict[str, Any] = {}
        self.clear_pending(changes)
        event = scene.log("action", "ev_action", text=text)
        # words to an NPC: its five-slot talk script (not words he keeps to himself)
        talk = None if private(text, scene.lex.language) else start_talk(scene, text, event)
        others_see(scene, text, event, talk.npc if talk else None)  # never what he typed
        done = self.result("master", "", self.language, events=[event], changes=changes)
        if not self.live:
            # The offline master: a plain closure and 2-3 suggestions, at zero cost; an NPC
            # spoken to answers from its script's templates.
            done.narration = closure(text, scene.lex.language)
            if talk is not None:
                said = offline_talk(scene, talk)
                done.narration, done.events = said.narration, [event, *said.events]
                done.changes.update(said.changes)
            rng = Random(f"{self.gm_state.dice.seed}:{self.gm_state.next_event}:{text}")
            done.suggestions = _suggestions(rest, offline_suggestions(scene, text, rng))
            done.narration += _one_at_a_time(rest, scene.lex.language)
            done.model_calls = 1
            return done
        told = tell_first(text, rest, scene.lex.language)  # the rest waits (issue 34 §2)
        turn = await self.run_master(scene, told, [], talk)
        self.absorb(done, turn)
        if talk is not None and turn.fallback:
            done.narration = self.talk_instead(scene, talk, done)
        else:
            if talk is not None:
                await self.settle_talk(scene, talk, done)
            rule_moves(scene, done.changes, talk)
            done.narration = narrate(self.gm_state, self.character_id, turn.narration, talk, done)
        done.narration += _one_at_a_time(rest, scene.lex.language)
        done.suggestions = _suggestions(rest, turn.suggestions)
        return done

    async def run_master(
        self, scene: Scene, text: str, rolls: list[Roll], talk: TalkTurn | None = None
    ) -> MasterTurn:
        assert self.provider is not None
        turn = await play_master(  # the three directors when the world opts in (seed 003)
            scene,
            text,
            self.provider,
            context=f"{self.context}\n\n{talk.prompt(scene)}" if talk else self.context,
            cap=self.gm.settings.tool_cap,
            request=self.request,
            rolls=rolls,
            world=self.world,
            session=self.state,
        )
        self.state.gm = self.gm_state = scene.state  # the tools' changes, whatever object
        return turn

    def talk_instead(self, scene: Scene, talk: TalkTurn, done: GMActionResult) -> str:
        """The master closed nothing: the NPC answers from its script, not the bare closure."""
        said = offline_talk(scene, talk)  # its trust moves included (issue 37 §3)
        done.events.extend(said.events)
        done.changes.update(said.changes)
        return said.narration

    async def settle_talk(self, scene: Scene, talk: TalkTurn, done: GMActionResult) -> None:
        """The free checks on the NPC's bubble: one rewrite request, kept if it passes."""
        assert self.provider is not None
        fixed = await settle_live(scene, talk, done.events, self.provider, self.request)
        if fixed is not None:
            done.model_calls += fixed.model_calls
            done.usage = done.usage.plus(fixed.usage)

    def absorb(self, done: GMActionResult, turn: MasterTurn) -> None:
        """What the loop did, into the action's result (the tools applied to the scene)."""
        done.model_calls += turn.model_calls
        done.usage = done.usage.plus(turn.usage)
        done.events.extend(turn.events)
        done.rolls.extend(turn.rolls)
        done.changes.update(turn.changes)
        done.pending = turn.pending or done.pending
        done.tool_calls, done.closure, done.attempts = turn.tool_calls, turn.closure, turn.attempts


def _one_at_a_time(rest: list[str], language: str) -> str:
    """The line that tells the player the rest of his message waits (issue 34 §2)."""
    return "\n" + lexicon(language).t("one_at_a_time") if rest else ""
