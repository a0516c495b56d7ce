"""Which models an evaluation may use, and how each is reached (issue 13 §2: "a list of models
(site key or their own)"; play.providers for the rules).

A model key is ``offline`` (the offline narrator and master, zero cost), ``site:MODEL`` (the
site's key: only the site's model or one of FABULA_SITE_MODELS, so nobody spends the site's money
on a model of their choosing) or ``own:MODEL`` (the user's own provider, any model it serves,
reached only through play.netguard). The automatic player and the judge take the same keys.
Keys are checked when the run starts and again when each action is built, so a provider removed
meanwhile fails the action instead of falling back to someone else's key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from play.models import PROVIDERS, ProviderSetting
from play.services import ProviderConfig, decrypt_secret

OFFLINE = "offline"
MAX_MODEL_NAME = 200


class ChoiceError(ValueError):
    """A model key the user may not use (or that is malformed); the message can be shown."""


@dataclass(frozen=True)
class ModelChoice:
    key: str
    label: str


def site_kind() -> str:
    kind = str(getattr(settings, "FABULA_PROVIDER", "") or OFFLINE)
    return kind if kind in PROVIDERS else OFFLINE


def site_models() -> list[str]:
    """The site key's models, the default first; none when the site runs offline."""
    if site_kind() == OFFLINE:
        return []
    listed = [str(settings.FABULA_MODEL), *(getattr(settings, "FABULA_SITE_MODELS", ()) or ())]
    return [m for m in dict.fromkeys(str(x) for x in listed) if m]


def own_setting(user_id: int) -> ProviderSetting | None:
    setting = ProviderSetting.objects.filter(user_id=user_id).first()
    return setting if setting is not None and setting.provider != OFFLINE else None


def model_choices(user_id: int) -> list[ModelChoice]:
    """What the user may tick: offline, the site's models, their own provider's model."""
    out = [ModelChoice(OFFLINE, gettext("Offline (no model, zero cost)"))]
    site = gettext("%(model)s (site key)")
    out += [ModelChoice(f"site:{m}", site % {"model": m}) for m in site_models()]
    own = own_setting(user_id)
    if own is not None and own.model:
        label = gettext("%(model)s (your %(provider)s key)")
        mine = label % {"model": own.model, "provider": own.provider}
        out.append(ModelChoice(f"own:{own.model}", mine))
    return out


def check_key(user_id: int, key: str) -> str:
    """``key`` normalised; ChoiceError saying why the user may not use it."""
    key = key.strip()
    if key == OFFLINE:
        return key
    source, _, model = key.partition(":")
    model = model.strip()
    if not model or len(model) > MAX_MODEL_NAME or source not in ("site", "own"):
        raise ChoiceError(f"'{key[:60]}' is not a model: use offline, site:MODEL or own:MODEL.")
    if source == "site" and model not in site_models():
        raise ChoiceError(f"The site's key does not offer '{model}'.")
    if source == "own" and own_setting(user_id) is None:
        raise ChoiceError("Set up your own provider first (Account → Model provider).")
    return f"{source}:{model}"


def provider_config(user_id: int, key: str, language: str) -> ProviderConfig:
    """What to build for ``key`` on behalf of ``user_id``; ChoiceError when no longer allowed.
    Holds a decrypted key in memory only; never stored or logged."""
    key = check_key(user_id, key)
    if key == OFFLINE:
        return ProviderConfig(OFFLINE, OFFLINE, "", "", language, OFFLINE, {})
    source, _, model = key.partition(":")
    if source == "site":
        base_url, api_key = str(settings.FABULA_BASE_URL), str(settings.FABULA_API_KEY)
        return ProviderConfig(site_kind(), model, base_url, api_key, language, "live", {})
    own = own_setting(user_id)
    assert own is not None  # check_key
    api_key = decrypt_secret(own.api_key_encrypted)
    return ProviderConfig(
        own.provider, model, own.base_url, api_key, language, "live", {}, guarded=True
    )


def key_label(key: str) -> str:
    """How a key is shown in reports: the model's name, with where it runs."""
    if key == OFFLINE:
        return OFFLINE
    source, _, model = key.partition(":")
    return f"{model} ({'site' if source == 'site' else 'own key'})"


def labels(keys: list[Any]) -> list[str]:
    return [key_label(str(k)) for k in keys]
