"""The clean text of a whole reply, for the batch parser (seed 000 step 6).

`engine.text_tidy.clean_text` defines the result; this is the same reading with each distinct
gap (the whitespace and removals between two visible characters) tidied once, both ways the
next character can decide it, because a long reply repeats a handful of gaps thousands of
times. `tests/engine/test_directive_fastpath.py` checks the two agree.
"""

from __future__ import annotations

from engine.text_tidy import _BLANK_RUN, _CLOSERS, MARK, _before, _tidy

_GAPS: dict[str, tuple[str, str]] = {}
_GAPS_LIMIT = 1024  # distinct gaps remembered (then new ones are tidied each time)
_CLOSER = "."  # any character of `engine.text_tidy._CLOSERS`, to learn the other reading


def clean_pieces(pieces: list[str]) -> str:
    """``clean_text(pieces)``: the text between removals, tidied and joined."""
    out: list[str] = []
    append = out.append
    gaps = _GAPS
    pending = ""  # whitespace and removals since the last visible character
    started = False
    for piece in pieces:
        stripped = piece.lstrip()
        if not stripped:
            pending += piece + MARK
            continue
        body = stripped.rstrip()
        if started:
            lead = len(piece) - len(stripped)
            gap = pending + piece[:lead] if lead else pending
            known = gaps.get(gap)
            if known is None:
                known = _learn(gap)
            append(known[1] if body[0] in _CLOSERS else known[0])
        else:
            started = True
        append(body)
        pending = stripped[len(body) :] + MARK
    return _BLANK_RUN.sub("\n\n", "".join(out))


def _learn(gap: str) -> tuple[str, str]:
    """The gap tidied before an ordinary character and before a closing one."""
    tidied = _tidy(gap)
    known = (tidied, _before(tidied, _CLOSER) if tidied and MARK in gap else tidied)
    if len(_GAPS) < _GAPS_LIMIT:
        _GAPS[gap] = known
    return known
