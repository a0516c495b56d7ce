"""What the player may see of a reply while it streams (seed 000 "Cómo procesa el motor la salida
de la IA", steps 1-6; ARCHITECTURE "The turn, as data flows" step 4).

This module and the two it builds on hold the lexical rules that both the batch parser
(`engine.directives`) and the `StreamFilter` follow, so that the text shown while streaming is,
by construction, exactly the clean text of the finished reply:

- Where a directive starts and ends. ``[`` opens a candidate; its head runs to the first ``:``
  (at most `MAX_HEAD` characters, no ``[ ] :`` or newline in it) and must name a declared variable
  by id or display name (case-insensitive), optionally followed by a dot path, or be ``audio``;
  anything else stays in the text (``[Chapter 2]``, ``[Chapter 3: The Road]``). The body then runs
  to the first ``]`` outside strings and outside nested ``{}``/``[]`` (so JSON payloads may contain
  ``: , ]``). A newline outside any nesting, or more than `MAX_BODY` characters, ends the search;
  then the directive ends at the first ``]`` on the head's line, and without one the ``[`` is text
  — unless the reply ends inside the directive (``[health: -1``, ``[heal``: cut off by the
  output cap or a stop), which is dropped to the end: it is never shown (issue 37 §5).
- Thinking (``<think>``, ``<thinking>``) and ``<UpdateVariable>`` blocks run from their opening tag
  to the first closing tag, or to the end of the reply when it never comes. Tags are matched
  case-insensitively. So do the blocks Fabula's own prompts are written in (``<current-state>``,
  ``<persona>``… ``engine.directive_syntax.ENGINE_BLOCKS``): a model that echoes one shows the
  player nothing of it, and such a closing tag alone is removed too (issue 37 §5).
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

Where a directive or tag starts and ends is `engine.directive_syntax`; the tidying is
`engine.text_tidy`; this module holds the `StreamFilter` and re-exports the names of both.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from engine.directive_parse import parse_reply
from engine.state import name_index

if TYPE_CHECKING:
    from engine.directive_results import ParseResult
    from engine.world import WorldDefinition

from engine.directive_syntax import ABORT as ABORT
from engine.directive_syntax import AUDIO as AUDIO
from engine.directive_syntax import CLOSE as CLOSE
from engine.directive_syntax import CLOSE_PATTERNS as CLOSE_PATTERNS
from engine.directive_syntax import FOUND as FOUND
from engine.directive_syntax import MAX_BODY as MAX_BODY
from engine.directive_syntax import MAX_HEAD as MAX_HEAD
from engine.directive_syntax import MEMO_LIMIT as MEMO_LIMIT
from engine.directive_syntax import MORE as MORE
from engine.directive_syntax import TAG_OPEN as TAG_OPEN
from engine.directive_syntax import TEXT as TEXT
from engine.directive_syntax import THINK_CLOSE as THINK_CLOSE
from engine.directive_syntax import UPDATE_CLOSE as UPDATE_CLOSE
from engine.directive_syntax import BodyScan as BodyScan
from engine.directive_syntax import Target as Target
from engine.directive_syntax import close_pattern as close_pattern
from engine.directive_syntax import cut_head as cut_head
from engine.directive_syntax import cut_off as cut_off
from engine.directive_syntax import fallback_close as fallback_close
from engine.directive_syntax import is_stray as is_stray
from engine.directive_syntax import resolve_head as resolve_head
from engine.directive_syntax import scan_head as scan_head
from engine.directive_syntax import scan_tag as scan_tag
from engine.text_tidy import MARK as MARK
from engine.text_tidy import TextWriter as TextWriter
from engine.text_tidy import clean_text as clean_text

CANDIDATE: Final = re.compile(r"[\[<]")


# How much of a tag block's end is kept to find its closing tag cut in two (the longest closer).
_CLOSE_KEEP: Final = {THINK_CLOSE: len("</thinking>") - 1}
for _name, _pattern in CLOSE_PATTERNS.items():
    _CLOSE_KEEP[_pattern] = max(_CLOSE_KEEP.get(_pattern, 0), len(_name) + 4)


# --- streaming ---------------------------------------------------------------------------

_IN_TEXT, _IN_BODY, _IN_TAG = 0, 1, 2


# The raw reply is kept as this many pieces at most: a streamed token is a string of its own
# (~70 bytes for 20 characters), so a 200-token reply kept piece by piece held ~14 KiB per
# streaming session where one string holds the 4 KiB of its text.
_JOIN_EVERY: Final = 32


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
            chunks = self._chunks
            chunks.append(chunk)
            if len(chunks) >= _JOIN_EVERY:  # one string, not a string per token, for the raw
                self._chunks = ["".join(chunks)]
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

    def shown(self) -> str:
        """The text ``feed`` has returned so far, worked out again from the raw reply.

        The filter's output is a function of the text fed, not of where the chunks were cut,
        so a fresh filter fed the whole raw reply at once returns the same text. Only a failed
        turn asks (for its partial text): keeping that text as a string too was one more copy
        of the reply for every streaming session.
        """
        if self._closed:
            raise ValueError("StreamFilter is closed")
        return StreamFilter(self._world, self._state).feed(self.raw)

    def result(self) -> ParseResult:
        """Parse the whole reply fed so far (effects applied to the state given at creation)."""
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
            elif status == MORE and cut_off(text, self._body_start):  # the reply ended inside
                self._writer.removal()
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
                    if final and cut_head(self._index, text, start):
                        writer.removal()  # "[heal" cut off by the end of the reply
                        return
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
                elif found == MORE and cut_off(text, body_start):  # ended inside: "[health: -1"
                    writer.removal()
                    return
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
            if is_stray(tag):  # "</current-state>" alone
                writer.removal()
                pos = tag.end()
                continue
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
