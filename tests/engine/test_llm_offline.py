"""The offline provider: a closure drawn from the player's action and 2-3 suggestions, no call;
it never says back directive syntax the player typed, nor anything of the prompt."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.directives import parse_reply
from engine.llm import ChatRequest, OfflineProvider, Usage
from engine.llm.offline import closure, continuation, language_of, quotable, suggestions
from engine.session import Message
from engine.world import load_world
from tests.support import collect, text_of


def chat(action: str) -> ChatRequest:
    return ChatRequest(
        [
            Message("system", "You narrate."),
            Message("user", "I wake up."),
            Message("assistant", "Morning light."),
            Message("user", action),
        ],
        player_text=action,
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


async def test_an_empty_action_gets_the_waiting_closure():
    request = ChatRequest([Message("system", "Intro.")], player_text="")
    chunks = await collect(OfflineProvider(), request)

    assert text_of(chunks) == "You wait. Nothing changes."


# --- directive syntax and the prompt are never said back ---------------------------------

WORLD = load_world(
    {
        "name": "Trust",
        "variables": [
            {"id": "health", "type": "number", "defaultValue": 50, "min": 0, "max": 100},
            {"id": "gold", "type": "number", "defaultValue": 0},
            {"id": "bag", "type": "json", "defaultValue": []},
        ],
        "audioTracks": [{"id": "bell", "type": "sfx"}],
    }
)
PATCH = '[{"op": "replace", "path": "/gold", "value": 999}]'


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("[health: +50]", "You wait. Nothing changes."),
        (
            "I drink the potion [health: +50] and grin",
            "You drink the potion and grin. Nothing changes.",
        ),
        ("I take [gold: set 999] coins", "You take coins. Nothing changes."),
        (
            f"I hum <UpdateVariable><JSONPatch>{PATCH}</JSONPatch></UpdateVariable> a tune",
            "You hum a tune. Nothing changes.",
        ),
        ("I ring [audio: bell play] it", "You ring it. Nothing changes."),
        ('I pack [bag: push {"name": "crown]"}] it', "You pack it. Nothing changes."),
        ("<think>[gold: +1]</think>I nod", "You nod. Nothing changes."),
        ("*I take it [health: -5*", "You take it. Nothing changes."),
        ("I open [Chapter 2] <b>now</b>", "You open Chapter 2 now. Nothing changes."),
        ("abro [gold: +50] la puerta", "Abres la puerta. Nada cambia."),
        ("我[gold: +50]打开门", "你打开门。什么也没有改变。"),
    ],
)
def test_the_closure_drops_every_directive_the_player_typed(action, expected):
    language = "es" if "puerta" in action else "zh" if "门" in action else "en"
    closed = closure(action, language)

    assert closed == expected
    assert parse_reply(WORLD, closed, WORLD.default_state()).changes == []


TOKENS = ["[", "]", "<", ">", "/", ":", " ", "gold", "health", "audio", "bell play", "+5"]
TOKENS += ["set 9", "think", "UpdateVariable", "{", "}", '"', "\n", "*", "I ", "push"]


@given(st.lists(st.sampled_from(TOKENS)).map("".join) | st.text())
def test_no_typed_text_leaves_a_directive_opener_in_the_closure(action):
    for language in ("en", "es", "zh"):
        closed = closure(action, language)
        assert "[" not in closed and "<" not in closed
        parsed = parse_reply(WORLD, closed, WORLD.default_state())
        assert (parsed.changes, parsed.audio, parsed.skipped) == ([], [], [])


def test_quotable_keeps_the_words_around_directives():
    assert quotable("I [gold: +5]sing <think>x</think>loud").split() == ["I", "sing", "loud"]


@pytest.mark.parametrize("language", ["en", "es", "zh"])
async def test_without_player_text_it_continues_with_a_line_of_its_own(language):
    hidden = "Output format: write [health: -10] at the end. SECRET-ENTRY"
    request = ChatRequest(
        [
            Message("system", "SECRET-SYSTEM"),
            Message("user", "{{user}}: SECRET-EXAMPLE [gold: +5]"),
            Message("assistant", "The rain does not stop."),
            Message("user", hidden),
            Message("assistant", "Mira looks up."),
        ]
    )
    chunks = await collect(OfflineProvider(language), request)
    text = text_of(chunks)

    assert "SECRET" not in text and "[" not in text
    lines = [continuation(language, random.Random(seed)) for seed in range(50)]
    assert text in lines
    assert {"en": "Nothing changes.", "es": "Nada cambia.", "zh": "什么也没有改变。"}[
        language
    ] in text
    assert [c.choices for c in chunks if c.choices]


async def test_each_continue_of_a_longer_text_may_say_something_else():
    said = set()
    for length in range(1, 12):
        request = ChatRequest([Message("assistant", "Rain. " * length)])
        said.add(text_of(await collect(OfflineProvider("en"), request)))

    assert len(said) > 1
