"""A talk turn as speech bubbles (seed 001 "NPC que conversan"; GAME_MASTER.md GM-P-3..9).

When the narrator is silent or only adds an aside (``engine.gm.narrator``), the reply the player
reads is the turn's bubbles, one ``Name: “words”`` line each, and at most a short aside. The
play page draws those as speech bubbles — the speaker's name, the gesture in italics above the
words, each NPC in its own bubble, also when two talk to each other — and the aside under them.
``speech_of`` gives that structure when the narration is exactly those lines (and the aside).
A full narration (GM-P-4: the chat begins, a roll waits, more than talk happened) is kept whole
as ``narration``, drawn above the bubbles whose words it does not already quote: the actor reads
what the NPC said as everyone present does (issue 33 §4), and nothing the narrator wrote is
ever hidden.
"""

from __future__ import annotations

import re
from typing import Any

from engine.gm.mentions import fold
from engine.gm.result import GMActionResult
from engine.gm.talkbook import talkbook

_NOT_WORD = re.compile(r"[\W_]+")


def _bubbles(done: GMActionResult) -> list[dict[str, str]]:
    out = []
    for event in done.events:
        for bubble in event.data.get("bubbles") or []:
            text = str(bubble.get("text") or "").strip() if isinstance(bubble, dict) else ""
            if text:
                name = str(bubble.get("name") or bubble.get("speaker") or "")
                gesture = str(bubble.get("gesture") or "").strip()
                out.append({"name": name[:1].upper() + name[1:], "text": text, "gesture": gesture})
    return out


def speech_of(done: GMActionResult) -> dict[str, Any]:
    """``{"bubbles": [{name, text, gesture}], "aside": str}``, with ``"narration"`` before
    them on a full narration; ``{}`` for prose without anyone speaking that it does not quote."""
    bubbles = _bubbles(done)
    if not bubbles:
        return {}
    book = talkbook(done.language)
    lines = [book.t("reply_line", speaker=b["name"], text=b["text"]) for b in bubbles]
    told = [line for line in done.narration.strip().splitlines() if line.strip()]
    if told[: len(lines)] != lines:
        return _after_narration(done.narration.strip(), bubbles)
    aside = "\n".join(told[len(lines) :]).strip()
    return {"bubbles": bubbles, "aside": aside}


def _key(text: str) -> str:
    return " " + _NOT_WORD.sub(" ", fold(text)).strip() + " "


def _after_narration(prose: str, bubbles: list[dict[str, str]]) -> dict[str, Any]:
    """The prose, then each bubble whose words it does not already quote ({} when it quotes
    them all: the prose alone says everything)."""
    said = _key(prose)
    unsaid = [b for b in bubbles if _key(b["text"]) not in said]
    return {"narration": prose, "bubbles": unsaid, "aside": ""} if unsaid else {}
