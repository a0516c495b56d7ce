"""LLM providers behind one small protocol (architecture "LLM providers"; seed 001 run modes).

``Provider.stream(ChatRequest) -> AsyncIterator[Chunk]``; the last chunk carries ``Usage``.
Live: ``OpenAICompatProvider``, ``AnthropicProvider``. Offline: ``OfflineProvider``.
Record and replay: ``RecordingProvider``, ``ReplayProvider`` over a ``Recording``. Scripted
model turns and request tracing (the game master's CLI and tests): ``ScriptedProvider``,
``TracingProvider``.

The two live providers are imported on first use: the SDKs take about two seconds to import,
which offline and replay sessions (and most tests) never need.
"""

from typing import TYPE_CHECKING

from engine.llm.base import (
    ChatRequest,
    Chunk,
    Provider,
    ProviderError,
    RetryPolicy,
    Usage,
    stream_with_retries,
)
from engine.llm.offline import OfflineProvider
from engine.llm.pricing import DEFAULT_PRICES, ModelPrice, PriceTable
from engine.llm.recording import (
    Exchange,
    Recording,
    RecordingProvider,
    ReplayProvider,
    exchange_key,
)
from engine.llm.scripted import ScriptedProvider, TracingProvider

__all__ = [
    "DEFAULT_PRICES",
    "AnthropicProvider",
    "ChatRequest",
    "Chunk",
    "Exchange",
    "ModelPrice",
    "OfflineProvider",
    "OpenAICompatProvider",
    "PriceTable",
    "Provider",
    "ProviderError",
    "Recording",
    "RecordingProvider",
    "ReplayProvider",
    "RetryPolicy",
    "ScriptedProvider",
    "TracingProvider",
    "Usage",
    "exchange_key",
    "stream_with_retries",
]

if TYPE_CHECKING:
    from engine.llm.anthropic import AnthropicProvider
    from engine.llm.openai_compat import OpenAICompatProvider


def __getattr__(name: str) -> object:
    if name == "AnthropicProvider":
        from engine.llm.anthropic import AnthropicProvider

        return AnthropicProvider
    if name == "OpenAICompatProvider":
        from engine.llm.openai_compat import OpenAICompatProvider

        return OpenAICompatProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
