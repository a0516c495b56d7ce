"""``ai.complete`` for a world's UI (seed 004 "AI 补全"; issue 15), through the server.

A UI's completion is a live action like a turn: the same provider choice (play.providers: the
site's key with its model, or the player's own), counted in the daily quota (past it, or with no
live model, the offline narrator answers), and its tokens and cost kept as a ``UiCompletion``.
It is not a turn: no history, no lorebook, no state; the UI's messages are the whole prompt.
Secret entries never go into it (``includeLorebook`` is ignored), since the UI reads the answer.

Caps (settings, with defaults): FABULA_UI_AI_MAX_PROMPT_CHARS (12,000 characters over all the
messages; past it the call is refused by name), FABULA_UI_AI_MAX_TOKENS (1,024; a larger
``maxTokens`` is lowered to it) and FABULA_UI_AI_MAX_MESSAGES (40). The UI's ``model`` is
ignored: a world's UI does not choose what the site or the player pays for.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils.translation import gettext

from engine.llm.base import ChatRequest, ProviderError, Usage
from engine.session import Message
from play import providers, quota, sessions
from play.errors import PlayError
from play.models import Session, UiCompletion

log = logging.getLogger(__name__)

ROLES = ("system", "user", "assistant")


def max_prompt_chars() -> int:
    return int(getattr(settings, "FABULA_UI_AI_MAX_PROMPT_CHARS", 12_000))


def max_tokens_cap() -> int:
    return int(getattr(settings, "FABULA_UI_AI_MAX_TOKENS", 1024))


def max_messages() -> int:
    return int(getattr(settings, "FABULA_UI_AI_MAX_MESSAGES", 40))


@dataclass(frozen=True)
class CompletionAsk:
    """A checked ``ai.complete`` request."""

    messages: tuple[Message, ...]
    max_tokens: int
    temperature: float | None


def parse_ask(data: Any) -> CompletionAsk:
    """Check the UI's parameters; each problem is refused with the field's name."""
    if not isinstance(data, dict):
        raise PlayError(gettext("ai.complete needs an object."), field="$")
    raw = data.get("messages")
    if not isinstance(raw, list) or not 0 < len(raw) <= max_messages():
        message = gettext("messages: 1 to %(n)s messages.") % {"n": max_messages()}
        raise PlayError(message, field="messages")
    messages = tuple(_message(item, index) for index, item in enumerate(raw))
    if sum(len(m.content) for m in messages) > max_prompt_chars():
        message = gettext("messages: the prompt is longer than %(n)s characters.")
        raise PlayError(message % {"n": max_prompt_chars()}, field="messages")
    return CompletionAsk(messages, _max_tokens(data.get("maxTokens")), _temperature(data))


def _message(item: Any, index: int) -> Message:
    if not isinstance(item, dict) or item.get("role") not in ROLES:
        raise PlayError(f"messages.{index}.role: system, user or assistant", field="messages")
    content = item.get("content")
    if not isinstance(content, str):
        raise PlayError(f"messages.{index}.content: must be text", field="messages")
    return Message(role=str(item["role"]), content=content)


def _max_tokens(value: Any) -> int:
    if value is None:
        return max_tokens_cap()
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise PlayError(gettext("maxTokens: a positive whole number."), field="maxTokens")
    return min(value, max_tokens_cap())


def _temperature(data: dict[str, Any]) -> float | None:
    value = data.get("temperature")
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 2:
        raise PlayError(gettext("temperature: a number from 0 to 2."), field="temperature")
    return float(value)


def _config(session: Session, subjects: tuple[str, ...]) -> tuple[Any, Any]:
    world = sessions.world_of(session)
    return world, providers.provider_config(session, world, subjects, datetime.now(UTC))


async def complete(
    session: Session, subjects: tuple[str, ...], ask: CompletionAsk
) -> dict[str, Any]:
    """Ask the session's model; ``{"text", "model", "offline", "quotaExhausted"}``."""
    world, config = await database_sync_to_async(_config)(session, subjects)
    provider = providers.build_provider(config)
    users = [m.content for m in ask.messages if m.role == "user"]
    request = ChatRequest.from_settings(list(ask.messages), None, world.settings)
    request = _capped(request, ask, users[-1] if users else "")
    text, usage = [], Usage()
    try:
        async for chunk in provider.stream(request):
            text.append(chunk.text)
            usage = chunk.usage or usage
    except ProviderError as exc:
        await database_sync_to_async(providers.release_action)(config)
        log.info("ai.complete failed in session %s: %s", session.pk, exc)
        raise PlayError(gettext("The model did not answer; try again."), field="$") from None
    await database_sync_to_async(_record)(session, config.model, usage)
    return {
        "text": "".join(text)[: max_tokens_cap() * 8],
        "model": config.model,
        "offline": config.kind == "offline",
        "quotaExhausted": config.quota_exhausted,
        "notice": str(quota.NOTICE) if config.quota_exhausted else "",
    }


def _capped(request: ChatRequest, ask: CompletionAsk, player_text: str) -> ChatRequest:
    temperature = ask.temperature if ask.temperature is not None else request.temperature
    return replace(
        request,
        max_tokens=ask.max_tokens,
        temperature=temperature,
        player_text=player_text,
        structured_output=False,
    )


def _record(session: Session, model: str, usage: Usage) -> None:
    UiCompletion.objects.create(
        session=session,
        model=model,
        input_tokens=usage.prompt_tokens,
        output_tokens=usage.output_tokens,
        cost=round(usage.cost, 6),
    )
