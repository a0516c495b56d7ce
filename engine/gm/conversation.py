"""Conversations between a character and an NPC, read from the event log (seed 001 "NPC que
conversan": "charla en curso, reencuentro"; "Un NPC habla con uno cada vez"; decision 18: a
conversation ends when the character leaves, turns to someone else, or the scene ends).

No state of its own: each player action that talked to an NPC carries, in its ``action`` event,
``data["talk"]`` (the NPC), ``said`` (what kinds of thing he said), ``escalation`` (the ladder
after it), ``errand`` (slot D's kind) and ``moves`` (the trust moves the words made). A talk
is *ongoing* when his previous action, the same game day, talked to the same NPC without saying
goodbye, and he has not arrived anywhere since; any earlier talk with it makes this a *reunion*.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.gm.state import GMEvent, GMState

TALK = "talk"  # the action event's key naming the NPC talked to
ESCALATION = ("calm", "insult", "insistence", "threat", "violence")
INSISTENCE, THREAT, VIOLENCE = 2, 3, 4


def _actions(state: GMState, me: str, before: int) -> Iterator[GMEvent]:
    """His ``action`` events older than event ``before``, newest first."""
    for event in reversed(state.events):
        if event.id < before and event.kind == "action" and event.actor == me:
            yield event


def previous_action(state: GMState, me: str, before: int) -> GMEvent | None:
    return next(_actions(state, me, before), None)


def talks_with(state: GMState, me: str, npc_id: str, before: int) -> list[GMEvent]:
    """His earlier actions that talked to ``npc_id``, newest first."""
    return [e for e in _actions(state, me, before) if e.data.get(TALK) == npc_id]


def talked_to(event: GMEvent | None) -> str | None:
    """The NPC an action event talked to, if any."""
    if event is None:
        return None
    npc = event.data.get(TALK)
    return npc if isinstance(npc, str) else None


def said(event: GMEvent) -> list[str]:
    kinds = event.data.get("said")
    return [k for k in kinds if isinstance(k, str)] if isinstance(kinds, list) else []


def ongoing(state: GMState, me: str, npc_id: str, current: int) -> GMEvent | None:
    """His previous action when it continues a talk with ``npc_id`` now, else None."""
    last = previous_action(state, me, current)
    if last is None or talked_to(last) != npc_id or "farewell" in said(last):
        return None
    if last.day != state.clock.day:
        return None
    for event in reversed(state.events):
        if event.id <= last.id:
            break
        if event.actor == me and event.kind == "arrive" and event.id < current:
            return None
    return last


def escalation_before(state: GMState, me: str, npc_id: str, current: int) -> int:
    """Where the escalation ladder stands in the ongoing talk (0 when it is a new one)."""
    last = ongoing(state, me, npc_id, current)
    step = last.data.get("escalation", 0) if last is not None else 0
    return step if isinstance(step, int) else 0


def escalate(before: int, kinds: list[str], *, gift: bool = False, attacked: bool = False) -> int:
    """The ladder insult → insistence → threat → violence after what he said; an apology or a
    gift lowers it one step first (seed 001: "Una disculpa, un regalo … bajan un escalón")."""
    step = before
    if "apology" in kinds or gift:
        step = max(0, step - 1)
    if "insult" in kinds:
        step = 1 if step == 0 else max(step, INSISTENCE)
    if "threat" in kinds:
        step = max(step, THREAT)
    if attacked:
        step = VIOLENCE
    return step


def hinted(state: GMState, me: str, npc_id: str, current: int) -> bool:
    """Whether the NPC already dropped an errand hint in the ongoing talk."""
    last = ongoing(state, me, npc_id, current)
    while last is not None:
        if last.data.get("errand") in ("hint", "offer"):
            return True
        last = ongoing(state, me, npc_id, last.id)
    return False


def chatted_again_today(state: GMState, me: str, npc_id: str, current: int) -> bool:
    """Whether coming back to chat already raised this NPC's trust today (once a day)."""
    return any(
        e.day == state.clock.day and "chat_again" in (e.data.get("moves") or [])
        for e in talks_with(state, me, npc_id, current)
    )


def introduced(state: GMState, me: str, npc_id: str, current: int) -> bool:
    """Whether he told this NPC his name in an earlier talk."""
    return any("introduce" in said(e) for e in talks_with(state, me, npc_id, current))
