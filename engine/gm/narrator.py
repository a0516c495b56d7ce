"""How much the narrator says, enforced by the server without another model call (seed 001 "NPC
que conversan": "en silencio si es charla sin más … una acotación de 15 palabras como mucho si
algo pequeño cambia … quita las frases que el narrador ya ha dicho en los últimos turnos";
GAME_MASTER.md GM-P-4, GM-P-5, GM-P-6, GM-P-8).

``narrate`` settles the master's narration (live, scripted or replayed; the offline master's
narration is the engine's template and its talk turns are already the NPC's bubble alone):

- it trims it and drops each sentence the narrator already said to this character in the last
  ``RECENT`` turns it narrated for him (compared folded: case, accents, spacing and punctuation
  aside; engine moves and the offline master's templates are not counted); a sentence
  with quoted words is someone speaking, never dropped; when every sentence was said, the last
  one stays, so that a turn is never blank without bubbles;
- in a talk turn whose NPC spoke in bubbles, it chooses per GM-P-4..6: *full* narration when the
  chat begins (no ongoing talk), a roll or a check waits, or anything but talk and small changes
  happened (a combat, a move, a hook…); an *aside* of at most ``ASIDE_WORDS`` words (Chinese:
  ``ASIDE_CHARS`` characters) after the bubbles when something small changes (a gift, an insult,
  a purchase, an errand given, a farewell); *silence* otherwise: the bubbles alone, one line
  ``Name: “words”`` each, as the offline talk shows them;
- it records what it showed (the narrator's part) in ``GMState.narrated`` for the next turns.
"""

from __future__ import annotations

import re
from typing import Literal

from engine.gm.mentions import fold
from engine.gm.result import GMActionResult
from engine.gm.state import GMState
from engine.gm.talk_turn import TalkTurn
from engine.gm.talk_voice import sentences
from engine.gm.talkbook import talkbook

RECENT = 3  # the narrated turns per character whose sentences are not said again
ASIDE_WORDS = 15
ASIDE_CHARS = 30  # the aside's length in Chinese, which has no spaces between words
TALK_KINDS = {"action", "talk", "master"}  # what a turn of plain talk logs
SMALL_KINDS = {"give", "buy", "offer"}  # a gift, a purchase, an errand given
SMALL_WORDS = {"insult", "farewell"}
Mode = Literal["silent", "aside", "full"]
_QUOTE = re.compile(r"[\"“”«»「」]")
_NOT_WORD = re.compile(r"[\W_]+")


def narrate(
    state: GMState,
    character_id: str,
    prose: str,
    talk: TalkTurn | None = None,
    done: GMActionResult | None = None,
) -> str:
    """The narration the player receives for the master's ``prose`` (see the module)."""
    fresh = fresh_prose(state, character_id, prose)
    bubbles = bubble_lines(done, talk.script.language) if talk and done else []
    if not bubbles or talk is None or done is None:
        remember_said(state, character_id, fresh)
        return fresh
    mode = talk_mode(talk, done)
    if mode == "full":
        remember_said(state, character_id, fresh)
        return fresh
    aside = cap_aside(fresh, talk.script.language) if mode == "aside" else ""
    remember_said(state, character_id, aside)
    return "\n".join(line for line in [*bubbles, aside] if line)


def _key(sentence: str) -> str:
    return _NOT_WORD.sub(" ", fold(sentence)).strip()


def fresh_prose(state: GMState, character_id: str, prose: str) -> str:
    """``prose`` trimmed, without the sentences said to him in his last turns."""
    said = {_key(s) for past in state.narrated.get(character_id, []) for s in sentences(past)}
    gap = "" if re.search(r"[\u3400-\u9fff]", prose) else " "
    paragraphs, last = [], ""
    for paragraph in prose.strip().splitlines():
        kept = []
        for sentence in sentences(paragraph):
            last = sentence
            if _QUOTE.search(sentence) or _key(sentence) not in said:
                kept.append(sentence)
        if kept:
            paragraphs.append(gap.join(kept))
    return "\n".join(paragraphs) if paragraphs else last


def remember_said(state: GMState, character_id: str, shown: str) -> None:
    """Keep what the narrator showed him, his last ``RECENT`` turns only."""
    if shown.strip():
        state.narrated[character_id] = [*state.narrated.get(character_id, []), shown][-RECENT:]


def bubble_lines(done: GMActionResult | None, language: str) -> list[str]:
    """The turn's speech bubbles as the player reads them (``Name: “words”``)."""
    book, out = talkbook(language), []
    for event in done.events if done else []:
        for bubble in event.data.get("bubbles") or [] if event.kind == "master" else []:
            text = str(bubble.get("text") or "").strip() if isinstance(bubble, dict) else ""
            if text:
                name = str(bubble.get("name") or bubble.get("speaker") or "")
                out.append(book.t("reply_line", speaker=name[:1].upper() + name[1:], text=text))
    return out


def talk_mode(talk: TalkTurn, done: GMActionResult) -> Mode:
    """GM-P-4..6: silence, an aside or full narration for a talk turn."""
    kinds = {event.kind for event in done.events}
    begins = talk.script.kind("B") != "ongoing"
    if begins or done.rolls or done.pending or kinds - TALK_KINDS - SMALL_KINDS:
        return "full"
    small = kinds & SMALL_KINDS or SMALL_WORDS & set(talk.script.said) or talk.script.closing
    return "aside" if small else "silent"


def cap_aside(prose: str, language: str) -> str:
    """At most ``ASIDE_WORDS`` words: the first sentence, cut with "…" if still too long."""
    first = next(iter(sentences(prose)), "")
    if language == "zh" or re.search(r"[\u3400-\u9fff]", first):
        return first if len(first) <= ASIDE_CHARS else first[: ASIDE_CHARS - 1] + "…"
    words = first.split()
    if len(words) <= ASIDE_WORDS:
        return first
    return " ".join(words[:ASIDE_WORDS]).rstrip(",;:") + "…"
