"""Model calls made on a director's behalf (issue 12 §6: ``--trace`` labels each request with
its director; decision 3: an action's cost sums every request it made).

``Labelled`` wraps the session's provider for the Game Director's tool loop: it stamps each
request with the director and keeps the text of each reply beside the tool calls (where the
Game Director says its route). ``complete`` makes one plain call for the Story or the Scene
Director and gathers the reply's text and usage.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace

from engine.gm.steps import THINKING, say
from engine.llm.base import ChatRequest, Chunk, Provider, Usage


class Labelled:
    """Forwards to ``inner``, each request labelled ``director``; ``texts`` holds each reply's
    text, in order."""

    def __init__(self, inner: Provider, director: str) -> None:
        self.inner, self.director = inner, director
        self.name, self.model = inner.name, inner.model
        self.texts: list[str] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        text = ""
        async for chunk in self.inner.stream(replace(request, director=self.director)):
            text += chunk.text
            yield chunk
        self.texts.append(text)


@dataclass
class Answer:
    text: str = ""
    usage: Usage = field(default_factory=Usage)


async def complete(provider: Provider, request: ChatRequest) -> Answer:
    """One call, its streamed text gathered; a ProviderError passes through. The player sees
    the master thinking meanwhile (engine.gm.steps, issue 37)."""
    say(THINKING)
    answer = Answer()
    async for chunk in provider.stream(request):
        answer.text += chunk.text
        answer.usage = chunk.usage or answer.usage
    return answer
