"""Model choice for a world's custom UI (seed 004 "模型选择"; issue 15).

The models a player may pick are the ones the site lets a session use on its key
(play.providers.site_models: FABULA_MODEL and FABULA_SITE_MODELS, provider ``official``) and the
model of the player's own saved provider (``private``); anything else is refused by name, so a
world's UI cannot make anybody pay for a model of its choosing. Guest previews are refused
(play.ui_sessions.require_session_apis).

* ``setModel(id)`` sets the session's model override (``Session.model``). A model of the other
  provider also switches the session to that provider; a model both offer keeps the current one.
* ``setPreferredProvider("official" | "private")`` sets ``Session.provider_preference``:
  play.providers then uses the site's key, or the player's own provider (refused with
  ``{ok: false, error}`` when there is none). A model override the new provider does not offer
  is dropped, so the provider's own default answers.
* ``preferredProvider`` in the snapshot says which one answers now: ``private`` when the
  player's own provider does, else ``official``.
* ``contextLength`` is the world's context budget (``settings.maxContext``): Fabula knows no
  model's own window.
* Pins are per user (``ModelPins``), at most MAX_PINS; ``recentlyUsed`` is the session's model
  and then the models of the player's latest replies, newest first, at most MAX_RECENT.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from play import providers, sessions
from play.errors import PlayError
from play.models import Message, ModelPins, ProviderSetting, Session
from play.ui_sessions import require_session_apis

OFFICIAL = "official"
PRIVATE = "private"
MAX_PINS = 50
MAX_RECENT = 10
MAX_MODEL_ID = 200


def _owner(session: Session) -> int:
    assert session.owner_id is not None  # require_session_apis refused a guest before
    return session.owner_id


def _own(session: Session) -> ProviderSetting | None:
    """The player's own provider, whatever this session prefers."""
    return ProviderSetting.objects.filter(user_id=_owner(session)).first()


def _offered(session: Session) -> list[tuple[str, str]]:
    """(model, provider) pairs the player may pick, the site's first."""
    out = [(model, OFFICIAL) for model in sorted(providers.site_models()) if model]
    own = _own(session)
    if own is not None and own.model:
        out.append((own.model, PRIVATE))
    return out


def preferred_provider(session: Session) -> str:
    if session.owner_id is None or session.provider_preference == OFFICIAL:
        return OFFICIAL
    return PRIVATE if _own(session) is not None else OFFICIAL


def model_state(session: Session) -> dict[str, Any]:
    """What the snapshot says of the session's model after a change."""
    kind, name = providers.answering_model(session, sessions.world_of(session))
    return {
        "selectedModel": name,
        "providerKind": kind,
        "preferredProvider": preferred_provider(session),
    }


def _model_id(value: Any) -> str:
    if not isinstance(value, str) or not 0 < len(value.strip()) <= MAX_MODEL_ID:
        raise PlayError(gettext("A model id is 1 to 200 characters."), field="model")
    return value.strip()


def _refused(model: str) -> PlayError:
    message = gettext("The model '%(model)s' is not one you may use here.")
    return PlayError(message % {"model": model[:MAX_MODEL_ID]}, field="model")


def get_models(session: Session) -> dict[str, Any]:
    """``getModels()``: ``{models: [{id, name, provider, contextLength}], pinnedModels,
    recentlyUsed}``."""
    require_session_apis(session)
    context = sessions.world_of(session).settings.max_context
    models = [
        {"id": model, "name": model, "provider": provider, "contextLength": context}
        for model, provider in _offered(session)
    ]
    return {"models": models, "pinnedModels": pins(session), "recentlyUsed": recent(session)}


def set_model(session: Session, value: Any) -> dict[str, Any]:
    """``setModel(id)``: the session's model override, one the player may use."""
    require_session_apis(session)
    model = _model_id(value)
    kinds = {provider for offered, provider in _offered(session) if offered == model}
    if not kinds:
        raise _refused(model)
    current = preferred_provider(session)
    session.provider_preference = current if current in kinds else kinds.pop()
    session.model = model
    session.save(update_fields=["model", "provider_preference", "updated_at"])
    return model_state(session)


def set_preferred_provider(session: Session, value: Any) -> dict[str, Any]:
    """``setPreferredProvider(p)``: ``{ok, provider}`` or ``{ok: false, error}``."""
    require_session_apis(session)
    if value not in (OFFICIAL, PRIVATE):
        raise PlayError(gettext("The provider is 'official' or 'private'."), field="provider")
    if value == PRIVATE and _own(session) is None:
        error = gettext("You have no model settings of your own; add them under “My model”.")
        return {"ok": False, "error": error}
    if session.model and (session.model, value) not in _offered(session):
        session.model = ""
    session.provider_preference = str(value)
    session.save(update_fields=["model", "provider_preference", "updated_at"])
    return {"ok": True, "provider": value, **model_state(session)}


def pins(session: Session) -> list[str]:
    row = ModelPins.objects.filter(user_id=_owner(session)).first()
    return [str(m) for m in row.pinned] if row is not None else []


def pin_model(session: Session, value: Any, pinned: bool) -> list[str]:
    """``pinModel`` / ``unpinModel``: the user's pins afterwards. Only a model the player may
    use can be pinned; any can be unpinned."""
    require_session_apis(session)
    model = _model_id(value)
    if pinned and model not in {offered for offered, _kind in _offered(session)}:
        raise _refused(model)
    row, _created = ModelPins.objects.get_or_create(user_id=_owner(session))
    kept = [m for m in row.pinned if m != model]
    if pinned:
        if len(kept) >= MAX_PINS:
            message = gettext("At most %(n)s models can be pinned.") % {"n": MAX_PINS}
            raise PlayError(message, field="model")
        kept.append(model)
    row.pinned = kept
    row.save()
    return kept


def recent(session: Session) -> list[str]:
    """The session's model, then those of the player's latest replies, newest first."""
    out = [session.model] if session.model else []
    latest = (
        Message.objects.filter(session__owner_id=_owner(session), role="assistant")
        .exclude(model__in=["", "offline"])
        .order_by("-created_at")
        .values_list("model", flat=True)[:200]
    )
    for model in latest:
        if model not in out:
            out.append(model)
    return out[:MAX_RECENT]


def answer(session: Session, body: dict[str, Any]) -> Any:
    """One ``POST ui/models/`` request: ``{"action", "model"?, "provider"?}``."""
    action = body.get("action")
    if action == "list":
        return get_models(session)
    if action == "set":
        return set_model(session, body.get("model"))
    if action in ("pin", "unpin"):
        return {"pinnedModels": pin_model(session, body.get("model"), action == "pin")}
    if action == "provider":
        return set_preferred_provider(session, body.get("provider"))
    raise PlayError(gettext("Unknown model action."), field="action")
