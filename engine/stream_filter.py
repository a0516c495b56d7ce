"""What the player may see of a reply while it streams (seed 000 "Cómo procesa el motor la salida
de la IA", steps 1-6; ARCHITECTURE "The turn, as data flows" step 4).

This module holds the lexical rules that both the batch parser (`engine.directives`) and the
`StreamFilter` follow, so that the text shown while streaming is, by construction, exactly the
clean text of the finished reply:

- Where a directive starts and ends. ``[`` opens a candidate; its head runs to the first ``:``
  (at most `MAX_HEAD` characters, no ``[ ] :`` or newline in it) and must name a declared variable
  by id or display name (case-insensitive), optionally followed by a dot path, or be ``audio``;
  anything else stays in the text (``[Chapter 2]``, ``[Chapter 3: The Road]``). The body then runs
  to the first ``]`` outside strings and outside nested ``{}``/``[]`` (so JSON payloads may contain
  ``: , ]``). A newline outside any nesting, or more than `MAX_BODY` characters, ends the search;
  then the directive ends at the first ``]`` on the head's line, and without one the ``[`` is text.
- Thinking (``<think>``, ``<thinking>``) and ``<UpdateVariable>`` blocks run from their opening tag
  to the first closing tag, or to the end of the reply when it never comes. Tags are matched
  case-insensitively.
- The reply is read once, left to right: whichever construct starts first wins, which gives the
  seed's order (thinking, patches, audio, JSON and standard directives) for every reply where
  they do not overlap.
- Tidying (`TextWriter` while streaming, `clean_text` for a whole reply): a line left with only
  whitespace after removals disappears with its line break; whitespace before a removal at the
  end of a line goes; removals mid-line leave the first run of whitespace around them (``hits
  you [health: -5] hard`` → ``hits you hard``), or none before closing punctuation (``gold
  [gold: +50].`` → ``gold.``), and at the start of a line keep the indentation;
  runs of 3+ line breaks (blank lines may hold spaces) become 2; the whole text is stripped.
- While streaming, only a ``[`` or ``<`` that may still open a directive or tag, and trailing
  whitespace (its tidying depends on what follows), are held back; everything else is emitted
  at once. Held text is bounded except inside a tag block, where only the last few characters
  are kept to find its closing tag, so the work is linear in the length of the reply.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from engine.state import NameIndex, name_index, name_key

if TYPE_CHECKING:
    from engine.directives import ParseResult
    from engine.world import WorldDefinition

MAX_HEAD: Final = 160
MAX_BODY: Final = 16384
AUDIO: Final = "audio"
MARK: Final = "\x00"  # a removal, inside the writer's pending whitespace (never visible text)

CANDIDATE = re.compile(r"[\[<]")
_HEAD_TERMINATOR = re.compile(r"[:\[\]\n]")
_STRUCTURE = re.compile(r'[\[\]{}"\n]')
_STRING_RUN = re.compile(r'[^"\\\n]*')

_TAG_NAMES = ("think", "thinking", "updatevariable")
TAG_OPEN = re.compile(r"<(think(?:ing)?|updatevariable)(\s[^<>]{0,300})?>", re.IGNORECASE)
# An opening tag cut short by the end of the data so far: a proper prefix of a tag name, or a
# whole name whose attributes have not reached their '>' yet.
_TAG_PREFIXES = sorted({name[:n] for name in _TAG_NAMES for n in range(len(name))}, key=len)
_TAG_PARTIAL = re.compile(
    rf"<(?:{'|'.join(reversed(_TAG_PREFIXES))}|(?:thinking|think|updatevariable)"
    r"(?:\s[^<>]{0,300})?)\Z",
    re.IGNORECASE,
)
THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
UPDATE_CLOSE = re.compile(r"</updatevariable>", re.IGNORECASE)
_CLOSE_KEEP = {THINK_CLOSE: len("</thinking>") - 1, UPDATE_CLOSE: len("</updatevariable>") - 1}

# scan_head / BodyScan outcomes
TEXT: Final = 0
MORE: Final = 1
FOUND: Final = 2
CLOSE: Final = 2
ABORT: Final = 3

Target = tuple[str, tuple[str, ...]]
"""(variable id or AUDIO, dot-path segments as written)"""


# --- heads -------------------------------------------------------------------------------


_UNSEEN: Any = object()
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
_HEAD_LIKE = re.compile(rf'\[[^\[\]{{}}":\n]{{1,{MAX_HEAD}}}:')
_HEAD_OPEN = re.compile(rf'\[[^\[\]{{}}":\n]{{0,{MAX_HEAD}}}')


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


def fallback_close(text: str, body_start: int, abort: int) -> int:
    """The ']' ending a directive whose body never closed: the first one on the head's line."""
    newline = text.find("\n", body_start, abort)
    return text.find("]", body_start, abort if newline < 0 else newline)


# --- tags --------------------------------------------------------------------------------


def scan_tag(text: str, start: int, final: bool) -> tuple[int, re.Match[str] | None]:
    """Decide the ``<`` at ``start``: (TEXT | MORE | FOUND, the opening tag's match)."""
    match = TAG_OPEN.match(text, start)
    if match is not None:
        return FOUND, match
    if not final and _TAG_PARTIAL.match(text, start):
        return MORE, None
    return TEXT, None


def close_pattern(tag_name: str) -> re.Pattern[str]:
    return UPDATE_CLOSE if tag_name.casefold() == "updatevariable" else THINK_CLOSE


# --- the clean text ----------------------------------------------------------------------

_FIRST_SPACE = re.compile(f"[^{MARK}]+")
_BLANK_RUN = re.compile(r"\n[^\S\n]*\n(?:[^\S\n]*\n)+")


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


_TIDIED: dict[str, str] = {}


# Closing punctuation: a removal just before one takes the space before it along, so "You find
# gold [gold: +50]." reads "You find gold." and "你被击中了 [health: -5]。" reads "你被击中了。".
_CLOSERS = frozenset(".,;:!?…)]}»”’。，、；：！？）】」』")


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


# --- streaming ---------------------------------------------------------------------------

_IN_TEXT, _IN_BODY, _IN_TAG = 0, 1, 2


class StreamFilter:
    """Filter a streaming reply: ``feed`` each chunk, ``close`` at the end, show what they return.

    No directive, ``<UpdateVariable>`` block or thinking ever leaves it, not even a partial
    ``[hea``; text that cannot start one leaves at once. The joined output equals
    ``parse_reply(world, whole_reply).text``. Feeding after ``close`` raises ValueError.
    """

    def __init__(self, world: WorldDefinition, state: dict[str, Any] | None = None) -> None:
        self._world = world
        self._state = state
        self._index = name_index(world)
        self._writer = TextWriter()
        self._chunks: list[str] = []
        self._mode = _IN_TEXT
        self._held = ""  # an undecided '[' or '<' and what follows it (bounded)
        self._body: BodyScan | None = None
        self._body_parts: list[str] = []
        self._body_start = 0  # where the body starts, relative to the held '['
        self._close: re.Pattern[str] = THINK_CLOSE
        self._tail = ""  # the end of a tag block, in case its closing tag is cut in two
        self._closed = False

    def feed(self, chunk: str) -> str:
        """Take the next chunk; return the text that can now be shown (maybe empty)."""
        if self._closed:
            raise ValueError("StreamFilter is closed")
        if chunk:
            self._chunks.append(chunk)
            self._advance(chunk, final=False)
        return self._writer.take()

    def close(self) -> str:
        """End the stream; return the rest of the text (unterminated blocks are dropped)."""
        if not self._closed:
            self._closed = True
            self._advance("", final=True)
            self._writer.finish()
        return self._writer.take()

    @property
    def raw(self) -> str:
        """Everything fed so far, unfiltered."""
        return "".join(self._chunks)

    def result(self) -> ParseResult:
        """Parse the whole reply fed so far (effects applied to the state given at creation)."""
        from engine.directives import parse_reply

        return parse_reply(self._world, self.raw, self._state)

    def _advance(self, chunk: str, final: bool) -> None:
        if self._mode == _IN_TAG:
            text = self._tail + chunk
            match = self._close.search(text)
            if match is None:  # the removal was recorded when the block opened
                if final:
                    self._mode = _IN_TEXT
                else:
                    keep = _CLOSE_KEEP[self._close]
                    self._tail = text[-keep:] if len(text) > keep else text
                return
            self._mode = _IN_TEXT
            self._tail = ""
            self._scan(text, match.end(), final)
        elif self._mode == _IN_BODY:
            assert self._body is not None
            status, pos = self._body.scan(chunk, 0, final)
            if status == CLOSE:
                self._writer.removal()
                self._end_body()
                self._scan(chunk, pos + 1, final)
                return
            if status == MORE and not final:
                self._body_parts.append(chunk)
                return
            self._body_parts.append(chunk)
            text = "".join(self._body_parts)
            abort = len(text) - len(chunk) + pos
            self._end_body()
            end = fallback_close(text, self._body_start, abort)
            if end >= 0:
                self._writer.removal()
                self._scan(text, end + 1, final)
            else:
                self._writer.text("[")
                self._scan(text, 1, final)
        else:
            text = self._held + chunk if self._held else chunk
            self._held = ""
            self._scan(text, 0, final)

    def _end_body(self) -> None:
        self._mode = _IN_TEXT
        self._body = None
        self._body_parts = []

    def _scan(self, text: str, pos: int, final: bool) -> None:
        writer = self._writer
        while True:
            match = CANDIDATE.search(text, pos)
            if match is None:
                writer.text(text[pos:])
                return
            start = match.start()
            if start > pos:
                writer.text(text[pos:start])
            if text[start] == "[":
                status, _, body_start = scan_head(self._index, text, start, final)
                if status == TEXT:
                    writer.text("[")
                    pos = start + 1
                    continue
                if status == MORE:
                    self._held = text[start:]
                    return
                body = BodyScan()
                found, end = body.scan(text, body_start, final)
                if found == CLOSE:
                    writer.removal()
                    pos = end + 1
                    continue
                if found == MORE and not final:
                    self._mode = _IN_BODY
                    self._body = body
                    self._body_parts = [text[start:]]
                    self._body_start = body_start - start
                    return
                end = fallback_close(text, body_start, end)
                if end >= 0:
                    writer.removal()
                    pos = end + 1
                else:
                    writer.text("[")
                    pos = start + 1
                continue
            status, tag = scan_tag(text, start, final)
            if status == TEXT:
                writer.text("<")
                pos = start + 1
                continue
            if status == MORE:
                self._held = text[start:]
                return
            assert tag is not None
            closing = close_pattern(tag.group(1))
            done = closing.search(text, tag.end())
            if done is not None:
                writer.removal()
                pos = done.end()
                continue
            writer.removal()
            if not final:
                self._mode = _IN_TAG
                self._close = closing
                keep = _CLOSE_KEEP[closing]
                self._tail = text[max(tag.end(), len(text) - keep) :]
            return
