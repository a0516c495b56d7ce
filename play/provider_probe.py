"""What a user's OpenAI-compatible server accepts of tool calling, tried once by "Test
connection" and kept (issue 37 §3; ``engine.llm.capabilities``).

Three tiny streamed requests offer one tool, ``note``: forced by name, forced as
``"required"``, and asked for twice. A 4xx refusal (llama.cpp: "Wrong type supplied for
parameter 'tool_choice'") or a reply of text alone means the choice is not obeyed; two calls
in one reply mean parallel calls; a call whose arguments came in more than one delta means
streamed arguments. The events are read off the SDK's stream directly, since the engine's
providers hand on only whole calls. Anthropic's API accepts all of it: nothing is tried there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import openai

from engine.llm.capabilities import Capabilities
from engine.llm.openai_compat import OpenAICompatProvider, classify_error
from engine.llm.tools import openai_tool_choice, openai_tools

PROBE_TOKENS = 64
NOTE = {
    "name": "note",
    "description": "Write down one word.",
    "parameters": {
        "type": "object",
        "properties": {"word": {"type": "string"}},
        "required": ["word"],
    },
}
ONCE = "Call the note tool with the word OK."
TWICE = "Call the note tool twice in this reply: once with the word A, once with the word B."
_REFUSED = frozenset({400, 422})  # the request's shape refused; anything else is a failure


@dataclass
class _Seen:
    """What one reply held: the calls by index, and their argument pieces."""

    names: dict[int, str] = field(default_factory=dict)
    pieces: dict[int, int] = field(default_factory=dict)

    def called(self) -> bool:
        return NOTE["name"] in self.names.values()


async def probe(provider: OpenAICompatProvider) -> Capabilities:
    """Try the server behind ``provider`` (a ProviderError when it cannot be reached)."""
    named = await _try(provider, {"name": str(NOTE["name"])}, ONCE)
    required = await _try(provider, "required", ONCE)
    twice = await _try(provider, "required" if required.called() else "auto", TWICE)
    streamed = any(n > 1 for seen in (named, required, twice) for n in seen.pieces.values())
    return Capabilities(
        named_tool_choice=named.called(),
        required_tool_choice=required.called(),
        parallel_tool_calls=len(twice.names) > 1,
        streamed_tool_arguments=streamed,
        probed=True,
    )


async def _try(provider: OpenAICompatProvider, choice: str | dict[str, str], ask: str) -> _Seen:
    seen = _Seen()
    try:
        stream = await provider.client.chat.completions.create(
            model=provider.model,
            messages=(),  # sent from ``extra_body``, plain JSON as the engine's provider sends
            max_tokens=PROBE_TOKENS,
            stream=True,
            extra_body={
                "messages": [{"role": "user", "content": ask}],
                "tools": openai_tools([NOTE]),
                "tool_choice": openai_tool_choice(choice),
            },
        )
        async for chunk in stream:
            for option in chunk.choices:
                _read(option.delta.tool_calls or (), seen)
    except openai.APIStatusError as exc:
        if exc.status_code in _REFUSED:
            return seen
        raise classify_error(exc) from exc
    except openai.APIError as exc:
        raise classify_error(exc) from exc
    return seen


def _read(pieces: Any, seen: _Seen) -> None:
    for piece in pieces:
        index = piece.index if isinstance(piece.index, int) else len(seen.names)
        function = piece.function
        if function is not None and function.name:
            seen.names[index] = function.name
        if function is not None and function.arguments:
            seen.pieces[index] = seen.pieces.get(index, 0) + 1
