"""The reply rows of a turn: prepare them before streaming, commit or fail them after.

``prepare_turn`` validates the action and, in one transaction, writes the player's message and a
``streaming`` placeholder for the reply (what every socket shows at once, and what a restarted
server recognises as an interrupted turn). ``commit_turn`` saves the reply, the new state, the
usage and (record mode) the recording in ONE transaction; ``fail_turn`` marks the reply failed
and leaves the session state untouched. The caller (play.turns) holds the session's lock; the
database claim taken at prepare (play.recovery) fences both: a turn whose session was taken over
meanwhile raises TurnFenced instead of writing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, cast

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from engine.session import Message as EngineMessage
from engine.session import Persona as EnginePersona
from engine.session import SessionState
from engine.turn import ActionKind, PlayerAction, TurnResult
from engine.world import WorldDefinition
from play import demos, dice, tables
from play.errors import PlayError
from play.gm import (
    character_of,
    delivered,
    engine_trace,
    settle_quota,
    shows_engine_trace,
    speech,
    usage_source,
)
from play.gm_quota import charge_character
from play.models import Message, Session
from play.payloads import message_dict
from play.prepared import Prepared, PreparedSave
from play.providers import ProviderConfig, provider_config, release_action
from play.quota import quota_subjects
from play.recovery import CLAIM_FIELDS, claim_session, end_claim, owner_of
from play.sessions import (
    Player,
    persona_of,
    state_of,
    with_version_hash,
    world_of,
)
from play.swipes import mirror_swipe, placeholder_swipe, swipe_of


@dataclass
class TurnPlan:
    """Everything the turn task needs, read in one transaction before streaming starts."""

    session_id: str
    player: Player
    kind: str  # message | regenerate | continue | action
    action: PlayerAction
    world: WorldDefinition
    state: SessionState
    history: list[EngineMessage]
    persona: EnginePersona | None
    config: ProviderConfig
    dice_seed: int  # this turn's seed (play.dice), never the session's secret
    apply_on_stop: bool
    message_id: int | None  # the reply's row; None until an action turns out to generate
    position: int
    swipe_index: int = 0
    base_content: str = ""  # continue: the text the new part is appended to
    base_raw: str = ""
    joiner: str = ""  # continue: " " when the new part needs a space after the old one
    model: str = ""  # what the prompt and the request name ("" offline)
    now: datetime = field(default_factory=timezone.now)
    idle_seconds: float | None = None
    user_message: dict[str, Any] | None = None
    reply: dict[str, Any] | None = None
    owner: str = ""  # the session's claim (play.recovery) and the fence it got
    fence: int = 0
    character_id: str | None = None  # who acts, in a game-master world (play.gm)
    language: str | None = None  # the page's, when a game-master world speaks it (play.gm)
    # At a shared table: the frames for each other seated session, written at commit.
    deliveries: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # The session row as the commit left it, for the after-turn checks (play.turns).
    saved_session: Session | None = None

    @property
    def clock_key(self) -> str:
        return f"{self.position}:{self.kind}"


# --- preparing (sync, one transaction) -------------------------------------------------------


def _history(messages: list[Message]) -> list[EngineMessage]:
    """The chat as the prompt sees it: settled messages that say something."""
    return [
        EngineMessage(m.role, m.content)
        for m in messages
        if m.content and m.status != "streaming" and not m.compacted
    ]


# The turn's reads, compiled once (play.prepared): every turn start and end waits on them.
_LOCKED_SESSION = Prepared(
    lambda q: with_version_hash(Session.objects.select_for_update(of=("self",))).filter(pk=q.pk)[:1]
)
_LIVE_MESSAGES = Prepared(
    lambda q: Message.objects.filter(session_id=q.session_id, compacted=False).order_by("position")
)
_MESSAGE = Prepared(lambda q: Message.objects.filter(pk=q.pk))
_SAVE_MESSAGE = PreparedSave(Message)
_SAVE_SESSION = PreparedSave(Session, ("state", "recording", "updated_at", *CLAIM_FIELDS))


def prepare_turn(
    session_id: str,
    player: Player,
    kind: str,
    text: str = "",
    action_id: str | None = None,
    target_id: int | None = None,
    *,
    owner: str = "",
) -> TurnPlan:
    """Validate the action and write what the player sees at once; the caller holds the lock.

    Claims the session for ``owner`` (SessionBusy while another live turn holds it).
    """
    owner = owner or owner_of("")
    with transaction.atomic():
        session = _LOCKED_SESSION.first(pk=session_id)
        if session is None:
            raise PlayError(gettext("This session no longer exists."))
        tables.ensure_may_act(session)  # a player who left the table reads, acts no more
        fence = claim_session(session, owner)
        # The compacted messages live on as the story summary: a long session reads only the
        # recent ones (the last is never compacted, so positions still count from it).
        messages = _LIVE_MESSAGES(session_id=session.pk)
        world = world_of(session)
        now = timezone.now()
        plan = _plan_for(session, messages, world, player, kind, text, action_id, target_id, now)
        plan.owner, plan.fence = owner, fence
        plan.dice_seed = dice.turn_seed(session.dice_seed, fence)  # never a rewound position
        if kind in ("message", "action") and text.strip():
            user = Message.objects.create(
                session=session,
                position=plan.position,
                role="user",
                content=text,
                raw=text,
                state=session.state,
            )
            plan.user_message = message_dict(user)
            plan.position = user.position + 1
        if kind != "action" or action_id is None:
            # An action may end without a reply; its row is written at its first delta.
            _write_placeholder(session, plan, messages, target_id)
        _pin_clock(session, plan)
    return plan


def _plan_for(
    session: Session,
    messages: list[Message],
    world: WorldDefinition,
    player: Player,
    kind: str,
    text: str,
    action_id: str | None,
    target_id: int | None,
    now: datetime,
) -> TurnPlan:
    last = messages[-1] if messages else None
    state = state_of(session)
    history = _history(messages)
    engine_kind = kind
    if kind == "regenerate":
        if last is None:
            raise PlayError(gettext("There is nothing to regenerate yet."))
        if target_id is not None and last.pk != target_id:
            raise PlayError(
                gettext("Only the last message can be regenerated."), field="message_id"
            )
        if last.role == "assistant":
            if last.is_greeting:
                raise PlayError(
                    gettext("The greeting cannot be regenerated; switch greetings instead.")
                )
            earlier = [m for m in messages if m.position < last.position]
            history = _history(earlier)
            before = next((m.state for m in reversed(earlier) if m.state), None)
            state = SessionState.model_validate(before) if before else state
        if not any(m.role == "user" for m in history):
            raise PlayError(gettext("There is no player message to answer."))
    elif kind == "continue":
        if last is None or last.role != "assistant" or not last.content:
            raise PlayError(gettext("Only a reply of the narrator can be continued."))
        if last.status == "streaming":
            raise PlayError(gettext("This message is still being written."))
    last_user = next((m for m in reversed(messages) if m.role == "user"), None)
    idle = (now - last_user.created_at).total_seconds() if last_user else None
    config = provider_config(session, world, quota_subjects(player), now)
    character = character_of(session, world)
    config = charge_character(config, world, player, character, now)
    plan = TurnPlan(
        session_id=str(session.pk),
        player=player,
        kind=kind,
        action=PlayerAction(cast(ActionKind, engine_kind), text=text, action_id=action_id),
        world=world,
        state=state,
        history=history,
        persona=persona_of(session),
        config=config,
        dice_seed=session.dice_seed,
        apply_on_stop=session.apply_on_stop or _world_applies_on_stop(world),
        message_id=None,
        position=messages[-1].position + 1 if messages else 0,
        now=now,
        idle_seconds=idle,
        model=config.model if config.kind != "offline" else "",
        character_id=character,
    )
    return plan


def _world_applies_on_stop(world: WorldDefinition) -> bool:
    """A world may ask for stopped replies to keep their directives (``settings.applyOnStop``)."""
    return bool((world.settings.model_extra or {}).get("applyOnStop"))


def _pin_clock(session: Session, plan: TurnPlan) -> None:
    """Record and replay see the same time and idle time, so their prompts are identical."""
    if plan.config.mode != "replay":
        return
    pinned = (session.recording.get("turns") or {}).get(plan.clock_key) or {}
    if isinstance(pinned.get("now"), str):
        plan.now = datetime.fromisoformat(pinned["now"])
        plan.idle_seconds = pinned.get("idle")
        plan.model = str(pinned.get("model") or "")
    seed = dice.pinned_seed(session.recording, plan.clock_key)  # the rolls the recording made
    if seed is not None:
        plan.dice_seed = seed


def _write_placeholder(
    session: Session, plan: TurnPlan, messages: list[Message], target_id: int | None
) -> None:
    last = messages[-1] if messages else None
    input_state = plan.state.model_dump(mode="json")
    if plan.kind == "continue" and last is not None:
        reply = last
        plan.base_content, plan.base_raw = last.content, last.raw
        plan.swipe_index = last.active_swipe
        reply.status = "streaming"
        reply.error = ""
    elif plan.kind == "regenerate" and last is not None and last.role == "assistant":
        reply = last
        swipes = list(reply.swipes) or [swipe_of(reply)]
        if swipes[min(reply.active_swipe, len(swipes) - 1)].get("status") == "failed":
            index = min(reply.active_swipe, len(swipes) - 1)  # retry in place of the failure
            swipes[index] = placeholder_swipe(input_state)
        else:
            swipes.append(placeholder_swipe(input_state))
            index = len(swipes) - 1
        reply.swipes, reply.active_swipe, plan.swipe_index = swipes, index, index
        reply.content = reply.raw = reply.error = ""
        reply.status, reply.state, reply.changes, reply.choices = "streaming", input_state, [], []
        reply.stopped = False
    else:
        reply = Message(
            session=session,
            position=plan.position,
            role="assistant",
            status="streaming",
            state=input_state,
            swipes=[placeholder_swipe(input_state)],
        )
    reply.model = plan.config.model
    reply.save()
    plan.message_id = reply.pk
    plan.position = reply.position
    plan.reply = message_dict(reply)


def add_reply_placeholder(plan: TurnPlan) -> TurnPlan:
    """An action turned out to generate: create its reply row now."""
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=plan.session_id)
        _write_placeholder(session, plan, [], None)
    return plan


# --- committing (sync, one transaction) ------------------------------------------------------


def commit_turn(plan: TurnPlan, result: TurnResult, elapsed_ms: int, recording: Any) -> Any:
    """Save the reply, the new state, the usage and the recording together."""
    state = result.state.model_dump(mode="json")
    changes = [c.to_dict() for c in result.changes]
    with transaction.atomic():
        session = _LOCKED_SESSION.first(pk=plan.session_id)
        if session is None:
            raise Session.DoesNotExist(plan.session_id)
        end_claim(session, plan.owner, plan.fence, save=False)  # TurnFenced: write nothing
        session.state = state
        if recording is not None or plan.config.mode == "replay":
            clock = {"now": plan.now.isoformat(), "idle": plan.idle_seconds, "model": plan.model}
            clock["dice"] = plan.dice_seed  # the rolls this turn made, for a replay (play.dice)
            step = demos.Step(plan.kind, plan.action.text, plan.action.action_id)
            session.recording = demos.after_turn(
                session.recording, recording, plan.clock_key, clock, step
            )
        _SAVE_SESSION(session)
        plan.saved_session = session
        plan.deliveries = tables.share_turn(session, plan.world, result.state, delivered(result))
        settle_quota(plan.config, result)  # an engine move costs no action
        if plan.message_id is None:
            return None
        reply = _MESSAGE.first(pk=plan.message_id)
        if reply is None:
            raise Message.DoesNotExist(plan.message_id)
        usage = result.usage
        if plan.kind == "continue":
            reply.content = plan.base_content + plan.joiner + result.text
            reply.raw = plan.base_raw + result.raw
            reply.changes = list(reply.changes) + changes
            reply.input_tokens += usage.input_tokens
            reply.output_tokens += usage.output_tokens
            reply.cache_read_tokens += usage.cache_read_tokens
            reply.cache_write_tokens += usage.cache_write_tokens
            reply.cost += Decimal(str(usage.cost))
            reply.generation_ms += elapsed_ms
        else:
            reply.content, reply.raw, reply.changes = result.text, result.raw, changes
            reply.input_tokens, reply.output_tokens = usage.input_tokens, usage.output_tokens
            reply.cache_read_tokens = usage.cache_read_tokens
            reply.cache_write_tokens = usage.cache_write_tokens
            reply.cost = Decimal(str(usage.cost))
            reply.generation_ms = elapsed_ms
            reply.source = usage_source(result)
            reply.speech = speech(result)
        reply.status, reply.error, reply.state = "complete", "", state
        reply.choices = list(result.choices)
        trace = engine_trace(result)  # a plain world's turn has none: no owner lookup
        reply.tools = trace if trace and shows_engine_trace(session) else []
        reply.stopped = result.stopped
        reply.model = plan.config.model
        mirror_swipe(reply, plan.swipe_index)
        _SAVE_MESSAGE(reply)
        return message_dict(reply)


def fail_turn(plan: TurnPlan, error: str) -> Any:
    """Mark the reply failed with ``error``; the session state is left as it was."""
    with transaction.atomic():
        session = Session.objects.select_for_update().filter(pk=plan.session_id).first()
        if session is not None:
            end_claim(session, plan.owner, plan.fence)  # TurnFenced: the taker marked it
        release_action(plan.config)  # a failed turn does not count against the quota
        if plan.message_id is None:
            return None
        reply = Message.objects.select_for_update().filter(pk=plan.message_id).first()
        if reply is None:
            return None
        reply.status, reply.error = "failed", error
        if plan.kind == "continue":
            reply.content, reply.raw = plan.base_content, plan.base_raw
        else:
            reply.content = reply.raw = ""
            reply.state = plan.state.model_dump(mode="json")
        mirror_swipe(reply, plan.swipe_index)
        _SAVE_MESSAGE(reply)
        return message_dict(reply)
