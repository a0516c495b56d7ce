"""One turn of play, from the player's action to the state after it (architecture "The turn, as
data flows"; seed 004 "每轮生成的事件").

``Turn(...).events()`` is an async iterator of ``TurnEvent``: ``Delta`` text while the model
streams (directives and thinking already filtered out), then ``ChoicesEvent``, one
``StateChanged`` per change, ``NotificationEvent``, ``AudioEvent`` and finally ``Done`` with the
``TurnResult``. The input ``SessionState`` is never mutated: the turn works on a clone that the
result carries, so a failed turn (``TurnFailed``, no ``Done``) leaves nothing half-applied.

The pipeline of a ``message``:

1. clone the state and advance ``turn``;
2. run the rules on ``session:start`` (first message of the session only): what they inject or
   send as context reaches this turn's prompt;
3. assemble the prompt over the history plus the player's message; the pending context it used
   is cleared;
4. stream the reply through ``StreamFilter``;
5. parse the whole reply and apply its directives (all of them, even those the stream showed
   early; a stopped turn applies them only with ``apply_on_stop``);
6. run the rules on the four per-turn events of seed 004, in its order and after the reply:
   ``message:user``, ``message:ai``, ``turn:complete`` and one ``state:changed`` per changed
   variable; what they inject or send as context reaches the next turn's prompt (the
   architecture sketch runs ``message:user`` before the prompt; the seed wins);
7. expire one-shot and ``duration`` directives whose last turn this was.

Other kinds: ``regenerate`` is a ``message`` for the history's last user message, not added
again (the caller passes the history without the old reply and the state from before it).
``continue`` writes more of the last assistant message: no new turn, no ``message:user`` nor
``turn:complete``; the prompt ends with that message and ``TurnResult.text`` holds only the new
part, for the caller to append. ``action`` fires the ``action`` rules of ``action_id`` and then
generates if the action carries text (sent as the player's message), if a rule asked for it
(``@ai.request``) or if there is no ``action_id`` at all (a bare "let the narrator go on" — what
the play layer sends when a previous ``TurnResult.requests_ai`` is set); otherwise it ends with
no prompt and no new turn. ``start`` opens the session without a model call: it fires
``session:start`` and returns the greeting (the entry ``action_id`` names, else the first enabled
``greeting`` entry by position) with its macros expanded and its directives applied.

Directives are the narrator's, never the player's (seeds 000, 002): only the model's reply
and the creator's greeting are parsed, never the player's text; the player's words that macros
bring into a greeting (``{{user}}``, the persona) are held out while it is parsed
(`engine.player_text`), and the offline narrator never says back directive syntax the player
typed nor any of the prompt (`engine.llm.offline`).

Everything random or timed comes from ``clock`` and ``rng``, so a turn is reproducible.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from engine import events as ev
from engine.directives import AudioCue, StreamFilter, parse_reply
from engine.events import Notification, RulesOutcome
from engine.llm.base import ChatRequest, Chunk, Provider, ProviderError, Usage
from engine.lorebook import Fired
from engine.macros import MacroContext, expand_macros
from engine.player_text import PlayerWords, parse_held
from engine.prompt import PromptResult, assemble_prompt
from engine.reactions import record_audio
from engine.rules import expire_directives, run_rules
from engine.session import Message, Persona, SessionState
from engine.state import Change, Skipped, copy_value
from engine.tokens import estimate_tokens
from engine.world import Entry, WorldDefinition

Clock = Callable[[], datetime]
ActionKind = Literal["message", "continue", "regenerate", "action", "start"]
ACTION_KINDS: tuple[ActionKind, ...] = ("message", "continue", "regenerate", "action", "start")


@dataclass(frozen=True, slots=True)
class PlayerAction:
    """What the player asked for; see the module docstring for each kind."""

    kind: ActionKind
    text: str = ""
    action_id: str | None = None


# --- events ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Delta:
    """Clean narration text, as it streams."""

    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "delta", "text": self.text}


@dataclass(frozen=True, slots=True)
class StateChanged:
    """One variable (or path inside one) changed, by the reply or by a rule."""

    change: Change

    def to_dict(self) -> dict[str, Any]:
        return {"type": "state", **self.change.to_dict()}


@dataclass(frozen=True, slots=True)
class NotificationEvent:
    notification: Notification

    def to_dict(self) -> dict[str, Any]:
        return {"type": "notification", **self.notification.to_dict()}


@dataclass(frozen=True, slots=True)
class AudioEvent:
    cue: AudioCue

    def to_dict(self) -> dict[str, Any]:
        return {"type": "audio", **self.cue.to_dict()}


@dataclass(frozen=True, slots=True)
class ChoicesEvent:
    """Suggested next actions for the player."""

    choices: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "choices", "choices": list(self.choices)}


@dataclass(frozen=True, slots=True)
class Done:
    result: TurnResult

    def to_dict(self) -> dict[str, Any]:
        return {"type": "done", "result": self.result.to_dict()}


TurnEvent = Delta | StateChanged | NotificationEvent | AudioEvent | ChoicesEvent | Done


@dataclass
class TurnResult:
    """Everything a turn did. ``state`` is the new state; ``changes`` lists, in order, the
    changes of the rules before the prompt, of the reply, and of the rules after it.

    ``prompt`` is None when no model was called (``start``, an ``action`` that did not
    generate). ``requests_ai`` means a rule or reaction asked for another generation.
    """

    text: str
    raw: str
    state: SessionState
    changes: list[Change] = field(default_factory=list)
    notifications: list[Notification] = field(default_factory=list)
    audio: list[AudioCue] = field(default_factory=list)
    choices: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    fired_entries: list[Fired] = field(default_factory=list)
    fired_rules: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    prompt: PromptResult | None = None
    stopped: bool = False
    requests_ai: bool = False
    log: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    gm: Any = None  # a game-master world's engine.gm.play.GMActionResult (kind, rolls, context…)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (the prompt is left out: it is large)."""
        return {
            "text": self.text,
            "raw": self.raw,
            "state": self.state.model_dump(mode="json"),
            "changes": [c.to_dict() for c in self.changes],
            "notifications": [n.to_dict() for n in self.notifications],
            "audio": [a.to_dict() for a in self.audio],
            "choices": list(self.choices),
            "usage": self.usage.to_dict(),
            "fired_entries": [f.to_dict() for f in self.fired_entries],
            "fired_rules": list(self.fired_rules),
            "skipped": [s.to_dict() for s in self.skipped],
            "stopped": self.stopped,
            "requests_ai": self.requests_ai,
            "warnings": list(self.warnings),
        }


class TurnFailed(Exception):
    """The turn could not finish (the provider failed); nothing of it was applied.

    ``message`` can be shown to the player; ``partial_text`` is the clean text streamed so far;
    ``retryable`` and ``status`` come from the ``ProviderError``, if that was the cause.
    """

    def __init__(
        self,
        message: str,
        partial_text: str = "",
        *,
        retryable: bool = False,
        status: int | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.partial_text = partial_text
        self.retryable = retryable
        self.status = status
        self.detail = detail  # technical text for logs, never shown to players


# --- the turn ----------------------------------------------------------------------------


class Turn:
    """One turn; iterate ``events()`` once, then read ``result``."""

    def __init__(
        self,
        world: WorldDefinition,
        state: SessionState,
        history: Sequence[Message],
        action: PlayerAction,
        provider: Provider,
        *,
        persona: Persona | None = None,
        clock: Clock,
        rng: random.Random,
        model: str = "",
        apply_on_stop: bool = False,
        seed: int | None = None,
        idle_seconds: float | None = None,
        character_id: str | None = None,
    ) -> None:
        if action.kind not in ACTION_KINDS:
            raise ValueError(f"unknown action kind '{action.kind}'")
        self.world = world
        self.input_state = state
        self.history = list(history)
        self.action = action
        self.provider = provider
        self.persona = persona
        self.clock = clock
        self.rng = rng
        self.model = model
        self.apply_on_stop = apply_on_stop
        self.seed = seed
        self.idle_seconds = idle_seconds
        self.character_id = character_id  # who acts, in a game-master world
        self.result: TurnResult | None = None
        self._started = False
        self._stop_requested = False
        self._stop_event = asyncio.Event()

    def stop(self) -> None:
        """End the stream early: the result keeps the text so far (see ``apply_on_stop``)."""
        self._stop_requested = True
        self._stop_event.set()

    async def run(self) -> TurnResult:
        """Drain ``events()`` and return the result."""
        async for _ in self.events():
            pass
        assert self.result is not None
        return self.result

    async def events(self) -> AsyncIterator[TurnEvent]:
        """Run the turn, yielding what happens; raises ``TurnFailed`` if the model fails."""
        if self._started:
            raise RuntimeError("a Turn runs once; make a new one")
        self._started = True
        if self.world.game_master is not None:
            # engine.gm.adapter imports this module: import it here, when a turn runs.
            from engine.gm.adapter import gm_action_of, gm_events

            if (gm_action := gm_action_of(self)) is not None:
                async for event in gm_events(self, gm_action):
                    yield event
                return
        run = _Run(self)
        if self.action.kind == "start":
            async for event in run.start():
                yield event
        else:
            async for event in run.play():
                yield event
        self.result = run.result


class _Run:
    """The mutable work of one ``Turn.events()`` call."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.world = turn.world
        self.state = turn.input_state.clone()
        self.before = RulesOutcome()  # rules that ran before the prompt
        self.after = RulesOutcome()  # rules that ran after the reply
        self.reply_changes: list[Change] = []
        self.reply_audio: list[AudioCue] = []
        self.parse_skipped: list[Skipped] = []
        self.user_text: str | None = None
        self._values_before: dict[str, Any] = copy_value(self.state.values)
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
        stream = _Stream(
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


class _Stream:
    """Streams one request through the filter, honouring ``Turn.stop()`` at any moment."""

    def __init__(
        self,
        turn: Turn,
        prompt: PromptResult,
        stream_filter: StreamFilter,
        player_text: str | None = None,
    ) -> None:
        self.turn = turn
        self.request = ChatRequest.from_settings(
            prompt.messages,
            prompt.breakpoint,
            turn.world.settings,
            turn.model,
            player_text=player_text,
        )
        self.filter = stream_filter
        self.raw = ""
        self.shown = ""
        self.choices: list[str] = []
        self.usage = Usage()
        self.stopped = False

    async def run(self) -> AsyncIterator[Delta]:
        turn = self.turn
        try:
            chunks = turn.provider.stream(self.request)
        except Exception as exc:
            raise _failed(exc, "") from exc
        stop_wait = asyncio.ensure_future(turn._stop_event.wait())
        try:
            while True:
                chunk = await self._next(chunks, stop_wait)
                if chunk is None:
                    break
                self.raw += chunk.text
                if chunk.choices:
                    self.choices = list(chunk.choices)
                if chunk.usage is not None:
                    self.usage = chunk.usage
                shown = self.filter.feed(chunk.text) if chunk.text else ""
                if shown:
                    self.shown += shown
                    yield Delta(shown)
            tail = self.filter.close()
            if tail:
                self.shown += tail
                yield Delta(tail)
        finally:
            stop_wait.cancel()
            await _close(chunks)

    async def _next(
        self, chunks: AsyncIterator[Chunk], stop_wait: asyncio.Future[Any]
    ) -> Chunk | None:
        """The next chunk, or None when the stream ended or ``stop()`` was called."""
        if self.turn._stop_requested:
            self.stopped = True
            return None
        step = asyncio.ensure_future(_pull(chunks))
        try:
            await asyncio.wait({step, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            step.cancel()
            raise
        if not step.done():
            step.cancel()
            with contextlib.suppress(BaseException):
                await step
            self.stopped = True
            return None
        try:
            return step.result()
        except Exception as exc:
            raise _failed(exc, self.shown) from exc


def _failed(exc: Exception, partial_text: str) -> TurnFailed:
    if isinstance(exc, ProviderError):
        return TurnFailed(
            exc.message,
            partial_text,
            retryable=exc.retryable,
            status=exc.status,
            detail=exc.detail,
        )
    return TurnFailed(
        "The model provider failed unexpectedly. Regenerate the turn to try again.",
        partial_text,
        detail=f"{type(exc).__name__}: {exc}",
    )


async def _pull(chunks: AsyncIterator[Chunk]) -> Chunk | None:
    return await anext(chunks, None)


async def _close(chunks: AsyncIterator[Chunk]) -> None:
    aclose = getattr(chunks, "aclose", None)
    if aclose is not None:
        with contextlib.suppress(Exception):
            await aclose()


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
