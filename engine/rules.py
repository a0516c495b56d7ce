"""Rules: WHEN/IF/THEN automation between turns (seed 004 "规则与响应").

``run_rules`` feeds a batch of events to the world's rules and reactions. Each batch is one
*generation*: the rules it triggers fire in priority order (higher first; ties by event order,
then by their order in the world), then the reactions of each event run in event order. What
they cause becomes the next generation (one ``state:changed`` per variable whose value changed,
the events reactions ``emit``, manual rules to fire), until nothing new happens or
``MAX_GENERATIONS`` is reached; a chain still going then is stopped and reported in ``warnings``.

Triggers and the events that fire them:

- ``variable-crossed``: ``state:changed`` of its variable from one side of ``threshold`` to the
  other (``drops-below``: old ≥ threshold > new; ``rises-above``: old ≤ threshold < new).
- ``state-change``: ``state:changed`` of any variable, or only of ``variableId``.
- ``turn-count``: ``turn:complete`` when the turn is ``atTurn`` or a multiple of ``everyNTurns``.
- ``session-start``: ``session:start`` (the first message of a new session).
- ``keyword`` / ``ai-keyword``: ``message:user`` / ``message:ai`` whose content holds a keyword
  (case-insensitive; ``matchWholeWords`` needs word edges, except next to CJK text, which has none).
- ``every-turn``: ``turn:complete``.
- ``action``: an ``action`` event with its ``actionId`` (custom UI, a client ``action`` frame).
- ``manual``: never by itself. It fires through ``fire_rule(world, state, rule_id)`` (the studio's
  "fire" button, the play layer), through a ``rule:fire`` event with ``ruleId`` (which a reaction
  may ``emit``), or when another rule's ``toggle-rule`` enables it. ``rule:fire`` fires a rule of
  any trigger type.

A rule fires only if enabled (``SessionState.rule_toggles`` overrides ``enabled``), off cooldown
(``cooldownTurns`` turns since ``last_fired_turn``), under ``maxFireCount`` and its conditions
hold; at most once per generation. All of that bookkeeping lives in ``SessionState``.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from engine.conditions import check_conditions
from engine.directives import AudioCue
from engine.events import (
    ACTION,
    MESSAGE_AI,
    MESSAGE_USER,
    RULE_FIRE,
    SESSION_START,
    STATE_CHANGED,
    TURN_COMPLETE,
    Event,
    RulesOutcome,
    rule_fire,
)
from engine.reactions import Effects, matches, reaction_enabled, run_reaction
from engine.session import SessionState
from engine.tokens import NO_SPACE_SCRIPTS
from engine.world import (
    Action,
    InjectDirectiveAction,
    ModifyVariableAction,
    NotifyPlayerAction,
    PlayAudioAction,
    Reaction,
    RemoveDirectiveAction,
    Rule,
    SendContextAction,
    ToggleEntryAction,
    ToggleRuleAction,
    VariableCrossedTrigger,
    WorldDefinition,
)

MAX_GENERATIONS = 16
MAX_EVENTS = 1000  # a chain that fans out (each reaction emitting two events) stops here

# Which trigger types an event type can fire.
_TRIGGERS_BY_EVENT: dict[str, tuple[str, ...]] = {
    STATE_CHANGED: ("variable-crossed", "state-change"),
    TURN_COMPLETE: ("turn-count", "every-turn"),
    SESSION_START: ("session-start",),
    MESSAGE_USER: ("keyword",),
    MESSAGE_AI: ("ai-keyword",),
    ACTION: ("action",),
}

# A word character of a script written with spaces: only there does a word edge mean anything
# (the same rule as the lorebook's ``matchWholeWords``).
_WORD_CHAR = f"[^\\W{NO_SPACE_SCRIPTS}]"


@dataclass(frozen=True, slots=True)
class KeywordMatcher:
    """Finds any of a rule's keywords in a message; built once per world."""

    pattern: re.Pattern[str] | None

    @classmethod
    def build(cls, keywords: Iterable[str], whole_words: bool) -> KeywordMatcher:
        words = sorted({k.strip() for k in keywords if k.strip()}, key=len, reverse=True)
        if not words:
            return cls(None)
        alternatives = [_keyword_pattern(w, whole_words) for w in words]
        return cls(re.compile("|".join(alternatives), re.IGNORECASE))

    def search(self, text: str) -> str | None:
        """The first keyword found in ``text``, as written there, or None."""
        if self.pattern is None:
            return None
        found = self.pattern.search(text)
        return found.group(0) if found else None


def _keyword_pattern(word: str, whole_words: bool) -> str:
    # Any run of whitespace in a keyword matches any run in the message ("old mill", "old\\nmill").
    escaped = r"\s+".join(re.escape(part) for part in word.split())
    if not whole_words:
        return escaped
    start = f"(?<!{_WORD_CHAR})" if re.match(_WORD_CHAR, word[0]) else ""
    end = f"(?!{_WORD_CHAR})" if re.match(_WORD_CHAR, word[-1]) else ""
    return f"{start}{escaped}{end}"


@dataclass(frozen=True)
class CompiledRules:
    """A world's rules indexed by trigger type (priority order) and its reactions by event."""

    by_trigger: dict[str, tuple[Rule, ...]]
    rank: dict[str, int]
    matchers: dict[str, KeywordMatcher]
    reactions_by_event: dict[str, tuple[Reaction, ...]]
    rules_by_id: dict[str, Rule] = field(default_factory=dict)


_CACHE: OrderedDict[str, CompiledRules] = OrderedDict()
_CACHE_SIZE = 64


def compile_rules(world: WorldDefinition) -> CompiledRules:
    """Index a world's rules and reactions; cached by ``world.content_hash``."""
    key = world.content_hash
    compiled = _CACHE.get(key)
    if compiled is not None:
        _CACHE.move_to_end(key)
        return compiled
    ordered = sorted(world.rules, key=lambda r: -r.priority)  # stable: world order on ties
    by_trigger: dict[str, list[Rule]] = {}
    matchers = {}
    for rule in ordered:
        by_trigger.setdefault(rule.trigger.type, []).append(rule)
        if rule.trigger.type in ("keyword", "ai-keyword"):
            trigger = rule.trigger
            matchers[rule.id] = KeywordMatcher.build(
                getattr(trigger, "keywords", []), getattr(trigger, "match_whole_words", False)
            )
    reactions: dict[str, list[Reaction]] = {}
    for reaction in world.reactions or []:
        reactions.setdefault(reaction.when.event_type, []).append(reaction)
    compiled = CompiledRules(
        by_trigger={k: tuple(v) for k, v in by_trigger.items()},
        rank={rule.id: index for index, rule in enumerate(ordered)},
        matchers=matchers,
        reactions_by_event={k: tuple(v) for k, v in reactions.items()},
        rules_by_id={rule.id: rule for rule in world.rules},
    )
    _CACHE[key] = compiled
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return compiled


def run_rules(
    world: WorldDefinition,
    state: SessionState,
    events: Sequence[Event],
    *,
    next_prompt_turn: int | None = None,
) -> RulesOutcome:
    """Run the rules and reactions triggered by ``events``, mutating ``state`` (pass a clone).

    ``next_prompt_turn`` is the turn whose prompt first sees a directive injected now: by default
    the next turn (rules run after the reply); the turn pipeline passes the current turn for the
    events that come before its prompt. Bad references (unknown variable, track, entry) are
    skipped and listed in ``outcome.skipped``; nothing raises.
    """
    outcome = RulesOutcome()
    effects = Effects(
        world,
        state,
        outcome,
        next_prompt_turn=state.turn + 1 if next_prompt_turn is None else next_prompt_turn,
    )
    _Runner(compile_rules(world), effects).run(list(events))
    return outcome


def fire_rule(
    world: WorldDefinition,
    state: SessionState,
    rule_id: str,
    *,
    next_prompt_turn: int | None = None,
) -> RulesOutcome:
    """Fire one rule (typically a ``manual`` one) and whatever it sets off.

    The rule still has to be enabled, off cooldown, under its fire count and meet its
    conditions; an unknown id is reported in ``outcome.skipped``.
    """
    return run_rules(world, state, [rule_fire(rule_id)], next_prompt_turn=next_prompt_turn)


def expire_directives(state: SessionState, turn: int) -> list[str]:
    """Remove the injected directives whose last turn is ``turn`` or earlier; return their ids."""
    expired = [
        directive_id
        for directive_id, directive in state.directives.items()
        if directive.expires_after_turn is not None and directive.expires_after_turn <= turn
    ]
    for directive_id in expired:
        del state.directives[directive_id]
    return expired


class _Runner:
    def __init__(self, compiled: CompiledRules, effects: Effects) -> None:
        self.compiled = compiled
        self.effects = effects
        self.state = effects.state
        self.outcome = effects.outcome

    def run(self, events: list[Event]) -> None:
        generation, depth, seen = events, 0, 0
        while generation:
            if depth == MAX_GENERATIONS or seen + len(generation) > MAX_EVENTS:
                limit = (
                    f"{MAX_GENERATIONS} event generations"
                    if depth == MAX_GENERATIONS
                    else f"{MAX_EVENTS} events"
                )
                pending = ", ".join(e.describe() for e in generation[:5])
                warning = (
                    f"stopped a rule/reaction chain after {limit}: it would loop forever "
                    f"(still pending: {pending}{'…' if len(generation) > 5 else ''})"
                )
                self.outcome.warnings.append(warning)
                self.outcome.log.append(warning)
                return
            seen += len(generation)
            depth += 1
            self._run_generation(generation)
            generation = self.effects.next_generation()

    def _run_generation(self, events: list[Event]) -> None:
        candidates: dict[str, tuple[int, Rule, Event]] = {}
        for index, event in enumerate(events):
            for rule in self._triggered(event):
                candidates.setdefault(rule.id, (index, rule, event))
        ordered = sorted(
            candidates.values(),
            key=lambda c: (-c[1].priority, c[0], self.compiled.rank.get(c[1].id, 0)),
        )
        for _, rule, event in ordered:
            if self._may_fire(rule, event):
                self._fire(rule, event)
        for event in events:
            for reaction in self.compiled.reactions_by_event.get(event.type, ()):
                if reaction_enabled(self.state, reaction) and matches(reaction, event):
                    run_reaction(self.effects, reaction, event)

    def _triggered(self, event: Event) -> list[Rule]:
        if event.type == RULE_FIRE:
            rule_id = str(event.data.get("ruleId", ""))
            rule = self.compiled.rules_by_id.get(rule_id)
            if rule is None:
                self.effects.skip("rule:fire", f"unknown rule '{rule_id}'")
                return []
            return [rule]
        found = []
        for trigger_type in _TRIGGERS_BY_EVENT.get(event.type, ()):
            for rule in self.compiled.by_trigger.get(trigger_type, ()):
                if self._trigger_matches(rule, event):
                    found.append(rule)
        return found

    def _trigger_matches(self, rule: Rule, event: Event) -> bool:
        trigger, data = rule.trigger, event.data
        if isinstance(trigger, VariableCrossedTrigger):
            return data.get("variableId") == trigger.variable_id and _crossed(
                trigger, data.get("oldValue"), data.get("newValue")
            )
        if trigger.type == "state-change":
            wanted = getattr(trigger, "variable_id", None)
            return wanted is None or data.get("variableId") == wanted
        if trigger.type == "turn-count":
            turn = data.get("turn")
            if not isinstance(turn, int) or isinstance(turn, bool):
                return False
            at, every = getattr(trigger, "at_turn", None), getattr(trigger, "every_n_turns", None)
            return turn == at or bool(every and turn > 0 and turn % every == 0)
        if trigger.type in ("keyword", "ai-keyword"):
            content = data.get("content")
            matcher = self.compiled.matchers.get(rule.id)
            return isinstance(content, str) and bool(matcher and matcher.search(content))
        if trigger.type == "action":
            return data.get("actionId") == getattr(trigger, "action_id", None)
        return trigger.type in ("session-start", "every-turn")

    def _may_fire(self, rule: Rule, event: Event) -> bool:
        world, state, source = self.effects.world, self.state, f"rule:{rule.id}"
        reason = ""
        last = state.last_fired_turn.get(rule.id)
        count = state.fire_counts.get(rule.id, 0)
        if not state.rule_enabled(world, rule.id):
            reason = "disabled"
        elif rule.cooldown_turns and last is not None and state.turn - last < rule.cooldown_turns:
            reason = f"on cooldown (fired at turn {last}, cooldown {rule.cooldown_turns})"
        elif rule.max_fire_count is not None and count >= rule.max_fire_count:
            reason = f"already fired {count} of {rule.max_fire_count} times"
        elif not check_conditions(rule.conditions, rule.condition_logic, state.values):
            reason = "conditions not met"
        if reason:
            self.outcome.log.append(f"{source}: not fired on {event.describe()}: {reason}")
            return False
        return True

    def _fire(self, rule: Rule, event: Event) -> None:
        source = f"rule:{rule.id}"
        self.state.fire_counts[rule.id] = self.state.fire_counts.get(rule.id, 0) + 1
        self.state.last_fired_turn[rule.id] = self.state.turn
        self.outcome.fired.append(rule.id)
        self.outcome.log.append(f"{source}: fired on {event.describe()}")
        for action in rule.actions:
            self._apply(action, source)

    def _apply(self, action: Action, source: str) -> None:
        effects = self.effects
        if isinstance(action, ModifyVariableAction):
            effects.modify(action.variable_id, action.operation, action.value, source)
        elif isinstance(action, InjectDirectiveAction):
            effects.inject_directive(
                action.directive_id,
                action.content,
                source,
                position=action.position,
                depth=action.depth,
                persistent=action.persistent,
                duration=action.duration,
            )
        elif isinstance(action, RemoveDirectiveAction):
            effects.remove_directive(action.directive_id, source)
        elif isinstance(action, NotifyPlayerAction):
            effects.notify(action.message, action.style, source)
        elif isinstance(action, PlayAudioAction):
            effects.play(AudioCue(action.track_id, action.action, action.value, None, source))
        elif isinstance(action, ToggleEntryAction):
            effects.toggle_entry(action.entry_id, action.enabled, source)
        elif isinstance(action, ToggleRuleAction):
            effects.toggle_rule(action.rule_id, action.enabled, source)
        elif isinstance(action, SendContextAction):
            effects.add_context(action.message, action.role, source)


def _crossed(trigger: VariableCrossedTrigger, old: object, new: object) -> bool:
    before, after, threshold = _number(old), _number(new), trigger.threshold
    if before is None or after is None:
        return False
    if trigger.direction == "drops-below":
        return before >= threshold > after
    return before <= threshold < after


def _number(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None
