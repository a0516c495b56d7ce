"""The requests a world's custom UI makes through its host page (seed 004 "useYumina()").

Under ``/play/<session>/ui/``: only the session's own player gets an answer (anybody else a 404,
as for every session URL), and unsafe methods carry the CSRF token, so a page elsewhere (or the
sandboxed frame itself, which has no cookie) cannot call them. Refusals are JSON
``{"error", "field"}`` with status 400, so the host hands them to the frame's console.

* ``info/`` (GET): what the snapshot adds to the live state: the entries the UI may read
  (play.ui_api), the world's own assets by ``@asset:`` reference, the model that answers (and
  ``preferredProvider``), the UI's storage in both scopes, and ``currentUser``.
* ``complete/`` (POST, JSON): ``ai.complete`` (play.ui_ai).
* ``storage/`` (POST, JSON ``{scope, key, value}``; ``value`` is JSON text, null removes).
* ``sessions/`` (POST, JSON ``{action, worldId?, sessionId?}``): listSessions, createSession,
  deleteSession, restartChat, getBranchContext (play.ui_sessions).
* ``models/`` (POST, JSON ``{action, model?, provider?}``): getModels, setModel, pinModel,
  unpinModel, setPreferredProvider (play.ui_models).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, JsonResponse
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from play import providers, quota, ui_ai, ui_storage
from play import ui_models as ui_models_module
from play import ui_sessions as ui_sessions_module
from play.errors import PlayError
from play.models import Session
from play.sessions import world_of
from play.ui_api import visible_entries
from play.views.common import session_for
from studio.models import Asset

MAX_BODY = 64 * 1024


def _refused(exc: PlayError) -> JsonResponse:
    return JsonResponse({"error": exc.message, "field": exc.field}, status=exc.status)


def _body(request: HttpRequest) -> Any:
    if len(request.body) > MAX_BODY:
        raise PlayError(f"the request is larger than {MAX_BODY} bytes", field="$")
    try:
        return json.loads(request.body or b"null")
    except ValueError:
        raise PlayError("the request is not JSON", field="$") from None


@require_GET
@never_cache
def ui_info(request: HttpRequest, session_id: uuid.UUID) -> JsonResponse:
    session = session_for(request, session_id)
    world = world_of(session)
    kind, model = providers.answering_model(session, world)
    return JsonResponse(
        {
            "entries": visible_entries(session, world),
            "assets": world_assets(session),
            "storage": ui_storage.read_storage(session),
            "model": {"provider": kind, "name": model},
            "language": world.language or get_language() or "en",
            "preferredProvider": ui_models_module.preferred_provider(session),
            "currentUser": current_user(request),
        }
    )


def current_user(request: HttpRequest) -> dict[str, Any] | None:
    """Seed 004's ``currentUser``: the signed-in player, null for a guest."""
    user = request.user
    if not user.is_authenticated:
        return None
    return {"id": str(user.pk), "name": user.get_username(), "image": None}


def world_assets(session: Session) -> dict[str, str]:
    """``@asset:<uid>`` → URL, for the session's own world only (``resolveAssetUrl``)."""
    if session.world_id is None:
        return {}
    rows = Asset.objects.filter(world_id=session.world_id)
    return {f"@asset:{asset.uid}": asset.file.url for asset in rows}


@require_POST
async def ui_complete(request: HttpRequest, session_id: uuid.UUID) -> JsonResponse:
    session, subjects = await sync_to_async(_session_and_subjects)(request, session_id)
    try:
        ask = ui_ai.parse_ask(_body(request))
        return JsonResponse(await ui_ai.complete(session, subjects, ask))
    except PlayError as exc:
        return _refused(exc)


def _session_and_subjects(request: HttpRequest, session_id: uuid.UUID) -> tuple[Session, Any]:
    return session_for(request, session_id), quota.request_subjects(request)


@require_POST
def ui_storage_write(request: HttpRequest, session_id: uuid.UUID) -> JsonResponse:
    session = session_for(request, session_id)
    try:
        body = _body(request)
        if not isinstance(body, dict):
            raise PlayError("the request must be a JSON object", field="$")
        value = body.get("value")
        if value is not None and not isinstance(value, str):
            raise PlayError("value: JSON text, or null to remove", field="value")
        scope = str(body.get("scope") or "world")
        address = quota.request_address(request)  # guests share a bound per address
        data = ui_storage.write_storage(session, scope, body.get("key"), value, address=address)
    except PlayError as exc:
        return _refused(exc)
    return JsonResponse({"scope": scope, "data": data})


def _object(request: HttpRequest) -> dict[str, Any]:
    body = _body(request)
    if not isinstance(body, dict):
        raise PlayError("the request must be a JSON object", field="$")
    return body


@require_POST
def ui_sessions(request: HttpRequest, session_id: uuid.UUID) -> JsonResponse:
    session = session_for(request, session_id)
    try:
        return JsonResponse(ui_sessions_module.answer(session, _object(request)))
    except PlayError as exc:
        return _refused(exc)


@require_POST
def ui_models(request: HttpRequest, session_id: uuid.UUID) -> JsonResponse:
    session = session_for(request, session_id)
    try:
        return JsonResponse(ui_models_module.answer(session, _object(request)))
    except PlayError as exc:
        return _refused(exc)
