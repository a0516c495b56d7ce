"""Who answers a session, said honestly (issue 9 "Honest labels"; seed 001 "Modos de ejecución").

"Live" is shown only when a real model will answer: the session's mode calls one (live or
record) and a provider is configured, the player's own or the site's. Otherwise the page says
it is the offline narrator and links to where a player sets a model. A new session's default
mode follows the same question, so nobody starts "live" with no model behind it.

The model named is the one ``play.providers.provider_config`` picks for the next turn (on the
site's key, a world's recommended model only where the site offers it), found without counting
an action against the quota.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _

from engine.world import WorldDefinition
from play.models import PROVIDERS, ProviderSetting, Session
from play.providers import answering_model, recommended_model


def configured_provider(user: Any) -> tuple[str, str]:
    """(provider kind, model) that would answer ``user``: their own setting, else the site's."""
    kind = str(settings.FABULA_PROVIDER or "offline")
    kind = kind if kind in PROVIDERS else "offline"
    model = str(settings.FABULA_MODEL or "")
    if user is not None and getattr(user, "is_authenticated", False):
        own = ProviderSetting.objects.filter(user=user).first()
        if own is not None:
            kind, model = own.provider, own.model or model
    return kind, model


def default_mode(user: Any) -> str:
    """The mode a new session starts in: live when a model is configured, else offline."""
    return "offline" if configured_provider(user)[0] == "offline" else "live"


def narrator(session: Session, world: WorldDefinition) -> dict[str, Any]:
    """What the play page's header says about the narrator, and where to set a model."""
    offline = {
        "live": False,
        "label": _("Offline narrator — no model"),
        "model": "",
        "setModelUrl": reverse("play:provider"),
    }
    if session.mode == "replay":
        return {**offline, "label": _("Replay of a recording — no model"), "setModelUrl": ""}
    if session.mode not in ("live", "record"):
        return offline
    kind, model = answering_model(session, world)
    if kind == "offline":
        return offline
    model = model or kind
    label = _("Live — %(model)s") % {"model": model}
    if session.mode == "record":
        label = _("Live — %(model)s, recording") % {"model": model}
    return {
        "live": True,
        "label": label,
        "model": model,
        "setModelUrl": offline["setModelUrl"],
        "note": _recommendation_note(world, model),
    }


def _recommendation_note(world: WorldDefinition, model: str) -> str:
    """Said when the creator's recommended model is not the one answering (the site's key may
    not offer it, or the player chose another)."""
    recommended = recommended_model(world)
    if not recommended or recommended == model:
        return ""
    return _("The creator recommends %(model)s.") % {"model": recommended}
