"""The one shape of a director's model request (seed 003 "directores"): its own messages over
the master's provider settings, one cache breakpoint after the brief, no tools. It imports only
``engine.llm.base``, so the out-of-character call's module may use it and stay world-free."""

from __future__ import annotations

from dataclasses import replace

from engine.llm.base import ChatRequest
from engine.session import Message


def director_request(
    base: ChatRequest | None,
    messages: list[Message],
    *,
    action: str,
    director: str,
    cache_tail: bool = False,
) -> ChatRequest:
    """``base`` (or a blank request) carrying ``messages`` for ``director``, tool-free."""
    return replace(
        base or ChatRequest(messages=[]),
        messages=messages,
        breakpoint=1,
        tools=None,
        tool_choice=None,
        cache_tail=cache_tail,
        structured_output=False,
        player_text=action,
        director=director,
    )
