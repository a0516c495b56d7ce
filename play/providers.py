"""Which model answers a session, and what it costs (seed 001 "Modos de ejecución", G10).

The site default comes from settings (offline unless FABULA_PROVIDER says otherwise); a user's
own ProviderSetting replaces it. On the user's own key a session or world may pick the model; on
the site's key only the site's model or one of FABULA_SITE_MODELS, so nobody spends the site's
money on a model of their choosing. Run modes wrap it: record keeps every exchange in the
session, replay answers from the recording (offline when an exchange is missing). Past the daily
action quota (or the site key's budget) a live session plays offline until midnight UTC
(play.quota). A server a user named is reached only through play.netguard. API keys are
decrypted only here, only to build a client, and never logged.
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, cast

import httpx2
from django.conf import settings
from django.utils.translation import gettext

from engine.llm.base import Provider
from engine.llm.capabilities import Capabilities
from engine.llm.offline import OfflineProvider
from engine.llm.pricing import DEFAULT_PRICES, PriceTable
from engine.llm.recording import Recording, RecordingProvider, ReplayProvider
from engine.world import WorldDefinition
from play import netguard, netstream, quota
from play.crypto import decrypt_secret, encrypt_secret, mask_secret
from play.errors import PlayError
from play.local_servers import first_token_timeout
from play.models import PROVIDERS, ProviderSetting, Session
from play.prepared import Prepared

PAID_MODES = ("live", "record")


@dataclass(frozen=True)
class ProviderConfig:
    """What to build, worked out in a thread with database access; holds the key in memory only."""

    kind: str  # openai | anthropic | offline
    model: str
    base_url: str
    api_key: str
    language: str
    mode: str  # the effective mode: live | offline | record | replay
    recording: dict[str, Any]
    quota_exhausted: bool = False
    guarded: bool = False  # a server the user named: reached only through play.netguard
    charged: tuple[str, ...] = ()  # quota subjects this turn's action was counted against
    charged_day: date | None = None
    # More subjects counted on a day of their own: a game-master character's (play.gm_quota).
    extra_charges: tuple[tuple[str, date], ...] = ()
    notice: str = ""  # what the quota notice says, when not the site-wide NOTICE
    capabilities: Capabilities | None = None  # what "Test connection" found (None: assumed)

    def __repr__(self) -> str:
        return f"ProviderConfig(kind={self.kind!r}, model={self.model!r}, mode={self.mode!r})"


@dataclass(frozen=True)
class _Choice:
    kind: str
    base_url: str
    api_key: str
    model: str
    own: bool  # the user's own provider, not the site's key
    capabilities: Capabilities | None = None


def provider_config(
    session: Session, world: WorldDefinition, subject: str | Sequence[str], now: datetime
) -> ProviderConfig:
    """Decide the provider of the next turn; reserves the action when it will cost money.

    ``subject``: what the action counts against (play.quota.quota_subjects).
    """
    language = world.language or "en"
    mode = session.mode
    if mode in ("offline", "replay"):
        return ProviderConfig("offline", "offline", "", "", language, mode, session.recording)
    choice = _choose(session, world)
    if choice.kind == "offline":
        return ProviderConfig("offline", "offline", "", "", language, "offline", {})
    subjects = (subject,) if isinstance(subject, str) else tuple(subject)
    charged = quota.reserve(quota.limits(subjects, on_site_key=not choice.own), now)
    if charged is None:
        return ProviderConfig("offline", "offline", "", "", language, "offline", {}, True)
    return ProviderConfig(
        choice.kind,
        choice.model,
        choice.base_url,
        choice.api_key,
        language,
        mode,
        session.recording,
        guarded=choice.own,
        charged=charged,
        charged_day=quota.utc_day(now),
        capabilities=choice.capabilities,
    )


def release_action(config: ProviderConfig) -> None:
    """Give back the action a turn reserved: a failed turn does not count against the quota."""
    quota.refund(config.charged, config.charged_day)
    for subject, day in config.extra_charges:
        quota.refund((subject,), day)


def quota_used_up(session: Session, subjects: Sequence[str], now: datetime) -> bool:
    """Whether the session's next live action would be refused for the quota (for the page)."""
    if session.mode in ("offline", "replay"):
        return False
    choice = _choose(session, None)
    if choice.kind == "offline":
        return False
    return quota.used_up(quota.limits(subjects, on_site_key=not choice.own), now)


def _choose(session: Session, world: WorldDefinition | None) -> _Choice:
    """The site's key and model, or the user's own provider with the model they ask for."""
    kind, base_url, api_key, model = _site_default()
    own = _own_setting(session)
    if own is None:
        return _Choice(kind, base_url, api_key, _site_pick(session, world, model), False)
    key = decrypt_secret(own.api_key_encrypted)
    picked = _own_pick(session, world, own, model)
    return _Choice(own.provider, own.base_url, key, picked, True, stored_capabilities(own, picked))


def capability_key(provider: str, base_url: str, model: str) -> str:
    """Where a probe's answer is kept in ``ProviderSetting.capabilities``: per server and model,
    so a changed address or model is probed again rather than trusted."""
    return f"{provider} {base_url} {model}"


def stored_capabilities(own: ProviderSetting, model: str) -> Capabilities | None:
    """What "Test connection" found for this server and model (issue 37 §3); None: never tried."""
    found = (own.capabilities or {}).get(capability_key(own.provider, own.base_url, model))
    return Capabilities.from_dict(found) if isinstance(found, dict) else None


def answering_model(session: Session, world: WorldDefinition) -> tuple[str, str]:
    """(provider kind, model) of the session's next live turn, as ``provider_config`` picks it.

    For the page: counts nothing and decrypts no key.
    """
    kind, _base_url, _key, model = _site_default()
    own = _own_setting(session)
    if own is None:
        return kind, _site_pick(session, world, model)
    return own.provider, _own_pick(session, world, own, model)


_OWN_SETTING = Prepared(
    lambda q: ProviderSetting.objects.filter(user_id=q.user_id).order_by("pk")[:1]
)


def _own_setting(session: Session) -> ProviderSetting | None:
    if session.owner_id is None or session.provider_preference == "official":
        return None  # a guest, or a player who switched this session to the site's model
    return _OWN_SETTING.first(user_id=session.owner_id)


def _site_pick(session: Session, world: WorldDefinition | None, default: str) -> str:
    """On the site's key: the session's or the world's model only when the site offers it."""
    allowed = site_models()
    asked = (session.model, recommended_model(world) if world is not None else "")
    return next((m for m in asked if m and m in allowed), default)


def _own_pick(
    session: Session, world: WorldDefinition | None, own: ProviderSetting, default: str
) -> str:
    """On the player's own key: the session's pick, then the player's own model (one their
    server is known to serve), then the world's recommendation."""
    recommended = recommended_model(world) if world is not None else ""
    return session.model or own.model or recommended or default


def site_models() -> set[str]:
    """The models a session or world may pick on the site's key (FABULA_SITE_MODELS)."""
    listed = getattr(settings, "FABULA_SITE_MODELS", ()) or ()
    return {str(settings.FABULA_MODEL), *(str(m) for m in listed)}


def _site_default() -> tuple[str, str, str, str]:
    kind = str(settings.FABULA_PROVIDER or "offline")
    if kind not in PROVIDERS:
        kind = "offline"
    return kind, str(settings.FABULA_BASE_URL), str(settings.FABULA_API_KEY), settings.FABULA_MODEL


def recommended_model(world: WorldDefinition) -> str:
    """The model the world's creator recommends (``settings.recommendedModel``).

    Worlds written before that field said ``settings.model``; it is still read.
    """
    if world.settings.recommended_model:
        return world.settings.recommended_model
    legacy = (world.settings.model_extra or {}).get("model")
    return legacy if isinstance(legacy, str) else ""


# --- building providers ----------------------------------------------------------------------

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Provider]] = (
    weakref.WeakKeyDictionary()
)


def price_table() -> PriceTable:
    prices = getattr(settings, "FABULA_PRICES", None)
    return PriceTable.from_dict(prices) if prices else DEFAULT_PRICES


def build_provider(config: ProviderConfig) -> Provider:
    """The engine provider for ``config``; HTTP clients are reused per event loop."""
    if config.mode == "replay":
        recording = _recording(config.recording)
        return ReplayProvider(recording, OfflineProvider(config.language))
    if config.kind == "offline":
        return OfflineProvider(config.language)
    live = _live_provider(config)
    if config.mode == "record":
        return cast(Provider, RecordingProvider(live, _recording(config.recording)))
    return live


def _recording(data: dict[str, Any]) -> Recording:
    try:
        return Recording.from_dict(data) if data else Recording()
    except ValueError:
        return Recording()


def _live_provider(config: ProviderConfig) -> Provider:
    key_digest = hashlib.sha256(config.api_key.encode()).hexdigest()[:16]
    guard = f"guarded:{_allow_private()}" if config.guarded else "site"
    cache_key = f"{config.kind}|{config.base_url}|{config.model}|{key_digest}|{guard}"
    loop = asyncio.get_running_loop()
    cache = _clients.setdefault(loop, {})
    provider = cache.get(cache_key)
    if provider is None:
        provider = cache[cache_key] = _new_live_provider(config)
    return provider


def _new_live_provider(config: ProviderConfig) -> Provider:
    options: dict[str, Any] = {
        "timeout": float(getattr(settings, "FABULA_PROVIDER_TIMEOUT", 60.0)),
        "first_token_timeout": first_token_timeout(config.base_url),  # play.local_servers
        "max_retries": int(getattr(settings, "FABULA_PROVIDER_RETRIES", 3)),
        "backoff_base": float(getattr(settings, "FABULA_PROVIDER_BACKOFF", 0.5)),
        "prices": price_table(),
    }
    if not config.guarded:
        options["http_client"] = netstream.site_client(timeout=options["timeout"])
        return _sdk_provider(config, options)
    options["http_client"] = netguard.pinned_client(
        allow_private=_allow_private(), timeout=options["timeout"]
    )
    try:
        return cast(Provider, netguard.PlainFailures(_sdk_provider(config, options)))
    except (httpx2.InvalidURL, ValueError, TypeError) as exc:  # a stored URL the SDK refuses
        return cast(Provider, netguard.Unreachable(config.model, f"{type(exc).__name__}: {exc}"))


def _sdk_provider(config: ProviderConfig, options: dict[str, Any]) -> Provider:
    """The SDKs are imported here, on a session's first live turn: importing them cost every
    process start (each ``manage.py`` step, every test worker) about two seconds."""
    api_key = config.api_key or "not-set"
    base_url = config.base_url or None
    if config.kind == "anthropic":
        from engine.llm.anthropic import AnthropicProvider

        return AnthropicProvider(api_key, model=config.model, base_url=base_url, **options)
    from engine.llm.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(api_key, model=config.model, base_url=base_url, **options)


def _allow_private() -> bool:
    """The operator's word that users may name loopback/private servers (a local Ollama)."""
    return bool(getattr(settings, "FABULA_ALLOW_PRIVATE_MODEL_HOSTS", False))


def recording_after(provider: Provider) -> dict[str, Any] | None:
    """The session's recording to save after a turn in record mode, else None."""
    if isinstance(provider, RecordingProvider):
        return provider.recording.to_dict()
    return None


# --- the user's own provider -----------------------------------------------------------------


def provider_setting_dict(setting: ProviderSetting | None) -> dict[str, Any]:
    """What a page or the API may show: never the key, only its hint."""
    if setting is None:
        return {
            "provider": None,
            "base_url": "",
            "model": "",
            "api_key_hint": "",
            "has_api_key": False,
        }
    return {
        "provider": setting.provider,
        "base_url": setting.base_url,
        "model": setting.model,
        "api_key_hint": setting.api_key_hint,
        "has_api_key": bool(setting.api_key_encrypted),
    }


def save_provider_setting(
    user: Any, *, provider: str, base_url: str = "", model: str = "", api_key: str | None = None
) -> ProviderSetting:
    """Set the user's provider; ``api_key`` None keeps the stored key, "" removes it."""
    if provider not in PROVIDERS:
        raise PlayError(
            gettext("Unknown provider '%(provider)s'.") % {"provider": provider}, field="provider"
        )
    problem = netguard.url_problem(base_url, _allow_private()) if base_url else None
    if problem:
        raise PlayError(gettext(problem), field="base_url")
    setting, _ = ProviderSetting.objects.get_or_create(user=user)
    setting.provider = provider
    setting.base_url = base_url
    setting.model = model
    if api_key is not None:
        setting.api_key_encrypted = encrypt_secret(api_key)
        setting.api_key_hint = mask_secret(api_key)
    setting.save()
    return setting


def clear_provider_setting(user: Any) -> None:
    ProviderSetting.objects.filter(user=user).delete()


def set_provider_model(user: Any, model: str) -> ProviderSetting:
    """Make ``model`` (one "List models" found) the model of the user's saved provider."""
    setting = ProviderSetting.objects.filter(user=user).first()
    if setting is None:
        raise PlayError(gettext("Save your model settings first."), field="model")
    setting.model = model.strip()
    setting.save(update_fields=["model", "updated_at"])
    return setting
