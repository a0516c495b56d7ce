"""Sessions: who may open one, starting, branching and deleting (what a player sees: play.payloads).

Everything here is synchronous ORM work; play.turns calls it through database_sync_to_async.
A session plays a frozen WorldVersion, or for a studio playtest a snapshot of the draft taken at
start, so editing a world never changes a running game.
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections import OrderedDict
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Max, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from engine.llm.offline import OfflineProvider
from engine.session import Persona as EnginePersona
from engine.session import SessionState
from engine.turn import PlayerAction, Turn, TurnResult
from engine.world import WorldDefinition, load_world
from play import dice
from play.errors import PlayError, SessionForbidden, SessionNotFound
from play.models import MODES, Message, Persona, Session
from play.players import Player as Player
from play.players import player_for as player_for
from play.ui_storage import forget_session
from studio.models import World, WorldVersion

STALE_ERROR = "The turn was interrupted before it finished. Regenerate to try again."
_WORLD_CACHE_SIZE = 64
_worlds: OrderedDict[str, WorldDefinition] = OrderedDict()


# --- access ----------------------------------------------------------------------------------


def get_session_for_player(player: Player, session_id: Any) -> Session:
    """The session if ``player`` owns it (a guest: its own preview). Fails closed.

    Raises SessionNotFound for an unknown id, SessionForbidden for anybody else's session.
    """
    try:
        pk = uuid.UUID(str(session_id))
    except ValueError:
        raise SessionNotFound("This session does not exist.") from None
    session = with_version_hash(Session.objects.filter(pk=pk)).first()
    if session is None:
        raise SessionNotFound("This session does not exist.")
    if session.owner_id is not None:
        allowed = player.user_id == session.owner_id
    else:
        allowed = bool(player.guest_key) and secrets.compare_digest(
            player.guest_key, session.guest_key
        )
    if not allowed:
        raise SessionForbidden("This session belongs to someone else.")
    return session


def world_of(session: Session) -> WorldDefinition:
    """The session's world, compiled once per content hash.

    A version's definition is megabytes for a large world and every turn asks for it: only its
    hash is read (nothing when the session was loaded with ``with_version_hash``), the
    definition only when this process has not compiled that hash yet.
    """
    if session.world_version_id is None:
        return _cached_world("", session.draft_definition or {})
    if Session.world_version.is_cached(session):
        version = session.world_version
        assert version is not None
        content_hash = version.content_hash
    else:
        found = WorldVersion.objects.filter(pk=session.world_version_id).order_by()
        content_hash = found.values_list("content_hash", flat=True).first() or ""
    world = _worlds.get(content_hash) if content_hash else None
    if world is not None:
        _worlds.move_to_end(content_hash)
        return world
    version = session.world_version
    assert version is not None
    return _cached_world(version.content_hash, version.definition)


def with_version_hash(sessions: QuerySet[Session]) -> QuerySet[Session]:
    """Sessions with their version's hash joined in and its definition left out (world_of)."""
    return sessions.select_related("world_version").defer("world_version__definition")


def _cached_world(content_hash: str, definition: dict[str, Any]) -> WorldDefinition:
    if not content_hash:
        return load_world(definition)
    world = _worlds.get(content_hash)
    if world is None:
        world = load_world(definition)
        _worlds[content_hash] = world
        if len(_worlds) > _WORLD_CACHE_SIZE:
            _worlds.popitem(last=False)
    else:
        _worlds.move_to_end(content_hash)
    return world


def state_of(session: Session) -> SessionState:
    return SessionState.model_validate(session.state or {})


def persona_of(session: Session) -> EnginePersona | None:
    return EnginePersona.from_dict(session.persona_data)


# --- starting --------------------------------------------------------------------------------


def start_session(
    user: Any,
    version: WorldVersion,
    *,
    persona: Persona | None = None,
    mode: str = "live",
    model: str = "",
    guest_key: str = "",
    dice_seed: int | None = None,
    recording: dict[str, Any] | None = None,
    persona_data: dict[str, Any] | None = None,
) -> Session:
    """Start playing a published version; the first message is the world's greeting.

    ``persona_data`` (a replayed demo) plays as the recorded persona instead of ``persona``.
    """
    owner = user if user is not None and user.is_authenticated else None
    if owner is None and not guest_key:
        raise PlayError(gettext("A guest preview needs a browser session."))
    session = Session(
        world=version.world,
        world_version=version,
        owner=owner,
        guest_key="" if owner else guest_key,
        title=version.name,
    )
    return _start(session, persona, mode, model, dice_seed, recording, persona_data)


def start_playtest(user: Any, world: World, definition: dict[str, Any], *, mode: str) -> Session:
    """Playtest a studio draft: ``definition`` is the draft's exported JSON, frozen here."""
    load_world(definition)  # an invalid draft raises WorldValidationError before any row
    session = Session(
        world=world, draft_definition=definition, owner=user, title=f"Playtest: {world.name}"
    )
    return _start(session, None, mode, "", None, None, None)


def _start(
    session: Session,
    persona: Persona | None,
    mode: str,
    model: str,
    dice_seed: int | None,
    recording: dict[str, Any] | None,
    persona_data: dict[str, Any] | None,
) -> Session:
    if mode not in MODES:
        raise PlayError(gettext("Unknown mode '%(mode)s'.") % {"mode": mode}, field="mode")
    if persona is None and session.owner is not None:
        persona = Persona.objects.filter(user=session.owner, is_active=True).first()
    if persona is not None and persona.user_id != session.owner_id:
        raise PlayError(gettext("This persona is not yours."), field="persona_id")
    world = world_of(session)
    session.persona = persona
    session.persona_data = persona.to_engine() if persona else {}
    if persona_data is not None:
        session.persona, session.persona_data = None, dict(persona_data)
    session.mode = mode
    session.model = model
    session.dice_seed = secrets.randbits(48) if dice_seed is None else dice_seed
    session.recording = recording or {}
    now = _start_time(session)
    if session.mode == "record":
        start = {"now": now.isoformat(), "dice": dice.turn_seed(session.dice_seed, dice.START)}
        session.recording = {**session.recording, "turns": {"start": start}}
    openings = opening_turns(session, world, now)
    session.state = openings[0][1] if openings else _no_greeting_state(session, world, now)
    with transaction.atomic():
        session.save()
        if openings:
            swipes = [_greeting_swipe(text, raw, state) for text, state, raw in openings]
            Message.objects.create(
                session=session,
                position=0,
                role="assistant",
                content=openings[0][0],
                raw=openings[0][2],
                state=openings[0][1],
                swipes=swipes,
                is_greeting=True,
            )
    return session


def _start_time(session: Session) -> datetime:
    """Now, or in a replayed recording the time the recorded session started."""
    pinned = ((session.recording or {}).get("turns") or {}).get("start") or {}
    if session.mode == "replay" and isinstance(pinned.get("now"), str):
        return datetime.fromisoformat(pinned["now"])
    return timezone.now()


def opening_turns(
    session: Session, world: WorldDefinition, now: datetime
) -> list[tuple[str, dict[str, Any], str]]:
    """Each enabled greeting opened by the engine: (clean text, state after it, raw text)."""
    greetings = sorted(
        (e for e in world.entries if e.role == "greeting" and e.enabled),
        key=lambda e: e.position,
    )
    out = []
    for entry in greetings:
        result = _run_start(session, world, now, entry.id)
        out.append((result.text, result.state.model_dump(mode="json"), result.raw))
    return out


def _no_greeting_state(session: Session, world: WorldDefinition, now: datetime) -> dict[str, Any]:
    return _run_start(session, world, now, None).state.model_dump(mode="json")


def _run_start(
    session: Session, world: WorldDefinition, now: datetime, entry_id: str | None
) -> TurnResult:
    """Run the engine's ``start`` kind: it needs no provider and never waits on I/O."""
    seed = dice.start_seed(session.mode, session.dice_seed, session.recording)
    turn = Turn(
        world,
        SessionState.initial(world),
        [],
        PlayerAction("start", action_id=entry_id),
        OfflineProvider(world.language or "en"),
        persona=persona_of(session),
        clock=lambda: now,
        rng=random.Random(f"{seed}:start:{entry_id}"),
        seed=seed,
    )
    coroutine = turn.run()
    try:
        while coroutine.send(None) is None:
            pass
    except StopIteration as done:
        result: TurnResult = done.value
        return result
    coroutine.close()
    raise RuntimeError("the engine's start turn waited on I/O")


def _greeting_swipe(text: str, raw: str, state: dict[str, Any]) -> dict[str, Any]:
    return {"content": text, "raw": raw, "state": state, "changes": [], "status": "complete"}


def branch_from_message(session: Session, message_id: int) -> Session:
    """A new session with this session's messages up to ``message_id`` and its state there."""
    message = get_message(session, message_id)
    if message.status == "streaming":
        raise PlayError(gettext("Wait for this message to finish before branching from it."))
    with transaction.atomic():
        branch = Session.objects.get(pk=session.pk)
        branch.pk = uuid.uuid4()
        branch.title = f"{session.title} (branch)"[:200]
        branch.dice_seed = dice.fresh_seed()  # its own secret: the copied fence would replay
        branch.state = message.state or session.state
        branch.branched_from = message
        branch.save(force_insert=True)
        copies = []
        for m in session.messages.filter(position__lte=message.position):
            m.pk = None
            m.session = branch
            copies.append(m)
        Message.objects.bulk_create(copies)
    return branch


def delete_session(session: Session) -> None:
    with transaction.atomic():
        forget_session(session.pk)  # its custom UI's session storage goes with it
        session.delete()


def sessions_of(user: Any, world_id: int | None = None) -> QuerySet[Session]:
    sessions = Session.objects.filter(owner=user).select_related("world_version", "world")
    if world_id is not None:
        sessions = sessions.filter(world_id=world_id)
    return sessions


def get_message(session: Session, message_id: int) -> Message:
    message = session.messages.filter(pk=message_id).first()
    if message is None:
        raise PlayError(gettext("This message does not exist in the session."), field="message_id")
    return message


def next_position(session: Session) -> int:
    last = session.messages.aggregate(n=Max("position"))["n"]
    return 0 if last is None else last + 1


def fail_stale_messages(session: Session) -> list[Message]:
    """Mark ``streaming`` messages failed; call only when no process holds the session's lock."""
    stale = list(session.messages.filter(status="streaming"))
    for message in stale:
        message.status = "failed"
        message.error = STALE_ERROR
        if message.swipes and message.active_swipe < len(message.swipes):
            swipe = message.swipes[message.active_swipe]
            swipe.update(status="failed", error=STALE_ERROR)
        message.save(update_fields=["status", "error", "swipes"])
    return stale
