"""The clean text of a whole reply, for the batch parser (seed 000 step 6).

`engine.text_tidy.clean_text` defines the result; this is the same reading with each distinct
gap (the whitespace and removals between two visible characters) tidied once, both ways the
next character can decide it, because a long reply repeats a handful of gaps thousands of
times. `tests/engine/test_directive_fastpath.py` checks the two agree.
"""

from __future__ import annotations

from typing import Final

from engine.text_tidy import _BLANK_RUN, _CLOSERS, MARK, _before, _tidy

_GAPS: Final[dict[str, tuple[str, str]]] = {}
_GAPS_LIMIT: Final = 1024  # distinct gaps remembered (then new ones are tidied each time)
_CLOSER: Final = "."  # any character of `engine.text_tidy._CLOSERS`, to learn the other reading


def clean_pieces(pieces: list[str]) -> str:
    """``clean_text(pieces)``: the text between removals, tidied and joined."""
    out: list[str] = []
    gaps = _GAPS
    pending = ""  # whitespace and removals since the last visible character
    started = False
    for piece in pieces:
        body = piece.strip()
        if not body:
            pending += piece + MARK
            continue
        # The first visible character is the first occurrence of ``body[0]``: what precedes it
        # is whitespace. Found with one character search instead of a second stripped copy.
        lead = piece.find(body[0])
        end = lead + len(body)
        if started:
            gap = pending + piece[:lead] if lead else pending
            known = gaps.get(gap)
            if known is None:
                known = _learn(gap)
            out.append(known[1] if body[0] in _CLOSERS else known[0])
        else:
            started = True
        if body.find("\n") >= 0 and body.count("\n") >= 3:  # blank lines (a gap is tidied)
            body = _BLANK_RUN.sub("\n\n", body)
        out.append(body)
        pending = piece[end:] + MARK if end < len(piece) else MARK
    return "".join(out)


def _learn(gap: str) -> tuple[str, str]:
    """The gap tidied before an ordinary character and before a closing one."""
    tidied = _tidy(gap)
    known = (tidied, _before(tidied, _CLOSER) if tidied and MARK in gap else tidied)
    if len(_GAPS) < _GAPS_LIMIT:
        _GAPS[gap] = known
    return known
