"""engine.memory: session-memory blocks, written once per block and appended, never rewritten."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from engine.llm.base import ChatRequest, Chunk, ProviderError
from engine.llm.offline import OfflineProvider
from engine.llm.scripted import ScriptedProvider, ScriptedReply
from engine.memory import (
    MAX_LINES,
    append_block,
    apply_work,
    due_work,
    extractive_summary,
    messages_due,
    summarise,
    write_work,
)
from engine.session import Message, SessionState
from engine.world import load_world

WORLD = load_world({"name": "Salt road", "entries": [{"id": "n", "content": "Narrate."}]})


def chat(count: int) -> list[tuple[int, Message]]:
    """(position, message) pairs: the player's steps and the narrator's replies."""
    out = []
    for n in range(count):
        if n % 2 == 0:
            out.append((n, Message("user", f"Step {n}")))
        else:
            out.append((n, Message("assistant", f"You walk on ({n}). The salt crunches.")))
    return out


class Failing:
    name, model = "openai", "m"

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        raise ProviderError("down", retryable=False)
        yield Chunk()  # pragma: no cover


def test_a_block_goes_after_the_memory_which_stays_byte_for_byte() -> None:
    edited = "Kai owes  the ferryman.\n  (my note)  "

    assert (
        append_block(edited, " New block.\n")
        == "Kai owes  the ferryman.\n  (my note)\n\nNew block."
    )
    assert append_block("", "First.") == "First."
    assert append_block(edited, "   ") == edited


def test_messages_are_due_at_the_count_and_never_with_zero() -> None:
    assert [messages_due(n, 4) for n in (3, 4, 5)] == [False, True, True]
    assert messages_due(1000, 0) is False


def test_the_extractive_block_takes_each_replys_first_sentence_without_directives() -> None:
    passages = [
        Message("user", "I pay him. [gold: -5]"),
        Message("assistant", "He pockets the coin [gold: -5] and nods. Then he rows."),
        Message("assistant", "<think>plan</think>Fog rises!  It is cold."),
    ]

    assert extractive_summary(passages) == "He pockets the coin and nods.\nFog rises!"


def test_the_extractive_block_keeps_at_most_max_lines_first_and_last_included() -> None:
    passages = [Message("assistant", f"Line {n}.") for n in range(40)]

    lines = extractive_summary(passages).splitlines()

    assert len(lines) == MAX_LINES
    assert (lines[0], lines[-1]) == ("Line 0.", "Line 39.")


def test_a_model_writes_the_block_without_directives() -> None:
    provider = ScriptedProvider([ScriptedReply("Kai crossed the salt. [gold: 99]")])

    done = asyncio.run(summarise([Message("assistant", "You walk.")], provider, memory="Old."))

    assert (done.text, done.source) == ("Kai crossed the salt.", "model")


def test_no_model_a_failing_one_or_the_offline_one_give_the_extractive_block() -> None:
    passages = [Message("assistant", "You walk. The salt crunches.")]

    for provider in (None, Failing(), OfflineProvider()):
        done = asyncio.run(summarise(passages, provider))
        assert (done.text, done.source) == ("You walk.", "extractive")


def test_plain_work_covers_the_messages_after_the_mark() -> None:
    state = SessionState.initial(WORLD)
    state.memory_mark = 3

    work = due_work(WORLD, state, chat(10), every=6)

    assert work is not None
    assert (work.reason, work.upto, len(work.passages)) == ("messages", 9, 6)
    assert due_work(WORLD, state, chat(9), every=6) is None
    assert due_work(WORLD, state, chat(5), ending=True) is not None


def test_applying_the_same_work_twice_writes_once() -> None:
    state = SessionState.initial(WORLD)
    work = due_work(WORLD, state, chat(6), every=6)
    assert work is not None
    blocks = asyncio.run(write_work(WORLD, work, None))

    assert apply_work(WORLD, state, work, blocks) is True
    assert apply_work(WORLD, state, work, blocks) is False
    assert state.session_memory == "You walk on (1).\nYou walk on (3).\nYou walk on (5)."
    assert state.memory_mark == 5
