"""Trying a player's saved model settings from "My model" (issue 16 §5 "Models and cost").

"Test connection" sends one tiny real request (a few output tokens) the way a turn would;
"List models" asks the server which models it offers. Both read the user's saved settings and
reach the server only through play.netguard's pinned client, like every turn on a user's own key:
a private or loopback address is refused before any packet leaves, and every way of not getting
through reads the same (``netguard.UNREACHABLE``), so the result tells nothing about what
listens behind an address. What a model server itself says (a refused key, an unknown model)
is shown, since it is about the user's own account, with the user's key masked out of it.

A test that gets through also tries what the server accepts of tool calling
(play.provider_probe, issue 37 §3) and keeps it in ``ProviderSetting.capabilities`` for that
server and model; the master's loop then asks only what the server understands.

Each try counts against a small daily allowance per user (``FABULA_PROVIDER_CHECKS``, counted
like play.quota's actions), so the buttons cannot be used to make the site hammer a server.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx2
from asgiref.sync import async_to_sync
from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from engine.llm.base import ChatRequest, ProviderError
from engine.llm.capabilities import FREE, NAMED, Capabilities
from engine.session import Message
from play import netguard, quota
from play.crypto import decrypt_secret, mask_secret
from play.models import ProviderSetting
from play.providers import capability_key, price_table

if TYPE_CHECKING:  # the SDKs load when a check runs, not with the page (play.providers says why)
    from engine.llm.anthropic import AnthropicProvider
    from engine.llm.openai_compat import OpenAICompatProvider

TEST_PROMPT = "Reply with the single word OK."
TEST_TOKENS = 8
MAX_MODELS = 500
MAX_WORDS = 300  # characters of a server's own error text that are shown
USED_UP = _lazy("You have tried your model settings often today. Try again tomorrow.")
_WORD = re.compile(r"[^\s\"'`,;:()\[\]{}<>]+")


@dataclass(frozen=True)
class CheckResult:
    """What the page shows: whether it worked, in words, and the models found."""

    ok: bool
    message: str
    detail: str = ""  # what the model server itself said, the key masked
    models: tuple[str, ...] = ()
    tools: str = ""  # what the server was found to accept of tool calling


@dataclass(frozen=True)
class _Target:
    kind: str
    model: str
    base_url: str
    api_key: str


def test_connection(user: Any, now: datetime) -> CheckResult:
    """Send one tiny request through the user's saved provider; counts one check."""
    target = _target(user, now, needs_model=True)
    if isinstance(target, CheckResult):
        return target
    try:
        reply, found = async_to_sync(_ask)(target)
    except ProviderError as exc:
        return _failure(exc, target.api_key)
    tools = _keep(user, target, found) if found is not None else ""  # a test probes again
    said = masked(reply.strip()[:80], target.api_key)
    if not said:
        message = _("Connected: %(model)s answered.") % {"model": target.model}
        return CheckResult(True, message, tools=tools)
    message = _("Connected: %(model)s answered “%(reply)s”.")
    return CheckResult(True, message % {"model": target.model, "reply": said}, tools=tools)


def _keep(user: Any, target: _Target, found: Capabilities) -> str:
    """Store what the probe found for this server and model; say it in the player's words."""
    setting = ProviderSetting.objects.filter(user=user).first()
    if setting is not None:
        kept = dict(setting.capabilities or {})
        kept[capability_key(target.kind, target.base_url, target.model)] = found.to_dict()
        ProviderSetting.objects.filter(pk=setting.pk).update(capabilities=kept)
    forcing = found.forcing()
    if forcing == NAMED:
        return _("Tool calls: the game master can be made to close each turn.")
    if forcing == FREE:
        return _(
            "Tool calls: this server cannot be made to call a tool; the game master's text is "
            "taken as its narration."
        )
    return _("Tool calls: the game master is made to close each turn (“required”).")


def list_models(user: Any, now: datetime) -> CheckResult:
    """The models the user's saved server offers, sorted; counts one check."""
    target = _target(user, now, needs_model=False)
    if isinstance(target, CheckResult):
        return target
    try:
        names = async_to_sync(_fetch_models)(target)
    except ProviderError as exc:
        return _failure(exc, target.api_key)
    if not names:
        return CheckResult(False, _("The server lists no models."))
    models = tuple(sorted(set(names)))
    message = _("The server offers %(count)d models. Pick one to use it.") % {"count": len(models)}
    return CheckResult(True, message, models=models)


# --- what is tried ---------------------------------------------------------------------------


def _target(user: Any, now: datetime, *, needs_model: bool) -> _Target | CheckResult:
    """The saved settings to try, or why nothing is tried (no settings, offline, used up)."""
    setting = ProviderSetting.objects.filter(user=user).first()
    if setting is None or setting.provider not in ("openai", "anthropic"):
        return CheckResult(False, _("Save a provider other than offline first."))
    model = setting.model or str(settings.FABULA_MODEL or "")
    if needs_model and not model:
        return CheckResult(
            False, _("Name a model first: “List models” shows what your server offers.")
        )
    limit = int(getattr(settings, "FABULA_PROVIDER_CHECKS", 50) or 0)
    if quota.reserve({f"provider-check:user:{user.pk}": limit}, now) is None:
        return CheckResult(False, str(USED_UP))
    key = decrypt_secret(setting.api_key_encrypted)
    return _Target(setting.provider, model, setting.base_url, key)


def _provider(target: _Target) -> OpenAICompatProvider | AnthropicProvider:
    """The engine's provider for the target, on the pinned client; no retries, short waits."""
    timeout = min(float(getattr(settings, "FABULA_PROVIDER_TIMEOUT", 20.0)), 20.0)
    allow_private = bool(getattr(settings, "FABULA_ALLOW_PRIVATE_MODEL_HOSTS", False))
    options: dict[str, Any] = {
        "model": target.model,
        "base_url": target.base_url or None,
        "timeout": timeout,
        "first_token_timeout": timeout,
        "max_retries": 0,
        "prices": price_table(),
        "http_client": netguard.pinned_client(allow_private=allow_private, timeout=timeout),
    }
    key = target.api_key or "not-set"
    if target.kind == "anthropic":
        from engine.llm.anthropic import AnthropicProvider

        return AnthropicProvider(key, **options)
    from engine.llm.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(key, **options)


async def _ask(target: _Target) -> tuple[str, Capabilities | None]:
    """The tiny request's reply, and what an OpenAI-compatible server accepts of tool calling
    (None: not tried, or the probe did not get through)."""
    provider = _built(target)
    request = ChatRequest(messages=[Message("user", TEST_PROMPT)], max_tokens=TEST_TOKENS)
    text = ""
    try:
        async for chunk in netguard.PlainFailures(provider).stream(request):
            text += chunk.text
        from engine.llm.openai_compat import OpenAICompatProvider  # the SDKs: see _provider
        from play.provider_probe import probe

        if not isinstance(provider, OpenAICompatProvider):
            return text, None
        try:
            return text, await probe(provider)
        except ProviderError:
            return text, None
    finally:
        await provider.aclose()


async def _fetch_models(target: _Target) -> list[str]:
    provider = _built(target)
    if target.kind == "anthropic":
        from engine.llm.anthropic import classify_error as classify
    else:
        from engine.llm.openai_compat import classify_error as classify
    names: list[str] = []
    try:
        async for model in provider.client.models.list():
            names.append(str(model.id))
            if len(names) >= MAX_MODELS:
                break
    except Exception as exc:
        error = classify(exc)
        error.__cause__ = exc
        raise error from exc
    finally:
        await provider.aclose()
    return names


def _built(target: _Target) -> OpenAICompatProvider | AnthropicProvider:
    try:
        return _provider(target)
    except (httpx2.InvalidURL, ValueError, TypeError) as exc:  # a stored URL the SDK refuses
        raise ProviderError(netguard.UNREACHABLE, detail=f"{type(exc).__name__}: {exc}") from exc


# --- what the page says ----------------------------------------------------------------------


def _failure(exc: ProviderError, api_key: str) -> CheckResult:
    """No model spoke: the one unreachable sentence. A model spoke: its error, key masked."""
    if netguard.unreachable(exc):
        return CheckResult(False, netguard.UNREACHABLE)
    words = masked(server_words(exc), api_key)[:MAX_WORDS]
    return CheckResult(False, masked(exc.message, api_key), detail=words)


def server_words(exc: BaseException) -> str:
    """The error text a model server sent (``{"error": {"message": …}}`` in both protocols)."""
    seen: BaseException | None = exc
    for _depth in range(4):
        if seen is None:
            break
        body = getattr(seen, "body", None)
        if isinstance(body, dict):
            error = body.get("error")
            inner = error if isinstance(error, dict) else body
            message = inner.get("message")
            if isinstance(message, str):
                return message.strip()
        seen = seen.__cause__
    return ""


def masked(text: str, api_key: str) -> str:
    """``text`` with the key, and any long piece of it a server echoed, replaced by its hint."""
    if not api_key:
        return text
    hint = mask_secret(api_key)

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        if len(word) >= 8 and (word in api_key or api_key in word):
            return hint
        return word

    return _WORD.sub(swap, text.replace(api_key, hint))
