"""The steps of one turn, in the order of ``engine.turn``'s docstring (architecture "The turn,
as data flows"; seed 004 "每轮生成的事件").

``engine.turn`` only checks the action and dispatches: a ``start`` or a played kind runs here,
on a clone of the state, and streaming the reply is ``engine.turn_stream``'s part. Keeping the
steps apart lets the ``Turn`` stay the small public object that callers hold and stop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from engine import events as ev
from engine.directives import AudioCue, StreamFilter, parse_reply
from engine.events import RulesOutcome
from engine.llm.base import Usage
from engine.macros import MacroContext, expand_macros
from engine.player_text import PlayerWords, parse_held
from engine.prompt import PromptResult, assemble_prompt
from engine.reactions import record_audio
from engine.rules import expire_directives, run_rules
from engine.session import Message, SessionState
from engine.state import Change, Skipped
from engine.tokens import estimate_tokens
from engine.turn_events import (
    AudioEvent,
    ChoicesEvent,
    Delta,
    Done,
    NotificationEvent,
    StateChanged,
    TurnEvent,
    TurnResult,
)
from engine.turn_stream import ReplyStream
from engine.world import Entry, WorldDefinition

if TYPE_CHECKING:
    from engine.turn_setup import TurnSetup


class TurnRun:
    """The mutable work of one ``Turn.events()`` call."""

    def __init__(self, turn: TurnSetup) -> None:
        self.turn = turn
        self.world = turn.world
        self.state = turn.input_state.clone()
        self.before = RulesOutcome()  # rules that ran before the prompt
        self.after = RulesOutcome()  # rules that ran after the reply
        self.reply_changes: list[Change] = []
        self.reply_audio: list[AudioCue] = []
        self.parse_skipped: list[Skipped] = []
        self.user_text: str | None = None
        # The turn works on the clone, so the input's values stay as they were: no third copy.
        self._values_before: dict[str, Any] = turn.input_state.values
        self.result: TurnResult | None = None

    # --- kinds -------------------------------------------------------------------------

    async def start(self) -> AsyncIterator[TurnEvent]:
        turn, state = self.turn, self.state
        entry = greeting_entry(self.world, state, turn.action.action_id)
        text = raw = ""
        if entry is not None:
            # The player's words that macros bring in ({{user}}, persona) are never directives.
            words = PlayerWords()
            context = words.shield(self._context(turn.history))
            held = expand_macros(self.world, entry.content, state, context)
            raw = words.restore(held)
            text = self._apply_reply(held, stopped=False, words=words)
        first = [] if state.started else [ev.session_start()]
        state.started = True
        events = first + ev.state_changed_events(
            self.reply_changes, self._values_before, state.values
        )
        self.after = run_rules(self.world, state, events)
        if text:
            yield Delta(text)
        async for event in self._finish(text=text, raw=raw, prompt=None):
            yield event

    async def play(self) -> AsyncIterator[TurnEvent]:
        generate, user_text = self._before_prompt()
        if not generate:
            async for event in self._finish(text="", raw="", prompt=None):
                yield event
            return
        prompt = self._prompt(user_text)
        stream = ReplyStream(
            self.turn, prompt, StreamFilter(self.world, self.state.values), self.user_text
        )
        async for delta in stream.run():
            yield delta
        text = self._apply_reply(stream.raw, stopped=stream.stopped)
        self._after_reply(text)
        if stream.choices:
            yield ChoicesEvent(stream.choices)
        async for event in self._finish(
            text=text,
            raw=stream.raw,
            prompt=prompt,
            choices=stream.choices,
            usage=stream.usage,
            stopped=stream.stopped,
        ):
            yield event

    # --- steps -------------------------------------------------------------------------

    def _before_prompt(self) -> tuple[bool, str | None]:
        """Run what comes before the prompt; tell whether to generate, and the player's text."""
        turn, state, action = self.turn, self.state, self.turn.action
        user_text: str | None = None
        if action.kind == "message":
            user_text = action.text
        elif action.kind == "regenerate":
            user_text = next((m.content for m in reversed(turn.history) if m.role == "user"), "")
        elif action.kind == "action":
            if action.action_id:
                self.before = run_rules(self.world, state, [ev.action(action.action_id)])
            if action.text.strip():
                user_text = action.text
            elif action.action_id and not self.before.requests_ai:
                return False, None
        if action.kind != "continue":
            state.turn += 1
        first: list[ev.Event] = []
        if not state.started:
            state.started = True
            first.append(ev.session_start())
        self.user_text = user_text
        if first:
            self.before.extend(run_rules(self.world, state, first, next_prompt_turn=state.turn))
        self.before.requests_ai = False  # this very generation answers such a request
        return True, user_text

    def _after_reply(self, text: str) -> None:
        state = self.state
        # Seed 004: all four per-turn events are emitted after the AI reply, message:user first.
        events = [] if self.user_text is None else [ev.message_user(self.user_text)]
        events.append(ev.message_ai(text))
        if self.turn.action.kind != "continue":
            events.append(ev.turn_complete(state.turn))
        events += ev.state_changed_events(self.reply_changes, self._values_before, state.values)
        self.after = run_rules(self.world, state, events)
        expire_directives(state, state.turn)

    # --- steps -------------------------------------------------------------------------

    def _context(self, messages: Sequence[Message]) -> MacroContext:
        turn = self.turn
        return MacroContext(
            turn=self.state.turn,
            persona=turn.persona,
            now=turn.clock(),
            seed=turn.seed,
            model=turn.model,
            messages=list(messages),
            idle_seconds=turn.idle_seconds,
            rng=turn.rng,
        )

    def _prompt(self, user_text: str | None) -> PromptResult:
        turn, history = self.turn, list(self.turn.history)
        prefill: Message | None = None
        if turn.action.kind == "continue" and history and history[-1].role == "assistant":
            prefill = history.pop()
        elif user_text is not None and turn.action.kind != "regenerate":
            history.append(Message("user", user_text))
        context = self._context(history + ([prefill] if prefill else []))
        prompt = assemble_prompt(
            self.world, history, self.state, persona=turn.persona, context=context
        )
        self.state.pending_context = []  # consumed by this prompt
        if prefill is not None:
            # The model continues its own message, so that message must come last.
            prompt.messages.append(prefill)
            prompt.tokens += estimate_tokens(prefill.content)
        return prompt

    def _apply_reply(self, raw: str, *, stopped: bool, words: PlayerWords | None = None) -> str:
        """Parse the whole reply (only ever the narrator's text: the model's reply or the
        creator's greeting, whose player ``words`` are held out); apply its directives unless
        the turn was stopped."""
        state = self.state
        self._values_before = state.values  # parse_reply works on a copy; this one stays as is
        if words is None:
            parsed = parse_reply(self.world, raw, state.values)
        else:
            parsed = parse_held(self.world, raw, state.values, words)
        self.parse_skipped = list(parsed.skipped)
        if stopped and not self.turn.apply_on_stop:
            return parsed.text
        state.values = parsed.state
        self.reply_changes = list(parsed.changes)
        self.reply_audio = list(parsed.audio)
        for cue in self.reply_audio:
            record_audio(self.world, state, cue)
        return parsed.text

    async def _finish(
        self,
        *,
        text: str,
        raw: str,
        prompt: PromptResult | None,
        choices: list[str] | None = None,
        usage: Usage | None = None,
        stopped: bool = False,
    ) -> AsyncIterator[TurnEvent]:
        before, after = self.before, self.after
        result = TurnResult(
            text=text,
            raw=raw,
            state=self.state,
            changes=before.changes + self.reply_changes + after.changes,
            notifications=before.notifications + after.notifications,
            audio=before.audio + self.reply_audio + after.audio,
            choices=list(choices or []),
            usage=usage or Usage(),
            fired_entries=list(prompt.fired) if prompt is not None else [],
            fired_rules=before.fired + after.fired,
            skipped=self.parse_skipped + before.skipped + after.skipped,
            prompt=prompt,
            stopped=stopped,
            requests_ai=after.requests_ai,
            log=before.log + after.log,
            warnings=before.warnings + after.warnings,
        )
        for change in result.changes:
            yield StateChanged(change)
        for notification in result.notifications:
            yield NotificationEvent(notification)
        for cue in result.audio:
            yield AudioEvent(cue)
        self.result = result
        yield Done(result)


def greeting_entry(
    world: WorldDefinition, state: SessionState, entry_id: str | None = None
) -> Entry | None:
    """The greeting to open a session with: ``entry_id`` if it is a greeting, else the first
    enabled greeting entry by position (world order on ties)."""
    if entry_id:
        entry = world.entries_by_id.get(entry_id)
        if entry is not None and entry.role == "greeting":
            return entry
    greetings = [
        e for e in world.entries if e.role == "greeting" and state.entry_enabled(world, e.id)
    ]
    return min(greetings, key=lambda e: e.position) if greetings else None
