"""Tidying text around removed directives (seed 000 "Cómo procesa el motor la salida de la IA").

The tidying rules are listed in `engine.stream_filter`'s docstring; both forms follow them so
the streamed text equals the batch parser's, however the reply was split.
"""

from __future__ import annotations

import re
from typing import Final

MARK: Final = "\x00"  # a removal, inside the writer's pending whitespace (never visible text)


# --- the clean text ----------------------------------------------------------------------

_FIRST_SPACE: Final = re.compile(f"[^{MARK}]+")
_BLANK_RUN: Final = re.compile(r"\n[^\S\n]*\n(?:[^\S\n]*\n)+")


class TextWriter:
    """Collect visible text and removals; emit tidied text as soon as it can no longer change.

    Whitespace after the last visible character is held back (with the removals in it) until the
    next visible character decides how it is tidied, so the output never depends on how the input
    was split.
    """

    __slots__ = ("out", "pending", "started")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.pending: list[str] = []
        self.started = False

    def text(self, piece: str) -> None:
        if not piece:
            return
        stripped = piece.lstrip()
        if not stripped:
            self.pending.append(piece)
            return
        lead = len(piece) - len(stripped)
        if lead:
            self.pending.append(piece[:lead])
        body = stripped.rstrip()
        tail = len(stripped) - len(body)
        if body.count("\n") >= 3:  # blank lines between visible characters of this piece
            body = _BLANK_RUN.sub("\n\n", body)
        if self.started:
            if self.pending:
                gap = "".join(self.pending)
                self.out.append(_before(_tidy(gap), body) if MARK in gap else _tidy(gap))
        else:
            self.started = True
        self.pending.clear()
        self.out.append(body)
        if tail:
            self.pending.append(stripped[-tail:])

    def removal(self) -> None:
        self.pending.append(MARK)

    def cut(self, piece: str) -> None:
        """``text(piece)`` then ``removal()``, in one call for the batch parser's hot loop."""
        stripped = piece.lstrip()
        if not stripped:
            if piece:
                self.pending.append(piece)
            self.pending.append(MARK)
            return
        body = stripped.rstrip()
        lead = len(piece) - len(stripped)
        tail = len(stripped) - len(body)
        if body.count("\n") >= 3:
            body = _BLANK_RUN.sub("\n\n", body)
        if self.started:
            pending = self.pending
            if pending:
                if lead:
                    pending.append(piece[:lead])
                gap = pending[0] if len(pending) == 1 else "".join(pending)
                self.out.append(_before(_tidy(gap), body) if MARK in gap else _tidy(gap))
            elif lead:
                self.out.append(_tidy(piece[:lead]))
        else:
            self.started = True
        self.out.append(body)
        self.pending = [stripped[-tail:], MARK] if tail else [MARK]

    def finish(self) -> None:
        self.pending.clear()

    def take(self) -> str:
        emitted = "".join(self.out)
        self.out.clear()
        return emitted


def clean_text(pieces: list[str]) -> str:
    """The clean text of pieces separated by removals: what a `TextWriter` fed ``pieces[0]``,
    a removal, ``pieces[1]``, … would emit in all (the batch parser's single tidy pass)."""
    out: list[str] = []
    append = out.append
    pending = ""  # whitespace and removals since the last visible character
    started = False
    last = len(pieces) - 1
    for number, piece in enumerate(pieces):
        stripped = piece.lstrip()
        if stripped:
            body = stripped.rstrip()
            tail = len(stripped) - len(body)
            lead = len(piece) - len(stripped)
            if started:
                gap = pending + piece[:lead] if lead else pending
                if gap:
                    tidied = _TIDIED.get(gap)
                    if tidied is None:
                        tidied = _tidy(gap)
                    append(_before(tidied, body) if tidied and MARK in gap else tidied)
            else:
                started = True
            append(body)
            pending = stripped[-tail:] if tail else ""
        else:
            pending += piece
        if number != last:
            pending += MARK
    # Blank lines inside the pieces: a run of whitespace lies within one piece or one (already
    # tidied) gap, so collapsing the joined text once equals the writer's piece by piece.
    return _BLANK_RUN.sub("\n\n", "".join(out))


_TIDIED: Final[dict[str, str]] = {}


# Closing punctuation: a removal just before one takes the space before it along, so "You find
# gold [gold: +50]." reads "You find gold." and "你被击中了 [health: -5]。" reads "你被击中了。".
_CLOSERS: Final = frozenset(".,;:!?…)]}»”’。，、；：！？）】」』")


def _before(tidied: str, body: str) -> str:
    """A tidied gap that held a removal, given the visible text after it."""
    if tidied and body[0] in _CLOSERS and "\n" not in tidied:
        return ""
    return tidied


def _tidy(gap: str) -> str:
    """Tidy the whitespace and removals between two visible characters (see module docstring)."""
    if MARK not in gap:
        return gap if gap.count("\n") < 3 else _BLANK_RUN.sub("\n\n", gap)
    tidied = _TIDIED.get(gap)
    if tidied is None:
        tidied = _tidy_removals(gap)
        if len(gap) <= 16 and len(_TIDIED) < 1024:  # short gaps recur ("\x00\n", " \x00\n\n")
            _TIDIED[gap] = tidied
    return tidied


def _tidy_removals(gap: str) -> str:
    if MARK not in gap:
        return gap if gap.count("\n") < 3 else _BLANK_RUN.sub("\n\n", gap)
    lines = gap.split("\n")
    if len(lines) == 1:
        match = _FIRST_SPACE.search(gap)
        return match.group() if match else ""
    first, last = lines[0], lines[-1]
    kept = ["" if MARK in first else first]
    kept.extend(line for line in lines[1:-1] if MARK not in line)
    kept.append(last[: last.index(MARK)] if MARK in last else last)
    tidied = "\n".join(kept)
    return tidied if tidied.count("\n") < 3 else _BLANK_RUN.sub("\n\n", tidied)
