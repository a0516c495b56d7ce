"""The one pass over a finished reply (seed 000 "Cómo procesa el motor la salida de la IA").

It finds thinking, patch blocks, audio, JSON-valued and standard directives with the lexical
rules of `engine.directive_syntax` and hands each body to its reader (`engine.directive_bodies`,
`engine.directive_audio`, `engine.directive_patches`); it is the hot loop of reply parsing, kept
in its own module so `engine.directives` stays the short public face.
"""

from __future__ import annotations

import re
from typing import Any, Final

from engine.directive_audio import _audio_cue
from engine.directive_bodies import (
    _DECODER,
    _NOTHING,
    _OPS,
    _SCAN_JSON,
    _dot_path,
    _effect,
    _json_error,
    _Malformed,
)
from engine.directive_patches import _FENCE, _JSON_PATCH, _TARGET, _compact, _patch_effect
from engine.directive_results import AudioCue, Extraction
from engine.directive_syntax import (
    AUDIO,
    CLOSE,
    FOUND,
    MAX_BODY,
    MAX_HEAD,
    MEMO_LIMIT,
    MORE,
    STRAY_CLOSE,
    TAG_OPEN,
    TEXT,
    BodyScan,
    Target,
    close_pattern,
    cut_head,
    cut_off,
    fallback_close,
    resolve_head,
    scan_head,
)
from engine.directive_text import clean_pieces
from engine.state import Effect, Path, Skipped, name_index
from engine.world import WorldDefinition

# A scalar body: text without brackets, braces or newlines, and closed strings. Written unrolled
# with possessive repeats (a string closes at its first unescaped quote, so there is only one
# way to read it) because sre walks an alternation inside a repeat one character at a time: this
# form reads the same bodies about twice as fast (`tests/engine/test_directive_fastpath.py`
# checks it against the plain form).
_STRING: Final = r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"'
_BODY: Final = rf'[^\[\]{{}}"\n]*+(?:{_STRING}[^\[\]{{}}"\n]*+)*+'

# Every '[' in one compiled scanner, left to right (the '[' prefix keeps its search fast; '<' is
# found with str.find): a whole standard directive (group 2 is its body: no JSON, so it ends at
# its first ']' outside strings), a head followed by a JSON value (group 3 is the operation; the
# value starts where the match ends), or any other '['. The head rule is `scan_head`'s and the
# body rule `BodyScan`'s, so this reading and the streaming one agree.
_BRACKETS: Final = re.compile(
    rf"\[(?:([^\[\]:\n]{{1,{MAX_HEAD}}}+):"
    rf"(?:({_BODY})\]"
    rf"|[ \t]*(?:((?i:{_OPS}))[ \t]+)?(?=[{{\[])))?"
)
_VALUE_START: Final = re.compile(rf"[ \t]*(?:(?:{_OPS})[ \t]+)?", re.IGNORECASE)
_TRAIL: Final = re.compile(r"[ \t]*\]")
_ID_LIKE: Final = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[^\s.]+)*")
_MEMO_SOURCE: Final = 120  # longest directive whose reading is memoised
_SHOWN: Final = 120  # how much of a directive left open is quoted in ``skipped``
_FAILURES: Final = (
    8  # JSON values that may fail to decode in place before `json_close` stops trying
)


class _Extractor:
    """One pass over a reply: removals cut it into pieces; finds go to the seed's phases."""

    __slots__ = (
        "audio", "effects", "failures", "index", "json_effects", "kept", "patches", "pieces",
        "skipped", "text", "world",
    )  # fmt: skip

    def __init__(self, world: WorldDefinition, text: str) -> None:
        self.world = world
        self.text = text
        self.index = name_index(world)
        self.pieces: list[str] = []  # the text between removals
        self.kept = 0  # where the text not yet cut starts
        self.patches: list[Effect] = []
        self.json_effects: list[Effect] = []
        self.effects: list[Effect] = []
        self.audio: list[AudioCue] = []
        self.skipped: list[Skipped] = []
        self.failures = 0  # JSON values that failed to decode in place (see `json_close`)

    def run(self) -> Extraction:
        # Written for mypyc (`engine.native`): positions are native ints, and the list, dict and
        # str methods are called on their objects, not through bound-method locals.
        text, index, pieces = self.text, self.index, self.pieces
        memo = index.memo
        pos = kept = 0  # ``kept``: where the text not yet cut starts (``self.kept`` in methods)
        angle = text.find("<")
        for match in _BRACKETS.finditer(text):
            start: int = match.start()
            end: int = match.end()
            if -1 < angle < start:  # read the tags before this '['
                if angle < pos:
                    angle = text.find("<", pos)
                if -1 < angle < start:
                    self.kept = kept
                    pos = self.scan(pos, start)
                    kept = self.kept
                    angle = text.find("<", pos)
            if start < pos:  # inside something already read; read what it hid past ``pos``
                if end > pos:
                    self.kept = kept
                    pos = self.scan(pos, end)
                    kept = self.kept
                continue
            body: str | None = match.group(2)
            if body is not None:
                source: str = match.group(0)
                known = memo.get(source)  # the same scalar directive: the same immutable result
                if known is None:
                    target = resolve_head(index, match.group(1))
                    if target is None or len(body) > MAX_BODY:
                        self.kept = kept
                        if target is None:
                            self.unknown(match.group(1), source)
                            pos = self.scan(start + 1, end)
                        else:
                            pos = self.candidate(start)
                        kept = self.kept
                        continue
                    known = self.directive(target, body, source)
                    if len(source) <= _MEMO_SOURCE:
                        if len(memo) >= MEMO_LIMIT:
                            memo.clear()
                        memo[source] = known
                elif isinstance(known, Effect):
                    self.effects.append(known)
                elif isinstance(known, AudioCue):
                    self.audio.append(known)
                else:
                    self.skipped.append(known)
                pieces.append(text[kept:start])
                kept = pos = end
                continue
            head: str | None = match.group(1)
            if head is not None:
                target = resolve_head(index, head)
                if target is not None and target[0] is not AUDIO:
                    # A JSON directive whose first ']' closes it, read before: the same text
                    # decodes to the same effect (its value is never mutated: applying copies it).
                    first = text.find("]", end)
                    if first > 0 and first - start < _MEMO_SOURCE and self.failures < _FAILURES:
                        known = memo.get(text[start : first + 1])
                        if isinstance(known, Effect):
                            self.json_effects.append(known)
                            pieces.append(text[kept:start])
                            kept = pos = first + 1
                            continue
                    close, value = self.json_close(end)
                    if 0 <= close - match.end(1) - 1 <= MAX_BODY:
                        pieces.append(text[kept:start])
                        kept = pos = close + 1
                        source = text[start:pos]
                        effect = self.json_directive(target, match.group(3), value, source)
                        if effect is not None and close == first and close - start < _MEMO_SOURCE:
                            if len(memo) >= MEMO_LIMIT:
                                memo.clear()
                            memo[source] = effect
                        continue
            self.kept = kept
            pos = self.candidate(start)
            if end > pos:
                pos = self.scan(pos, end)
            kept = self.kept
        self.kept = kept
        self.scan(pos, len(text))
        pieces.append(text[self.kept :])
        return Extraction(
            text=clean_pieces(pieces),
            effects=self.patches + self.json_effects + self.effects,
            audio=self.audio,
            skipped=self.skipped,
        )

    def scan(self, pos: int, limit: int) -> int:
        """Read the candidates starting in ``[pos, limit)``; return where reading ends."""
        find = self.text.find
        while pos < limit:
            bracket = find("[", pos, limit)
            angle = find("<", pos, limit)
            if bracket == -1 and angle == -1:
                return limit
            pos = self.candidate(angle if bracket == -1 or -1 < angle < bracket else bracket)
        return pos

    def candidate(self, start: int) -> int:
        """Read the construct that may start at ``start``; return where reading goes on."""
        text = self.text
        if text[start] == "<":
            tag = TAG_OPEN.match(text, start)
            if tag is None:
                stray = STRAY_CLOSE.match(text, start)  # an engine block's closing tag alone
                if stray is not None:
                    self.cut(start, stray.end())
                return stray.end() if stray is not None else start + 1
            done = close_pattern(tag.group(1)).search(text, tag.end())
            end = done.end() if done is not None else len(text)
            self.cut(start, end)
            if tag.group(1).casefold() == "updatevariable":
                inner = text[tag.end() : done.start() if done is not None else len(text)]
                self.patch_block(tag.group(2) or "", inner, text[start:end])
            return end
        status, target, body_start = scan_head(self.index, text, start, True)
        if status != FOUND or target is None:
            if status == TEXT and cut_head(self.index, text, start):
                return self.cut_off(start)
            return start + 1
        value_start = _VALUE_START.match(text, body_start).end()  # type: ignore[union-attr]
        close, decoded = self.json_close(value_start)
        if close < 0 or close - body_start > MAX_BODY:
            decoded = _NOTHING
            found, close = BodyScan().scan(text, body_start)
            if found != CLOSE:
                close = fallback_close(text, body_start, close)
                if close < 0 and found == MORE and cut_off(text, body_start):
                    return self.cut_off(start)  # the reply ended inside the body
                if close < 0:
                    line_end = text.find("\n", start, start + _SHOWN)
                    shown = text[start : line_end if line_end >= 0 else start + _SHOWN]
                    self.skip(shown, "unterminated directive (no closing ']'); left in the text")
                    return start + 1
        self.cut(start, close + 1)
        self.directive(target, text[body_start:close], text[start : close + 1], decoded)
        return close + 1

    def json_close(self, value_start: int) -> tuple[int, Any]:
        """The ']' after a JSON value that starts at ``value_start``, and the value; -1 if none.

        A body holding one JSON value and blanks ends right after it, as `BodyScan` would find.
        The value is decoded in place; a failure builds an error that counts the lines of the
        whole reply, so after a few the caller's slower, bounded reading is used instead.
        """
        text = self.text
        if self.failures >= _FAILURES or value_start >= len(text):
            return -1, _NOTHING
        if text[value_start] not in "{[":
            return -1, _NOTHING
        try:
            value, end = _SCAN_JSON(text, value_start)
        except StopIteration:
            return -1, _NOTHING
        except (ValueError, RecursionError):
            self.failures += 1
            return -1, _NOTHING
        trail = _TRAIL.match(text, end)
        if trail is None:
            return -1, _NOTHING
        return trail.end() - 1, value

    def cut(self, start: int, end: int) -> None:
        self.pieces.append(self.text[self.kept : start])
        self.kept = end

    def cut_off(self, start: int) -> int:
        """Drop a directive the end of the reply cut short (issue 37 §5); reading ends."""
        self.cut(start, len(self.text))
        self.skip(self.text[start : start + _SHOWN], "directive cut off by the end of the reply")
        return len(self.text)

    def skip(self, source: str, reason: str) -> None:
        self.skipped.append(Skipped(source, reason))

    def unknown(self, head: str, source: str) -> None:
        name = head.strip()
        if _ID_LIKE.fullmatch(name):
            self.skip(source, f"unknown variable '{name.split('.')[0]}'; left in the text")

    def directive(
        self, target: Target, body: str, source: str, decoded: Any = _NOTHING
    ) -> Effect | AudioCue | Skipped:
        name, parts = target
        result: Effect | AudioCue | Skipped
        try:
            if name == AUDIO:
                result = _audio_cue(self.world, body, source)
                self.audio.append(result)
                return result
            result, is_json = _effect(name, parts, body, source, decoded)
            (self.json_effects if is_json else self.effects).append(result)
        except _Malformed as malformed:
            result = Skipped(source, str(malformed))
            self.skipped.append(result)
        return result

    def json_directive(
        self, target: Target, word: str | None, value: Any, source: str
    ) -> Effect | None:
        """``[head: op {json}]``, read as `_effect` would read its body; None when skipped."""
        name, parts = target
        operation = word.lower() if word else "set"
        try:
            path = _dot_path(parts) if parts else ()
        except _Malformed as malformed:
            self.skipped.append(Skipped(source, str(malformed)))
            return None
        effect = Effect(name, path, operation, None if operation == "toggle" else value, source)
        self.json_effects.append(effect)
        return effect

    def patch_block(self, attributes: str, inner: str, source: str) -> None:
        base: tuple[str, Path] | None = None
        match = _TARGET.search(attributes)
        if match is not None:
            name = next(group for group in match.groups() if group is not None)
            target = resolve_head(self.index, name)
            if target is None or target[0] == AUDIO:
                self.skip(source, f"unknown target variable '{name}'")
                return
            try:
                base = (target[0], _dot_path(target[1]))
            except _Malformed as malformed:
                self.skip(source, str(malformed))
                return
        bodies = [m.group(1) for m in _JSON_PATCH.finditer(inner)] or [inner]
        found = False
        for body in bodies:
            body = _FENCE.sub("", body.strip())
            if not body:
                continue
            found = True
            try:
                operations = _DECODER.decode(body)
            except ValueError as error:
                self.skip(source, f"invalid JSON patch: {_json_error(error)}")
                continue
            except RecursionError:
                self.skip(source, "invalid JSON patch: nested too deeply")
                continue
            if isinstance(operations, dict):
                operations = [operations]
            if not isinstance(operations, list):
                self.skip(source, "a JSON patch must be an array of operations")
                continue
            for operation in operations:
                try:
                    self.patches.append(_patch_effect(self.world, base, operation))
                except _Malformed as malformed:
                    self.skip(_compact(operation), str(malformed))
        if not found:
            self.skip(source, "empty <UpdateVariable> block")
