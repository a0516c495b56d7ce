"""The session memory: what happened, summarised one block at a time (seed 004 prompt step 9
"会话记忆"; seed 003 "resúmenes y recapitulaciones de sesión"; issue 13 §1).

A block is written when one is due, never turn by turn: in a plain world after ``every``
messages without one (``DEFAULT_EVERY``), in a game-master world at the end of a scene
(``engine.gm.recaps``), and in both when the player ends the session. A block is appended after
whatever the memory already holds, so

- the prompt above the chat history (steps 1-9) stays byte-identical from one block to the
  next, and the provider's prompt cache keeps hitting it (``bench/memory.py`` measures it);
- a player's or a creator's edit of the memory is kept: the next block goes after it.

The summary comes from the session's model through any ``engine.llm`` provider. Without one
(offline, replay), on a provider error or an empty reply, it is extractive: the first sentence
of each narration, at most ``MAX_LINES`` of them spread over the block. Nothing here reads a
clock or draws a random number: the same passages give the same block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.gm.recaps import (
    SceneRecord,
    ended_scenes,
    remember_scenes,
    scene_heading,
    scene_passages,
    scenes_since,
)
from engine.llm.base import ChatRequest, Provider, ProviderError, Usage
from engine.session import Message, SessionState
from engine.world import WorldDefinition

DEFAULT_EVERY = 40  # messages without a block before one is due (plain worlds)
MAX_SENTENCE = 300  # characters kept of one extractive sentence
MAX_LINES = 12  # sentences in one extractive block
MAX_BLOCK = 2000  # characters of a model's block; the rest is cut at a sentence
SUMMARY_TOKENS = 400
BLOCK_SEPARATOR = "\n\n"
NO_MODEL = frozenset({"offline", "replay"})  # providers that do not stand for a model here
SUMMARY_PROMPT = (
    "You keep the memory of a role-play session. Summarise the new events for the narrator "
    "who continues the story: who did what, what was promised, found or lost, what is still "
    "open. Plain prose in the language of the story, at most 150 words, no directives, no "
    "bracketed commands, no commentary."
)
_SENTENCE = re.compile(r"^(.+?[.!?…。！？])(\s|$)", re.S)
_DIRECTIVE = re.compile(
    r"<(think|thinking|UpdateVariable)>.*?</\1>|\[[^\[\]\n]*\]|<[^<>\n]*>", re.S | re.I
)


@dataclass(frozen=True)
class Summary:
    """One block: its text, where it came from (``model`` or ``extractive``) and its usage."""

    text: str
    source: str = "extractive"
    usage: Usage = field(default_factory=Usage)


def messages_due(count: int, every: int = DEFAULT_EVERY) -> bool:
    """Whether ``count`` messages without a block call for one (never when ``every`` ≤ 0)."""
    return every > 0 and count >= every


def append_block(memory: str, block: str) -> str:
    """The memory with ``block`` after what it holds, which stays byte for byte (an edit too);
    an empty block leaves it as it is."""
    block = block.strip()
    if not block:
        return memory
    head = memory.rstrip()
    return f"{head}{BLOCK_SEPARATOR}{block}" if head else block


def extractive_summary(passages: Sequence[Message]) -> str:
    """The first sentence of each narrator's message, one per line, at most ``MAX_LINES``
    (spread evenly, first and last kept). Messages of other roles are skipped; bracketed
    directives and tags are taken out, so a block never carries one."""
    lines = [_first_sentence(m.content) for m in passages if m.role == "assistant"]
    lines = [line for line in lines if line]
    if len(lines) > MAX_LINES:
        step = (len(lines) - 1) / (MAX_LINES - 1)
        lines = [lines[round(n * step)] for n in range(MAX_LINES)]
    return "\n".join(lines)


def _first_sentence(text: str) -> str:
    clean = " ".join(_DIRECTIVE.sub(" ", text).split())
    match = _SENTENCE.match(clean)
    return (match.group(1) if match else clean)[:MAX_SENTENCE].strip()


def summary_request(
    passages: Sequence[Message], *, memory: str = "", model: str = "", heading: str = ""
) -> ChatRequest:
    """The request that asks a model for the next block (the memory so far is context only)."""
    transcript = "\n".join(f"{m.role}: {m.content}" for m in passages if m.content.strip())
    told = f"Memory so far:\n{memory.strip() or '(empty)'}\n\n"
    if heading:
        told += f"Where and when: {heading}\n\n"
    told += f"New events:\n{transcript}"
    return ChatRequest(
        messages=[Message("system", SUMMARY_PROMPT), Message("user", told)],
        model=model,
        max_tokens=SUMMARY_TOKENS,
        temperature=0.2,
    )


async def summarise(
    passages: Sequence[Message],
    provider: Provider | None,
    *,
    memory: str = "",
    model: str = "",
    heading: str = "",
) -> Summary:
    """The next block for ``passages``: the model's through ``provider``, else extractive.

    A provider error, an empty reply, no provider or the offline and replay ones give the
    extractive block, so a summary never fails; an empty ``passages`` gives an empty block.
    """
    fallback = extractive_summary(passages)
    if (
        provider is None
        or provider.name in NO_MODEL
        or not any(m.content.strip() for m in passages)
    ):
        return Summary(fallback)
    request = summary_request(passages, memory=memory, model=model, heading=heading)
    text, usage = "", Usage()
    try:
        async for chunk in provider.stream(request):
            text += chunk.text
            if chunk.usage is not None:
                usage = chunk.usage
    except ProviderError:
        return Summary(fallback)
    text = _trim(re.sub(r"[ \t]{2,}", " ", _DIRECTIVE.sub("", text)).strip())
    if not text:
        return Summary(fallback, usage=usage)
    return Summary(text, "model", usage)


def _trim(text: str) -> str:
    """At most ``MAX_BLOCK`` characters, cut after the last whole sentence that fits."""
    if len(text) <= MAX_BLOCK:
        return text
    head = text[:MAX_BLOCK]
    cut = max(head.rfind(mark) for mark in ".!?…。！？")
    return head[: cut + 1] if cut > 0 else head.rstrip()


def with_heading(heading: str, text: str) -> str:
    """A block under its heading (a game-master scene's place and time)."""
    text = text.strip()
    if not heading:
        return text
    return f"{heading}\n{text}" if text else ""


# --- what is due, and writing it ----------------------------------------------------------


@dataclass
class MemoryWork:
    """One summary to write: ``reason`` is ``messages``, ``scene`` or ``session``; a plain
    world's ``passages`` reach the message at ``upto``; a game-master world's ``scenes`` reach
    the event ``upto_event``."""

    reason: str
    character_id: str | None = None
    passages: list[Message] = field(default_factory=list)
    upto: int = -1
    scenes: list[SceneRecord] = field(default_factory=list)
    upto_event: int = 0


def due_work(
    world: WorldDefinition,
    state: SessionState,
    messages: Sequence[tuple[int, Message]],
    *,
    character_id: str | None = None,
    every: int = DEFAULT_EVERY,
    ending: bool = False,
) -> MemoryWork | None:
    """The summary due now, or None: ``messages`` are (position, message) pairs, oldest first;
    ``ending`` is the player ending the session (whatever the memory does not cover yet)."""
    gm = world.game_master
    if gm is not None:
        who = character_id or (gm.characters[0].id if gm.characters else None)
        if who is None or state.gm is None:
            return None
        find = scenes_since if ending else ended_scenes
        scenes = find(state.gm, who, state.memory_event)
        if not scenes:
            return None
        reason = "session" if ending else "scene"
        return MemoryWork(reason, who, scenes=scenes, upto_event=scenes[-1].last_event)
    fresh = [(p, m) for p, m in messages if p > state.memory_mark and m.content.strip()]
    if not fresh or not (ending or messages_due(len(fresh), every)):
        return None
    reason = "session" if ending else "messages"
    return MemoryWork(reason, passages=[m for _, m in fresh], upto=fresh[-1][0])


async def write_work(
    world: WorldDefinition,
    work: MemoryWork,
    provider: Provider | None,
    *,
    memory: str = "",
    model: str = "",
) -> list[Summary]:
    """The blocks of ``work``: one for the messages, or one per scene under its heading."""
    gm = world.game_master
    if gm is None or work.character_id is None:
        return [await summarise(work.passages, provider, memory=memory, model=model)]
    blocks = []
    for scene in work.scenes:
        heading = scene_heading(gm, scene, world.language)
        passages = scene_passages(gm, scene, work.character_id, world.language)
        done = await summarise(passages, provider, memory=memory, model=model, heading=heading)
        blocks.append(Summary(with_heading(heading, done.text), done.source, done.usage))
    return blocks


def apply_work(
    world: WorldDefinition, state: SessionState, work: MemoryWork, blocks: Sequence[Summary]
) -> bool:
    """Append the blocks to ``state``'s memory, write the NPC memories of the scenes and move
    the marks on; False (and nothing changed) when the memory already reaches that far."""
    gm = world.game_master
    if gm is not None and work.character_id is not None:
        if state.gm is None or state.memory_event >= work.upto_event:
            return False
        remember_scenes(gm, state.gm, work.character_id, work.scenes, world.language)
        state.memory_event = work.upto_event
    else:
        if state.memory_mark >= work.upto:
            return False
        state.memory_mark = work.upto
    for block in blocks:
        state.session_memory = append_block(state.session_memory, block.text)
    return True
