"""Example chats (step 4 of seed 004 "提示词组装顺序"): ``<START>`` blocks split into messages.

Parsing the creator's example text is its own small grammar (speaker prefixes, continuation
lines), so it sits apart from the assembly that places the resulting blocks.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.prompt_blocks import PromptBlock, add_block
from engine.world import Entry

EXAMPLE_MARKER = "[Example Chat]"
_START = re.compile(r"<START>", re.IGNORECASE)


def parse_examples(text: str, user: str, char: str) -> list[list[tuple[str, str]]]:
    """Split example text on ``<START>`` into chats of (role, raw text) messages.

    Lines starting ``{{user}}:`` or ``<user name>:`` are the user's, ``{{char}}:`` or
    ``<character name>:`` the assistant's; any other line continues the message before it, or,
    before the first speaker, becomes a system note. Text without speakers is one system note.
    """
    prefixes = [("{{user}}:", "user"), ("{{char}}:", "assistant")]
    if user:
        prefixes.append((f"{user}:", "user"))
    if char:
        prefixes.append((f"{char}:", "assistant"))
    prefixes.sort(key=lambda p: -len(p[0]))
    chats: list[list[tuple[str, str]]] = []
    for chunk in _START.split(text):
        messages: list[tuple[str, str]] = []
        for line in chunk.splitlines():
            role, rest = _speaker(line, prefixes)
            if role is None:
                if messages:
                    messages[-1] = (messages[-1][0], messages[-1][1] + "\n" + line)
                elif line.strip():
                    messages.append(("system", line))
            elif messages and messages[-1][0] == role and role != "system":
                messages[-1] = (role, messages[-1][1] + "\n" + rest)
            else:
                messages.append((role, rest))
        messages = [(role, body.strip()) for role, body in messages if body.strip()]
        if messages:
            chats.append(messages)
    return chats


def add_examples(
    blocks: list[PromptBlock],
    step: int,
    entry: Entry,
    names: tuple[str, str],
    expand: Callable[[str], str],
) -> None:
    label = _entry_label(entry)
    for chat in parse_examples(entry.content, *names):
        add_block(blocks, step, label, "system", EXAMPLE_MARKER, entry.id)
        for role, text in chat:
            add_block(blocks, step, label, role, expand(text), entry.id)


def _entry_label(entry: Entry) -> str:
    return entry.name or entry.id


def _speaker(line: str, prefixes: list[tuple[str, str]]) -> tuple[str | None, str]:
    stripped = line.lstrip()
    folded = stripped.lower()
    for prefix, role in prefixes:
        if folded.startswith(prefix.lower()):
            return role, stripped[len(prefix) :].strip()
    return None, line
