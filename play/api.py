"""The play JSON API: sessions, messages, personas, the user's provider, demo recordings.

Operations are thin: an access check first, one service call, a response. Play errors map to
JSON in ``config/api.py``. Another player's session answers 404, like one that does not exist.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from django.http import Http404, HttpRequest
from ninja import Body, Router, Schema, Status
from ninja.errors import HttpError
from ninja.utils import check_csrf
from pydantic import Field

from play import history, payloads, personas, providers, recordings, sessions
from play.errors import SessionForbidden, SessionNotFound
from play.frames import HISTORY_PAGE, MAX_HISTORY_PAGE
from play.models import Session
from play.narrator import default_mode
from studio.services import export_world_json, get_version_for_user, get_world_for_user

router = Router(tags=["play"])

Mode = Literal["live", "offline", "record", "replay"]


class SessionIn(Schema):
    version_id: int
    persona_id: int | None = None
    mode: Mode | None = None  # None: live when a model is configured, else offline
    model: str = ""


class GuestSessionIn(Schema):
    version_id: int
    mode: Literal["live", "offline"] | None = None


class PlaytestIn(Schema):
    world_id: int
    mode: Literal["live", "offline", "record"] | None = None


class PersonaIn(Schema):
    name: str
    appearance: str = ""
    personality: str = ""
    backstory: str = ""
    is_active: bool = False


class PersonaPatch(Schema):
    name: str | None = None
    appearance: str | None = None
    personality: str | None = None
    backstory: str | None = None


class ProviderIn(Schema):
    provider: Literal["openai", "anthropic", "offline"]
    base_url: str = ""
    model: str = ""
    api_key: str | None = None  # None keeps the stored key; "" removes it


def _check_csrf(request: HttpRequest) -> None:
    """Operations open to guests (auth=None) skip ninja's CSRF check, yet act on the browser's
    session cookie like any form post: another site must not start sessions in it."""
    if check_csrf(request) is not None:
        raise HttpError(403, "CSRF check Failed")


def _player(request: HttpRequest) -> sessions.Player:
    return sessions.player_for(request.user, request.session.session_key)


def _session(request: HttpRequest, session_id: uuid.UUID) -> Session:
    try:
        return sessions.get_session_for_player(_player(request), session_id)
    except (SessionNotFound, SessionForbidden):
        raise Http404("session not found") from None


def _session_out(session: Session) -> dict[str, Any]:
    return payloads.session_dict(session) | {"url": f"/play/{session.pk}/"}


# --- sessions --------------------------------------------------------------------------------


@router.get("/play/sessions", response=list[dict[str, Any]])
def list_sessions(request: HttpRequest, world_id: int | None = None) -> list[dict[str, Any]]:
    return [_session_out(s) for s in sessions.sessions_of(request.user, world_id)]


@router.post("/play/sessions", response={201: dict[str, Any]})
def create_session(request: HttpRequest, data: SessionIn) -> Any:
    version = get_version_for_user(request.user, data.version_id)
    persona = None
    if data.persona_id is not None:
        persona = personas.get_persona_for_user(request.user, data.persona_id)
    session = sessions.start_session(
        request.user,
        version,
        persona=persona,
        mode=data.mode or default_mode(request.user),
        model=data.model,
    )
    return Status(201, _session_out(session))


@router.post("/play/guest-sessions", auth=None, response={201: dict[str, Any]})
def create_guest_session(request: HttpRequest, data: GuestSessionIn) -> Any:
    """A guest preview of a published world, reachable only from this browser session."""
    _check_csrf(request)
    version = get_version_for_user(request.user, data.version_id)
    if not request.session.session_key:
        request.session.save()
    session = sessions.start_session(
        request.user,
        version,
        mode=data.mode or default_mode(None),
        guest_key=request.session.session_key or "",
    )
    return Status(201, _session_out(session))


@router.post("/play/playtests", response={201: dict[str, Any]})
def create_playtest(request: HttpRequest, data: PlaytestIn) -> Any:
    world = get_world_for_user(request.user, data.world_id, write=True)
    mode = data.mode or default_mode(request.user)
    session = sessions.start_playtest(request.user, world, export_world_json(world), mode=mode)
    return Status(201, _session_out(session))


@router.get("/play/guest-sessions/{session_id}", auth=None, response=dict[str, Any])
def get_guest_session(request: HttpRequest, session_id: uuid.UUID) -> dict[str, Any]:
    return _session_out(_session(request, session_id))


@router.get("/play/sessions/{session_id}", response=dict[str, Any])
def get_session(request: HttpRequest, session_id: uuid.UUID) -> dict[str, Any]:
    return _session_out(_session(request, session_id))


@router.delete("/play/sessions/{session_id}", response={204: None})
def delete_session(request: HttpRequest, session_id: uuid.UUID) -> Any:
    sessions.delete_session(_session(request, session_id))
    return Status(204, None)


@router.get("/play/sessions/{session_id}/messages", response=list[dict[str, Any]])
def list_messages(
    request: HttpRequest,
    session_id: uuid.UUID,
    before: int | None = None,
    limit: Annotated[int, Field(ge=1, le=MAX_HISTORY_PAGE)] = HISTORY_PAGE,
) -> list[dict[str, Any]]:
    """The newest ``limit`` messages, oldest first; ``before`` (a message id) pages back."""
    session = _session(request, session_id)
    page: list[dict[str, Any]] = history.page_frame(session, before, limit)["messages"]
    return page


# --- recordings ------------------------------------------------------------------------------


@router.get("/play/sessions/{session_id}/recording", response=dict[str, Any])
def export_recording(request: HttpRequest, session_id: uuid.UUID) -> dict[str, Any]:
    return recordings.export_recording(_session(request, session_id), request.user)


@router.post("/play/recordings", response={201: dict[str, Any]})
def import_recording(request: HttpRequest, data: Body[dict[str, Any]]) -> Any:
    return Status(201, _session_out(recordings.import_recording(request.user, data)))


# --- personas --------------------------------------------------------------------------------


@router.get("/play/personas", response=list[dict[str, Any]])
def list_personas(request: HttpRequest) -> list[dict[str, Any]]:
    return [personas.persona_dict(p) for p in personas.personas_of(request.user)]


@router.post("/play/personas", response={201: dict[str, Any]})
def create_persona(request: HttpRequest, data: PersonaIn) -> Any:
    persona = personas.create_persona(request.user, data.dict(), activate=data.is_active)
    return Status(201, personas.persona_dict(persona))


@router.patch("/play/personas/{persona_id}", response=dict[str, Any])
def update_persona(request: HttpRequest, persona_id: int, data: PersonaPatch) -> dict[str, Any]:
    persona = personas.get_persona_for_user(request.user, persona_id)
    return personas.persona_dict(personas.update_persona(persona, data.dict()))


@router.post("/play/personas/{persona_id}/activate", response=dict[str, Any])
def activate_persona(request: HttpRequest, persona_id: int) -> dict[str, Any]:
    persona = personas.get_persona_for_user(request.user, persona_id)
    return personas.persona_dict(personas.activate_persona(persona))


@router.delete("/play/personas/{persona_id}", response={204: None})
def delete_persona(request: HttpRequest, persona_id: int) -> Any:
    personas.delete_persona(personas.get_persona_for_user(request.user, persona_id))
    return Status(204, None)


# --- the user's own provider -----------------------------------------------------------------


@router.get("/play/provider", response=dict[str, Any])
def get_provider(request: HttpRequest) -> dict[str, Any]:
    setting = getattr(request.user, "provider_setting", None)
    return providers.provider_setting_dict(setting)


@router.put("/play/provider", response=dict[str, Any])
def put_provider(request: HttpRequest, data: ProviderIn) -> dict[str, Any]:
    setting = providers.save_provider_setting(
        request.user,
        provider=data.provider,
        base_url=data.base_url,
        model=data.model,
        api_key=data.api_key,
    )
    return providers.provider_setting_dict(setting)


@router.delete("/play/provider", response={204: None})
def delete_provider(request: HttpRequest) -> Any:
    providers.clear_provider_setting(request.user)
    return Status(204, None)
