"""Run modes record and replay: record live exchanges, replay them at zero cost."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator

import pytest

from engine.llm import (
    ChatRequest,
    OfflineProvider,
    ProviderError,
    Recording,
    RecordingProvider,
    ReplayProvider,
    Usage,
    exchange_key,
)
from engine.llm.openai_compat import OpenAICompatProvider
from engine.llm.pricing import PriceTable
from engine.session import Message
from tests.support import FakeSleep, collect, text_of
from tests.support.model_server import Fault, ModelServer, Reply

PRICES = PriceTable({"live-model": {"input": 3, "output": 15}})


def chat(action: str, **fields) -> ChatRequest:
    return ChatRequest(
        [Message("system", "You narrate a mine."), Message("user", action)], **fields
    )


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


@pytest.fixture
async def live(server) -> AsyncIterator[OpenAICompatProvider]:
    provider = OpenAICompatProvider(
        "test-key",
        model="live-model",
        base_url=server.openai_url,
        prices=PRICES,
        sleep=FakeSleep(),
        rng=random.Random(1),
    )
    yield provider
    await provider.aclose()


async def test_record_then_replay_gives_identical_chunks_at_zero_cost(server, live):
    server.script([Reply(text="The cart rattles down the rails.", chunk_size=7)])
    recording = Recording()

    recorded = await collect(RecordingProvider(live, recording), chat("I ride the cart"))
    replayed = await collect(ReplayProvider(recording), chat("I ride the cart"))

    assert [c.text for c in replayed if c.text] == [c.text for c in recorded if c.text]
    assert recorded[-1].usage is not None and recorded[-1].usage.cost > 0
    assert replayed[-1].usage == Usage()
    assert replayed[-1].finish_reason == "stop"
    assert len(server.requests) == 1


async def test_a_recording_survives_export_and_import_as_a_demo(server, live):
    server.script([Reply(text="Dust falls from the beams.", chunk_size=4)])
    recording = Recording()
    recorded = await collect(RecordingProvider(live, recording), chat("I light a torch"))

    demo = Recording.from_json(recording.to_json())
    replayed = await collect(ReplayProvider(demo), chat("I light a torch"))

    assert [c.text for c in replayed if c.text] == [c.text for c in recorded if c.text]
    stored = demo.get(exchange_key(chat("I light a torch")))
    assert stored is not None
    assert stored.usage == recorded[-1].usage
    assert stored.text == "Dust falls from the beams."


async def test_a_missing_exchange_falls_back_to_offline():
    replay = ReplayProvider(Recording(), fallback=OfflineProvider("es", rng=random.Random(2)))

    chunks = await collect(replay, chat("abro la puerta", player_text="abro la puerta"))

    assert text_of(chunks) == "Abres la puerta. Nada cambia."
    assert replay.misses == [exchange_key(chat("abro la puerta"))]
    assert chunks[-1].usage == Usage()


async def test_a_failed_stream_is_not_recorded(server, live):
    server.script([Fault("drop_mid_stream", after_chunks=2)])
    recording = Recording()

    with pytest.raises(ProviderError):
        await collect(RecordingProvider(live, recording), chat("I dig"))

    assert len(recording) == 0


async def test_suggestions_are_recorded_and_replayed():
    recording = Recording()
    offline = OfflineProvider("en", rng=random.Random(4))

    recorded = await collect(RecordingProvider(offline, recording), chat("I dig"))
    replayed = await collect(ReplayProvider(recording), chat("I dig"))

    assert replayed == recorded


def test_the_key_covers_messages_and_model_but_not_sampling():
    base = exchange_key(chat("I dig"))

    assert exchange_key(chat("I dig", temperature=0.2, max_tokens=10)) == base
    assert exchange_key(chat("I dig", model="other")) != base
    assert exchange_key(chat("I dig deeper")) != base


def test_importing_something_else_is_refused():
    with pytest.raises(ValueError, match="not a Fabula recording"):
        Recording.from_json('{"name": "a world"}')
    with pytest.raises(ValueError, match="not a Fabula recording"):
        Recording.from_json("{broken")


def test_malformed_exchanges_are_read_leniently():
    recording = Recording.from_dict(
        {
            "format": "fabula-recording",
            "exchanges": {"k": {"chunks": ["a", 3, "b"], "usage": "nope"}, "bad": "x"},
        }
    )

    assert list(recording) == ["k"]
    exchange = recording.get("k")
    assert exchange is not None
    assert exchange.chunks == ["a", "b"]
    assert exchange.usage == Usage()
