"""Where a directive or a tag starts and ends (seed 000 "Sintaxis de directivas").

These are the lexical rules listed in `engine.stream_filter`'s docstring, shared by the batch
parser (`engine.directive_extractor`) and the `StreamFilter`; each reads text it may only have
part of (``final`` says whether more can come), so both reach the same decisions.
"""

from __future__ import annotations

import re
from typing import Any, Final

from engine.state import NameIndex, name_key

MAX_HEAD: Final = 160
MAX_BODY: Final = 16384
AUDIO: Final = "audio"


_HEAD_TERMINATOR: Final = re.compile(r"[:\[\]\n]")
_STRUCTURE: Final = re.compile(r'[\[\]{}"\n]')
_STRING_RUN: Final = re.compile(r'[^"\\\n]*')


# The blocks Fabula's own prompts are written in (engine.prompt_formats, engine.prompt_regions,
# the directors' answers of engine.gm.directors): a model that echoes one, or writes one of its
# own, shows the player nothing of it (issue 37 §5). Removed like a thinking block, from the tag
# to its closing tag or the end of the reply; a closing tag alone is removed too.
ENGINE_BLOCKS: Final = (
    "current-state",
    "persona",
    "behavior-rules",
    "directive-syntax",
    "audio-tracks",
    "story-summary",
    "session-memory",
    "synopsis",
    "route",
    "ooc",
    "notes",
)
_TAG_NAMES: Final = ("think", "thinking", "updatevariable", *ENGINE_BLOCKS)
_NAMES: Final = "|".join(re.escape(n) for n in sorted(_TAG_NAMES, key=len, reverse=True))
TAG_OPEN: Final = re.compile(rf"<({_NAMES})(\s[^<>]{{0,300}})?>", re.IGNORECASE)
_ENGINE_NAMES: Final = "|".join(re.escape(n) for n in ENGINE_BLOCKS)
STRAY_CLOSE: Final = re.compile(rf"</({_ENGINE_NAMES})\s*>", re.IGNORECASE)
# An opening (or closing) tag cut short by the end of the data so far: a proper prefix of a tag
# name, or a whole name whose attributes have not reached their '>' yet.
_TAG_PREFIXES: Final = sorted({name[:n] for name in _TAG_NAMES for n in range(len(name))}, key=len)
_TAG_PARTIAL: Final = re.compile(
    rf"</?(?:{'|'.join(re.escape(p) for p in reversed(_TAG_PREFIXES))}|(?:{_NAMES})"
    r"(?:\s[^<>]{0,300})?)\Z",
    re.IGNORECASE,
)
THINK_CLOSE: Final = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
UPDATE_CLOSE: Final = re.compile(r"</updatevariable>", re.IGNORECASE)
CLOSE_PATTERNS: Final = {
    "think": THINK_CLOSE,
    "thinking": THINK_CLOSE,
    "updatevariable": UPDATE_CLOSE,
    **{n: re.compile(rf"</{re.escape(n)}\s*>", re.IGNORECASE) for n in ENGINE_BLOCKS},
}


# scan_head / BodyScan outcomes
TEXT: Final = 0
MORE: Final = 1
FOUND: Final = 2
CLOSE: Final = 2
ABORT: Final = 3

Target = tuple[str, tuple[str, ...]]
"""(variable id or AUDIO, dot-path segments as written)"""


# --- heads -------------------------------------------------------------------------------


_UNSEEN: Final[Any] = object()
MEMO_LIMIT: Final = 4096  # entries in a world's memo of heads and short directives (then cleared)


def resolve_head(index: NameIndex, head: str) -> Target | None:
    """The variable (or audio) and dot path a directive head names; None when it names nothing."""
    memo = index.memo
    found = memo.get(head, _UNSEEN)
    if found is _UNSEEN:
        found = _resolve_head(index, head)
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        memo[head] = found
    return found  # type: ignore[no-any-return]


def _resolve_head(index: NameIndex, head: str) -> Target | None:
    text = head.strip()
    key = text.casefold()
    if key == AUDIO:
        return AUDIO, ()
    found = index.ids.get(key)
    if found is not None:
        return found, ()
    if "." not in text:
        return None
    parts = text.split(".")
    for cut in range(1, len(parts)):
        found = index.ids.get(name_key(".".join(parts[:cut])))
        if found is not None:
            return found, tuple(part.strip() for part in parts[cut:])
    return None


def _head_viable(index: NameIndex, partial: str) -> bool:
    """Whether a head still without its ``:`` could grow into one that `resolve_head` accepts."""
    key = partial.lstrip().casefold()
    if key in index.prefixes or AUDIO.startswith(key):
        return True
    bare = key.rstrip()
    if bare in index.ids or bare == AUDIO:
        return True
    parts = key.split(".")
    return any(".".join(parts[:cut]).rstrip() in index.ids for cut in range(1, len(parts)))


def scan_head(
    index: NameIndex, text: str, start: int, final: bool
) -> tuple[int, Target | None, int]:
    """Decide the ``[`` at ``start``: (TEXT | MORE | FOUND, target, index after the colon)."""
    window_end = start + 2 + MAX_HEAD
    match = _HEAD_TERMINATOR.search(text, start + 1, window_end)
    if match is None:
        if final or len(text) >= window_end or not _head_viable(index, text[start + 1 :]):
            return TEXT, None, 0
        return MORE, None, 0
    colon = match.start()
    if text[colon] != ":":
        return TEXT, None, 0
    target = resolve_head(index, text[start + 1 : colon])
    if target is None:
        return TEXT, None, 0
    return FOUND, target, colon + 1


# --- bodies ------------------------------------------------------------------------------


# Inside a body, a '[' that begins a head (text, then ':') ends the body: valid JSON never holds
# one outside its strings (a ':' only follows a quoted key), and it keeps a directive left open
# from swallowing the next one, so scanning stays linear on any input.
_HEAD_LIKE: Final = re.compile(rf'\[[^\[\]{{}}":\n]{{1,{MAX_HEAD}}}:')
_HEAD_OPEN: Final = re.compile(rf'\[[^\[\]{{}}":\n]{{0,{MAX_HEAD}}}')


class BodyScan:
    """Find where a directive body ends, fed in pieces: nesting and string state carry over."""

    __slots__ = ("budget", "carry", "depth", "escaped", "in_string")

    def __init__(self) -> None:
        self.budget = MAX_BODY + 1  # positions that may still be examined, the ']' included
        self.depth = 0
        self.in_string = False
        self.escaped = False
        self.carry = ""  # a '[' at the end of the last piece that may still begin a head

    def scan(self, text: str, pos: int, final: bool = True) -> tuple[int, int]:
        """Scan ``text[pos:]``: (CLOSE, index of ']') | (ABORT, index) | (MORE, len(text)).

        Indexes are in ``text``; an ABORT at a '[' held over from the previous piece is negative.
        """
        if not self.carry:
            return self._scan(text, pos, final)
        carry, self.carry = self.carry, ""
        shift = pos - len(carry)
        status, index = self._scan(carry + text[pos:], 0, final)
        return status, index + shift

    def _scan(self, text: str, pos: int, final: bool) -> tuple[int, int]:
        stop = min(len(text), pos + self.budget)
        start = pos
        while pos < stop:
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                    if text[pos] == "\n":
                        self.in_string = False
                        continue
                    pos += 1
                    continue
                pos = _STRING_RUN.match(text, pos, stop).end()  # type: ignore[union-attr]
                if pos >= stop:
                    break
                char = text[pos]
                if char == '"':
                    self.in_string = False
                    pos += 1
                elif char == "\\":
                    self.escaped = True
                    pos += 1
                else:  # a newline breaks the string; it is then read as structure
                    self.in_string = False
                continue
            match = _STRUCTURE.search(text, pos, stop)
            if match is None:
                pos = stop
                break
            pos = match.start()
            char = text[pos]
            if char == '"':
                self.in_string = True
            elif char == "[":
                if _HEAD_LIKE.match(text, pos):
                    self.budget -= pos - start
                    return ABORT, pos
                if not final and _HEAD_OPEN.match(text, pos).end() == len(text):  # type: ignore[union-attr]
                    self.budget -= pos - start
                    self.carry = text[pos:]
                    return MORE, len(text)
                self.depth += 1
            elif char == "{":
                self.depth += 1
            elif char == "]":
                if self.depth == 0:
                    self.budget -= pos - start
                    return CLOSE, pos
                self.depth -= 1
            elif char == "}":
                if self.depth:
                    self.depth -= 1
            elif self.depth == 0:  # newline outside any nesting
                self.budget -= pos - start
                return ABORT, pos
            pos += 1
        self.budget -= pos - start
        if self.budget <= 0:
            return ABORT, pos
        return MORE, pos


def cut_head(index: NameIndex, text: str, start: int) -> bool:
    """Whether the ``[`` at ``start`` opens a directive head the end of the reply cut short
    (``[heal`` of ``[health: -1]``): no terminator follows and it could still grow into one."""
    rest = text[start + 1 :]
    if len(rest) > MAX_HEAD or _HEAD_TERMINATOR.search(rest):
        return False
    return _head_viable(index, rest)


_PROSE_END: Final = re.compile(r"[^\W\d_][.!?…。！？]['\"”’」)]*\s*$")


def cut_off(text: str, body_start: int) -> bool:
    """Whether a body the reply ended inside was cut off by the end of the reply (``[health: -1``)
    rather than left open while the prose went on (``[stats: merge {"a": … The end.``): a reply
    that goes on to finish a sentence was not cut short, and its words stay (seed 000: a malformed
    directive is skipped, the story kept)."""
    return _PROSE_END.search(text, body_start) is None


def fallback_close(text: str, body_start: int, abort: int) -> int:
    """The ']' ending a directive whose body never closed: the first one on the head's line."""
    newline = text.find("\n", body_start, abort)
    return text.find("]", body_start, abort if newline < 0 else newline)


# --- tags --------------------------------------------------------------------------------


def scan_tag(text: str, start: int, final: bool) -> tuple[int, re.Match[str] | None]:
    """Decide the ``<`` at ``start``: (TEXT | MORE | FOUND, the opening tag's match, or a stray
    closing tag of an engine block's, which `is_stray` tells apart)."""
    match = TAG_OPEN.match(text, start) or STRAY_CLOSE.match(text, start)
    if match is not None:
        return FOUND, match
    if not final and _TAG_PARTIAL.match(text, start):
        return MORE, None
    return TEXT, None


def close_pattern(tag_name: str) -> re.Pattern[str]:
    return CLOSE_PATTERNS.get(tag_name.casefold(), THINK_CLOSE)


def is_stray(tag: re.Match[str]) -> bool:
    """Whether a tag `scan_tag` found is a closing tag alone (removed by itself)."""
    return tag.group(0).startswith("</")
