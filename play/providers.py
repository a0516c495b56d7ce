"""Which model answers a session, and what it costs (seed 001 "Modos de ejecución", G10).

The site default comes from settings (offline unless FABULA_PROVIDER says otherwise); a user's
own ProviderSetting replaces it; a session or world may pick the model. Run modes wrap it:
record keeps every exchange in the session, replay answers from the recording (offline when an
exchange is missing). Past the daily action quota a live session plays offline until midnight
UTC. API keys are decrypted only here, only to build a client, and never logged.
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from django.conf import settings
from django.db import transaction
from django.db.models import F

from engine.llm.anthropic import AnthropicProvider
from engine.llm.base import Provider
from engine.llm.offline import OfflineProvider
from engine.llm.openai_compat import OpenAICompatProvider
from engine.llm.pricing import DEFAULT_PRICES, PriceTable
from engine.llm.recording import Recording, RecordingProvider, ReplayProvider
from engine.world import WorldDefinition
from play.crypto import decrypt_secret, encrypt_secret, mask_secret
from play.errors import PlayError
from play.models import PROVIDERS, DailyActionCount, ProviderSetting, Session

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

    def __repr__(self) -> str:
        return f"ProviderConfig(kind={self.kind!r}, model={self.model!r}, mode={self.mode!r})"


def utc_day(now: datetime) -> Any:
    return now.astimezone(UTC).date()


def actions_today(subject: str, now: datetime) -> int:
    row = DailyActionCount.objects.filter(subject=subject, day=utc_day(now)).first()
    return row.count if row else 0


def count_action(subject: str, now: datetime) -> None:
    """Count one paid action against ``subject``'s quota for today (UTC)."""
    day = utc_day(now)
    with transaction.atomic():
        row, _ = DailyActionCount.objects.select_for_update().get_or_create(
            subject=subject, day=day
        )
        DailyActionCount.objects.filter(pk=row.pk).update(count=F("count") + 1)


def provider_config(
    session: Session, world: WorldDefinition, subject: str, now: datetime
) -> ProviderConfig:
    """Decide the provider of the next turn; counts the action when it will cost money."""
    language = world.language or "en"
    mode = session.mode
    if mode in ("offline", "replay"):
        return ProviderConfig("offline", "offline", "", "", language, mode, session.recording)
    quota = int(settings.FABULA_DAILY_ACTION_QUOTA)
    if quota and actions_today(subject, now) >= quota:
        return ProviderConfig("offline", "offline", "", "", language, "offline", {}, True)
    kind, base_url, api_key, model = _site_default()
    own = (
        ProviderSetting.objects.filter(user_id=session.owner_id).first()
        if session.owner_id is not None
        else None
    )
    if own is not None:
        kind, base_url, model = own.provider, own.base_url, own.model or model
        api_key = decrypt_secret(own.api_key_encrypted)
    model = session.model or _world_model(world) or model
    if kind == "offline":
        return ProviderConfig("offline", "offline", "", "", language, "offline", {})
    count_action(subject, now)
    return ProviderConfig(kind, model, base_url, api_key, language, mode, session.recording)


def _site_default() -> tuple[str, str, str, str]:
    kind = str(settings.FABULA_PROVIDER or "offline")
    if kind not in PROVIDERS:
        kind = "offline"
    return kind, str(settings.FABULA_BASE_URL), str(settings.FABULA_API_KEY), settings.FABULA_MODEL


def _world_model(world: WorldDefinition) -> str:
    extra = world.settings.model_extra or {}
    value = extra.get("model")
    return value if isinstance(value, str) else ""


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
    cache_key = f"{config.kind}|{config.base_url}|{config.model}|{key_digest}"
    loop = asyncio.get_running_loop()
    cache = _clients.setdefault(loop, {})
    provider = cache.get(cache_key)
    if provider is None:
        provider = cache[cache_key] = _new_live_provider(config)
    return provider


def _new_live_provider(config: ProviderConfig) -> Provider:
    timeouts: dict[str, Any] = {
        "timeout": float(getattr(settings, "FABULA_PROVIDER_TIMEOUT", 60.0)),
        "first_token_timeout": float(getattr(settings, "FABULA_FIRST_TOKEN_TIMEOUT", 60.0)),
        "max_retries": int(getattr(settings, "FABULA_PROVIDER_RETRIES", 3)),
        "backoff_base": float(getattr(settings, "FABULA_PROVIDER_BACKOFF", 0.5)),
        "prices": price_table(),
    }
    api_key = config.api_key or "not-set"
    base_url = config.base_url or None
    if config.kind == "anthropic":
        return AnthropicProvider(api_key, model=config.model, base_url=base_url, **timeouts)
    return OpenAICompatProvider(api_key, model=config.model, base_url=base_url, **timeouts)


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
        raise PlayError(f"Unknown provider '{provider}'.", field="provider")
    if base_url and not base_url.startswith(("http://", "https://")):
        raise PlayError("The base URL must start with http:// or https://.", field="base_url")
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
