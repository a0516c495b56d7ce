"""The tool-calling master's loop (seed 001 "Las tools", "Comprobación del cierre"; issue "Game
master II" §2–3; decisions 3, 12–15).

One request holds the fixed part above the cache breakpoint (the brief and rule sheet of
``engine.gm.brief``, and ``tool_schemas()``), then the perceived scene and the action. The
master's tool calls are run one by one through ``engine.gm.tools.execute`` and their results fed
back, until ``log_event`` closes the turn. Past the cap (``gameMaster.settings.toolCap``) calls
are answered "not done", and one last call forces ``log_event`` (the tool list itself stays
byte-identical, so it is still read from cache). A turn without ``log_event`` is not done; when
even the forced call brings none, the engine closes it with ``fallback_closure``.

The narration is checked (``check_closure``) before anything is shown: a rejection goes back to
the master as the ``log_event`` call's error naming the rules, and the master is asked again with
its full tool set (issue 34 §3: a master that narrated a pledge fixes it with ``pawn_item``);
the last of ``MAX_ATTEMPTS`` (or any past the tool cap) is forced to ``log_event``, and a
rejection there falls back to the templated closure too. Only then is the narration streamed
to ``on_delta``: tool traffic, the rejected narrations and whatever text the master wrote beside
its calls never reach the player. Model calls, usage and cost are summed over the loop
(decision 3).

Where the narration is held back (issue 37 §1): every narration, the ``log_event`` argument's
and a text reply's alike, is held until the closure check has passed, since a rejected one must
never be seen; meanwhile each step goes out as a status (``engine.gm.steps``: ``thinking`` per
model call, the tool's step per call, ``writing`` while the narration is checked), and the
checked narration then streams through the play stream's filter (``engine.gm.adapter``).

Servers that cannot force a tool (issue 37 §3, ``engine.llm.capabilities``): a forced call is
asked for by name, else as ``"required"`` with ``log_event`` the only tool, else not at all.
Then a reply of text alone, in a forced call or from a server that cannot force, is the
narration of a ``log_event`` with no effects and goes through the closure check like any other;
a rejection goes back as the user's words (there is no call to answer). The templated closure
("Nothing changes." when nothing was applied) stays the last resort.
"""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.gm.brief import Brief, brief
from engine.gm.closure import TurnFacts, check_closure, fallback_closure
from engine.gm.dice import Roll
from engine.gm.report import Closure, MasterTurn, ToolReport, narration_pieces
from engine.gm.scene import Scene
from engine.gm.scrub import strip_directives
from engine.gm.steps import THINKING, WRITING, current, say, step_of
from engine.gm.suggest import offline_suggestions
from engine.gm.tools import LOG_EVENT, ToolOutcome, execute
from engine.gm.tools.offer import offered_schemas
from engine.llm.base import ChatRequest, Provider, Usage
from engine.llm.capabilities import FREE, REQUIRED
from engine.session import Message, ToolCall

OnDelta = Callable[[str], Awaitable[None]]
MAX_SUGGESTIONS = 4
MAX_ATTEMPTS = 3  # closures judged per turn: all but the last may call any tool first
FORCE_CLOSE = {"name": LOG_EVENT}


async def run_master(
    scene: Scene,
    action_text: str,
    provider: Provider,
    *,
    context: str,
    cap: int = 8,
    request: ChatRequest | None = None,
    rolls: Sequence[Roll] = (),
    on_delta: OnDelta | None = None,
    system: str | None = None,
) -> MasterTurn:
    """Play one master turn for ``scene``'s character; changes are applied to ``scene.state``.

    ``context`` is the perceived scene (``engine.gm.perception``); ``request`` carries sampling
    settings; ``rolls`` are the ones the server already made for this action (a roll's
    consequence), for the check. ``system`` replaces the fixed brief (the Game Director's,
    ``engine.gm.directors``). A ProviderError passes through: the caller drops the state.
    """
    loop = _Loop(scene, action_text, provider, context, cap, request, list(rolls), system)
    turn = await loop.run()
    if on_delta is not None:
        for piece in narration_pieces(turn.narration):
            await on_delta(piece)
    return turn


def master_request(
    scene: Scene,
    action: str,
    context: str,
    cap: int,
    base: ChatRequest | None = None,
    system: str | None = None,
) -> ChatRequest:
    """The loop's first request: the fixed part (brief, rule sheet, tool schemas) above the
    breakpoint, then the perceived scene and the action; ``base`` gives sampling settings,
    ``system`` replaces the brief and rule sheet."""
    words = brief(scene.lex.language)
    messages = [
        Message("system", system if system is not None else words.fixed(cap)),
        Message("user", words.turn(scene.name, scene.character_id, context, action)),
    ]
    return replace(
        base or ChatRequest(messages=[]),
        messages=messages,
        breakpoint=1,
        tools=offered_schemas(scene, action),
        tool_choice="auto",
        cache_tail=True,
        structured_output=False,
        player_text=action,
    )


@dataclass
class _Reply:
    text: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


class _Loop:
    def __init__(
        self,
        scene: Scene,
        action: str,
        provider: Provider,
        context: str,
        cap: int,
        request: ChatRequest | None,
        rolls: list[Roll],
        system: str | None = None,
    ) -> None:
        self.scene, self.action, self.provider, self.cap = scene, action, provider, cap
        self.words: Brief = brief(scene.lex.language)
        self.request = master_request(scene, action, context, cap, request, system)
        self.messages = list(self.request.messages)
        self.turn = MasterTurn(narration="")
        self.prior = rolls  # made before the loop: a roll's consequence
        self.applied: list[tuple[ToolCall, ToolOutcome]] = []
        self.executed = 0
        self.closed = False
        self.forcing = current().capabilities.forcing()

    # --- the loop -------------------------------------------------------------------------------

    async def run(self) -> MasterTurn:
        forced = False
        while not self.closed:
            if self.turn.model_calls >= self.cap + MAX_ATTEMPTS + 2:
                break  # a master that never closes still ends
            reply = await self.ask(forced)
            attempts = self.turn.attempts
            if not reply.calls and self.text_closes(reply, forced):
                self.take_text(reply.text)
            else:
                self.answer(reply.calls, forced)
            if self.closed:
                break
            if self.turn.attempts > attempts:  # a rejected or invalid log_event
                if self.turn.attempts >= MAX_ATTEMPTS:
                    break
                forced = self.last_attempt()
                continue  # asked again, with every tool until the last attempt
            if forced:
                break  # the forced call brought no log_event
            if reply.calls and self.executed < self.cap:
                continue
            nudge = "nudge_close" if not reply.calls else "nudge_cap"
            self.messages.append(Message("user", self.words.t(nudge, cap=self.cap)))
            forced = True
        if not self.closed:
            self.fall_back()
        return self.turn

    def last_attempt(self) -> bool:
        """Whether the next call is restricted to ``log_event``: the last attempt, or the tool
        cap spent (any other tool would be refused anyway)."""
        return self.turn.attempts >= MAX_ATTEMPTS - 1 or self.executed >= self.cap

    async def ask(self, forced: bool) -> _Reply:
        say(THINKING)
        request = replace(self.request, messages=list(self.messages), tool_choice="auto")
        if forced and self.forcing == REQUIRED:  # no name: log_event is the only tool offered
            tools = [t for t in self.request.tools or () if t["name"] == LOG_EVENT]
            request = replace(request, tools=tools, tool_choice="required")
        elif forced and self.forcing != FREE:
            request = replace(request, tool_choice=dict(FORCE_CLOSE))
        reply = _Reply()
        async for chunk in self.provider.stream(request):
            if chunk.tool_started:  # "writing" while log_event's narration streams in
                say(step_of(chunk.tool_started))
            reply.text += chunk.text
            reply.calls.extend(chunk.tool_calls or ())
            reply.usage = chunk.usage or reply.usage
        self.turn.model_calls += 1
        self.turn.usage = self.turn.usage.plus(reply.usage)
        self.messages.append(Message("assistant", reply.text, tool_calls=tuple(reply.calls)))
        return reply

    def answer(self, calls: list[ToolCall], forced: bool) -> None:
        """Run or refuse each call in order; every call gets its result message."""
        for call in calls:
            say(step_of(call.name))
            if self.closed:
                payload = self.refuse(call, "not_run_closed")
            elif call.error:
                payload = self.refuse(call, "not_run_args", error=call.error)
            elif call.name == LOG_EVENT:
                payload = self.close(call)
            elif forced:
                payload = self.refuse(call, "not_run_forced")
            elif self.executed >= self.cap:
                payload = self.refuse(call, "not_run_cap")
            else:
                payload = self.run_tool(call)
            content = json.dumps(payload, ensure_ascii=False)
            self.messages.append(Message("tool", content, tool_call_id=call.id))

    def text_closes(self, reply: _Reply, forced: bool) -> bool:
        """Whether a reply without calls is the narration: asked to close, or from a server
        that cannot be asked to (see the module)."""
        return bool(reply.text.strip()) and (forced or self.forcing == FREE)

    def take_text(self, text: str) -> None:
        """The master's text as a ``log_event`` with no effects; a rejection goes back as the
        user's words, since the wire has no call to answer."""
        say(WRITING)
        call = ToolCall(f"text_{self.turn.model_calls}", LOG_EVENT, {"narration": text})
        payload = self.close(call)
        if not self.closed:
            error = str(payload.get("error") or "") or self.words.t("nudge_close", cap=self.cap)
            self.messages.append(Message("user", error))

    def refuse(self, call: ToolCall, key: str, **values: str) -> dict[str, Any]:
        error = self.words.t(key, **values)
        payload: dict[str, Any] = {"ok": False, "error": error}
        self.report(call, False, error, payload)
        return payload

    def run_tool(self, call: ToolCall) -> dict[str, Any]:
        self.executed += 1
        outcome = execute(call, self.scene)
        self.report(call, outcome.ok, outcome.error, outcome.to_dict())
        self.applied.append((call, outcome))
        if outcome.ok:
            self.absorb(outcome)
        return outcome.to_dict()

    def close(self, call: ToolCall) -> dict[str, Any]:
        """Check the narration first, then let ``log_event`` apply it."""
        self.turn.attempts += 1
        narration = strip_directives(str(call.arguments.get("narration") or "")).strip()
        if not narration:
            return self.refuse(call, "empty")
        claims = call.arguments.get("claims")
        facts = replace(self.facts(), claims=claims if isinstance(claims, dict) else None)
        report = check_closure(narration, facts, self.scene)
        self.turn.closure = Closure(report.ok, list(report.violations))
        if not report.ok:
            reasons = self.words.reasons(report.violations)
            key = "rejected_last" if self.last_attempt() else "rejected"
            return self.refuse(call, key, reasons=reasons)
        outcome = execute(call, self.scene)
        self.report(call, outcome.ok, outcome.error, outcome.to_dict())
        if not (outcome.ok and outcome.closes_turn):
            return outcome.to_dict()
        self.absorb(outcome)
        self.closed = True
        self.turn.narration = narration
        offered = outcome.result.get("suggestions")  # leak-filtered by log_event
        self.turn.suggestions = [x for x in offered or [] if isinstance(x, str)][:MAX_SUGGESTIONS]
        return outcome.to_dict()

    def fall_back(self) -> None:
        """The templated closure built from the applied tools, logged as the turn's event."""
        facts = self.facts()
        narration = fallback_closure(facts, self.scene)
        closing = ToolCall("fallback", LOG_EVENT, {"narration": narration})
        outcome = execute(closing, self.scene)
        if outcome.ok:
            self.absorb(outcome)
        if self.turn.attempts == 0 or self.turn.closure.ok:
            self.turn.closure = Closure(False, list(self.turn.closure.violations))
        self.turn.narration = narration
        self.turn.fallback = True
        self.turn.suggestions = offline_suggestions(self.scene, self.action, self.rng())

    # --- bookkeeping ----------------------------------------------------------------------------

    def facts(self) -> TurnFacts:
        gm = self.scene.gm
        me = self.scene.character_id
        return TurnFacts(
            tool_calls=list(self.applied),
            rolls=[*self.prior, *self.turn.rolls],
            character_id=me,
            player_character_ids=[c.id for c in gm.characters if c.id != me],
            language=self.scene.lex.language,
        )

    def report(self, call: ToolCall, ok: bool, error: str, result: dict[str, Any]) -> None:
        self.turn.tool_calls.append(ToolReport(call.name, dict(call.arguments), ok, error, result))

    def absorb(self, outcome: ToolOutcome) -> None:
        self.turn.events.extend(outcome.events)
        self.turn.rolls.extend(outcome.rolls)
        self.turn.changes.update(outcome.changes)
        if outcome.pending is not None:
            self.turn.pending = outcome.pending
            self.scene.state.pending[self.scene.character_id] = outcome.pending
            self.turn.changes["pending"] = outcome.pending.model_dump(
                mode="json", exclude_none=True
            )

    def rng(self) -> random.Random:
        """Seeded by the session's dice seed and the turn, so a replay suggests the same."""
        state = self.scene.state
        return random.Random(f"{state.dice.seed}:{state.next_event}:{self.action}")
