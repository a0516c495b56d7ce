"""The offline provider: a closure drawn from the last action and 2-3 suggestions, no call."""

from __future__ import annotations

import random

import pytest

from engine.llm import ChatRequest, OfflineProvider, Usage
from engine.llm.offline import closure, language_of, suggestions
from engine.session import Message
from tests.support import collect, text_of


def chat(action: str) -> ChatRequest:
    return ChatRequest(
        [
            Message("system", "You narrate."),
            Message("user", "I wake up."),
            Message("assistant", "Morning light."),
            Message("user", action),
        ]
    )


@pytest.mark.parametrize(
    ("action", "language", "expected"),
    [
        ("I open the door", "en", "You open the door. Nothing changes."),
        ("look around", "en", "You look around. Nothing changes."),
        ("I'm hiding behind my cloak!", "en", "You are hiding behind your cloak. Nothing changes."),
        ("*I draw my sword*", "en", "You draw your sword. Nothing changes."),
        (
            "Open the chest and I take the coins.",
            "en",
            "You open the chest and you take the coins. Nothing changes.",
        ),
        ("abro la puerta", "es", "Abres la puerta. Nada cambia."),
        ("Me acerco a mi amigo.", "es", "Te acercas a tu amigo. Nada cambia."),
        ("un baile", "es", "Haces un baile. Nada cambia."),
        ("我打开门。", "zh", "你打开门。什么也没有改变。"),
        ("看看我的背包", "zh", "你看看你的背包。什么也没有改变。"),
        ("", "en", "You wait. Nothing changes."),
        ("", "es", "Esperas. Nada cambia."),
        ("", "zh", "你静静等待。什么也没有改变。"),
    ],
)
def test_closure_says_the_action_back_in_the_second_person(action, language, expected):
    assert closure(action, language) == expected


@pytest.mark.parametrize(
    ("tag", "language"), [("es-MX", "es"), ("zh_Hans", "zh"), ("fr", "en"), (None, "en")]
)
def test_language_tags_reduce_to_a_known_language_or_english(tag, language):
    assert language_of(tag) == language


async def test_streams_the_closure_in_a_few_chunks_then_choices_at_zero_cost():
    chunks = await collect(OfflineProvider("en", rng=random.Random(1)), chat("I open the door"))

    texts = [c.text for c in chunks if c.text]
    assert 2 <= len(texts) <= 4
    assert "".join(texts) == "You open the door. Nothing changes."
    (choices,) = [c.choices for c in chunks if c.choices is not None]
    assert 2 <= len(choices) <= 3
    assert chunks[-1].usage == Usage()
    assert chunks[-1].usage.cost == 0.0
    assert chunks[-1].finish_reason == "stop"


async def test_answers_in_the_providers_language():
    chunks = await collect(OfflineProvider("es", rng=random.Random(1)), chat("abro la puerta"))

    assert text_of(chunks) == "Abres la puerta. Nada cambia."
    (choices,) = [c.choices for c in chunks if c.choices]
    pool = {"Mirar alrededor", "Esperar", "Volver atrás", "Escuchar con atención"}
    pool |= {"Revisar tus cosas", "Preguntar a alguien cercano"}
    assert set(choices) <= pool


async def test_suggestions_are_deterministic_given_the_rng():
    first = await collect(OfflineProvider("en", rng=random.Random(3)), chat("I sit"))
    again = await collect(OfflineProvider("en", rng=random.Random(3)), chat("I sit"))

    assert first == again


async def test_without_an_rng_the_same_action_gets_the_same_suggestions():
    provider = OfflineProvider("zh")

    assert await collect(provider, chat("我坐下")) == await collect(provider, chat("我坐下"))


def test_suggestions_skip_what_the_player_just_did():
    for seed in range(20):
        assert "Look around" not in suggestions("I look around", "en", random.Random(seed))
        assert "等待" not in suggestions("我等一会儿", "zh", random.Random(seed))


async def test_a_prompt_without_user_messages_gets_the_waiting_closure():
    chunks = await collect(OfflineProvider(), ChatRequest([Message("system", "Intro.")]))

    assert text_of(chunks) == "You wait. Nothing changes."
