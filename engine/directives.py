"""Directives in the AI's reply (seed 000 "Sintaxis de directivas", "El formato JSON Patch", "Cómo
procesa el motor la salida de la IA"; seed 002 "指令语法", "音频指令").

`extract_directives` runs the six steps of seed 000 over a finished reply: (1) thinking tags are
stripped, (2) ``<UpdateVariable><JSONPatch>`` blocks become effects, (3) ``[audio: …]`` directives
become cues, (4) directives with JSON values and (5) standard directives become effects, and (6)
the text is cleaned. It reads the reply once, left to right, with the lexical rules of
`engine.stream_filter` (where a directive starts and ends, how the text is tidied), which is
why `StreamFilter` shows exactly the text that `parse_reply` returns. Effects keep the seed's
order: patches first, then JSON-valued directives, then standard ones, each in reply order.

Decisions the seeds leave open, taken here:

- ``[var: delete]`` with nothing after it "degrades silently to an implicit set" (seed 000): the
  value set is the word itself, ``"delete"``, exactly as ``[var: delete]`` would read with no
  operation. A string or json variable becomes ``"delete"``; a number or boolean refuses it, so
  the directive is skipped with the reason.
- Values: ``"…"`` is a JSON string (a string whose inside is not valid JSON but that ends in a
  quote is taken verbatim), numbers are numbers, ``true false null`` (any case) are literals,
  ``{…}``/``[…]`` must be valid JSON (NaN and Infinity are refused) and anything else is bare text,
  so ``[mood: happy]`` sets "happy". ``toggle`` ignores a value; the other operations need one.
- Shorthand needs a number: ``[health: -5]`` subtracts, ``[health: set -10]`` sets -10, and
  ``[health: -5 hp]`` is an implicit set of the text "-5 hp" (refused by a number variable).
- Dot paths: the shortest dot-separated prefix that names a variable (by id or display name) is
  the variable, the rest is the path; numeric segments are array indexes.
- An ``[audio: …]`` directive is always removed from the text; an unknown track or action is
  skipped with the reason. A bracket that names no variable stays in the text; when its head
  looks like a variable id it is also listed in ``skipped`` (``unknown variable``) for debugging.
- JSON Patch: ``replace`` sets, ``delta`` adds (negative subtracts), ``insert`` (and RFC ``add``)
  adds a key or inserts into an array at an index (``-`` appends), ``remove`` deletes a key or an
  index. Paths are RFC 6901 pointers relative to ``target`` ("" is the target itself); without
  ``target`` the first segment names the variable. A path without a leading ``/`` is read as a
  dot path. An unterminated block is still parsed, then removed to the end of the reply.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from engine.state import (
    Change,
    Effect,
    Path,
    Skipped,
    apply_effects,
    copy_value,
    name_index,
    resolve_variable,
    slot_setters,
)
from engine.stream_filter import (
    AUDIO,
    CLOSE,
    FOUND,
    MAX_BODY,
    MAX_HEAD,
    MEMO_LIMIT,
    TAG_OPEN,
    BodyScan,
    StreamFilter,
    Target,
    clean_text,
    close_pattern,
    fallback_close,
    resolve_head,
    scan_head,
)
from engine.world import WorldDefinition

__all__ = [
    "AudioCue",
    "Extraction",
    "ParseResult",
    "StreamFilter",
    "extract_directives",
    "parse_reply",
]


@dataclass(frozen=True, slots=True)
class AudioCue:
    """An ``[audio: track action …]`` directive (seed 004 "AI 音频指令")."""

    track_id: str
    action: str
    value: float | None = None
    chain: str | None = None
    source: str = ""

    def __init__(
        self,
        track_id: str,
        action: str,
        value: float | None = None,
        chain: str | None = None,
        source: str = "",
    ) -> None:
        setters = _CUE_SETTERS  # see engine.state.slot_setters
        setters[0](self, track_id)
        setters[1](self, action)
        setters[2](self, value)
        setters[3](self, chain)
        setters[4](self, source)

    def to_dict(self) -> dict[str, Any]:
        return {
            "trackId": self.track_id,
            "action": self.action,
            "value": self.value,
            "chain": self.chain,
        }


_CUE_SETTERS = slot_setters(AudioCue)


@dataclass(frozen=True, slots=True)
class Extraction:
    """A reply taken apart: clean text, effects (not applied), audio cues, what was skipped."""

    text: str
    effects: list[Effect]
    audio: list[AudioCue]
    skipped: list[Skipped]


@dataclass
class ParseResult:
    """A reply parsed and its effects applied to a copy of the state."""

    text: str
    state: dict[str, Any]
    audio: list[AudioCue] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)


def parse_reply(
    world: WorldDefinition, text: str, state: dict[str, Any] | None = None
) -> ParseResult:
    """Extract the directives of a reply and apply them to a copy of ``state``.

    Variables missing from ``state`` start at their default value; ``state`` itself is never
    modified and shares nothing with the result. Malformed directives are listed in
    ``skipped``; nothing raises.
    """
    extraction = extract_directives(world, text)
    values = {key: copy_value(item) for key, item in state.items()} if state else {}
    for variable in world.variables:
        if variable.id not in values:
            values[variable.id] = copy_value(variable.default_value)
    changes, refused = apply_effects(world, values, extraction.effects)
    return ParseResult(
        text=extraction.text,
        state=values,
        audio=extraction.audio,
        effects=extraction.effects,
        skipped=extraction.skipped + refused,
        changes=changes,
    )


# --- extraction --------------------------------------------------------------------------

_OPS = "set|add|subtract|multiply|toggle|append|merge|push|delete"
# Every '[' in one compiled scanner, left to right (the '[' prefix keeps its search fast; '<' is
# found with str.find): a whole standard directive (group 2 is its body: no JSON, so it ends at
# its first ']' outside strings), a head followed by a JSON value (group 3 is the operation; the
# value starts where the match ends), or any other '['. The head rule is `scan_head`'s and the
# body rule `BodyScan`'s, so this reading and the streaming one agree.
_BRACKETS = re.compile(
    rf"\[(?:([^\[\]:\n]{{1,{MAX_HEAD}}}):"
    rf'(?:((?:[^\[\]{{}}"\n]|"(?:[^"\\\n]|\\.)*")*)\]'
    rf"|[ \t]*(?:((?i:{_OPS}))[ \t]+)?(?=[{{\[])))?"
)
_VALUE_START = re.compile(rf"[ \t]*(?:(?:{_OPS})[ \t]+)?", re.IGNORECASE)
_TRAIL = re.compile(r"[ \t]*\]")
_ID_LIKE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[^\s.]+)*")
_MEMO_SOURCE = 120  # longest directive whose reading is memoised
_SHOWN = 120  # how much of a directive left open is quoted in ``skipped``
_FAILURES = 8  # JSON values that may fail to decode in place before `json_close` stops trying
_NOTHING: Any = object()


def extract_directives(world: WorldDefinition, text: str) -> Extraction:
    """Take a reply apart without applying anything (steps 1-6 of seed 000); never raises."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    return _Extractor(world, text).run()


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
        text, index, pieces = self.text, self.index, self.pieces
        memo, find, cut = index.memo, text.find, pieces.append
        add_effect, effect_type, cue_type = self.effects.append, Effect, AudioCue
        pos = kept = 0  # ``kept``: where the text not yet cut starts (``self.kept`` in methods)
        angle = find("<")
        for match in _BRACKETS.finditer(text):
            start, end = match.span()
            if -1 < angle < start:  # read the tags before this '['
                if angle < pos:
                    angle = find("<", pos)
                if -1 < angle < start:
                    self.kept = kept
                    pos = self.scan(pos, start)
                    kept = self.kept
                    angle = find("<", pos)
            if start < pos:  # inside something already read; read what it hid past ``pos``
                if end > pos:
                    self.kept = kept
                    pos = self.scan(pos, end)
                    kept = self.kept
                continue
            body = match.group(2)
            if body is not None:
                source = match.group()
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
                elif type(known) is effect_type:
                    add_effect(known)
                elif type(known) is cue_type:
                    self.audio.append(known)
                else:
                    self.skipped.append(known)
                cut(text[kept:start])
                kept = pos = end
                continue
            head = match.group(1)
            if head is not None:
                target = resolve_head(index, head)
                if target is not None and target[0] is not AUDIO:
                    close, value = self.json_close(end)
                    if 0 <= close - match.end(1) - 1 <= MAX_BODY:
                        cut(text[kept:start])
                        kept = pos = close + 1
                        self.json_directive(target, match.group(3), value, text[start:pos])
                        continue
            self.kept = kept
            pos = self.candidate(start)
            if end > pos:
                pos = self.scan(pos, end)
            kept = self.kept
        self.kept = kept
        self.scan(pos, len(text))
        cut(text[self.kept :])
        return Extraction(
            text=clean_text(pieces),
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
                return start + 1
            done = close_pattern(tag.group(1)).search(text, tag.end())
            end = done.end() if done is not None else len(text)
            self.cut(start, end)
            if tag.group(1).casefold() == "updatevariable":
                inner = text[tag.end() : done.start() if done is not None else len(text)]
                self.patch_block(tag.group(2) or "", inner, text[start:end])
            return end
        status, target, body_start = scan_head(self.index, text, start, True)
        if status != FOUND or target is None:
            return start + 1
        value_start = _VALUE_START.match(text, body_start).end()  # type: ignore[union-attr]
        close, decoded = self.json_close(value_start)
        if close < 0 or close - body_start > MAX_BODY:
            decoded = _NOTHING
            found, close = BodyScan().scan(text, body_start)
            if found != CLOSE:
                close = fallback_close(text, body_start, close)
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

    def json_directive(self, target: Target, word: str | None, value: Any, source: str) -> None:
        """``[head: op {json}]``, read as `_effect` would read its body."""
        name, parts = target
        operation = word.lower() if word else "set"
        try:
            path = _dot_path(parts) if parts else ()
        except _Malformed as malformed:
            self.skipped.append(Skipped(source, str(malformed)))
            return
        effect = Effect(name, path, operation, None if operation == "toggle" else value, source)
        self.json_effects.append(effect)

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


# --- bracket directives ------------------------------------------------------------------


class _Malformed(Exception):
    """A directive that cannot be read; carries the reason for `Skipped`."""


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"number out of range: {text}")
    return number


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_float=_finite, parse_constant=_refuse_constant)
_SCAN_JSON: Any = _DECODER.scan_once  # type: ignore[attr-defined]  # raw_decode, unwrapped
_OPWORD = re.compile(rf"({_OPS})(?=\s|$)", re.IGNORECASE)
_UNSIGNED = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_SHORTHAND = re.compile(rf"([+\-*])\s*({_UNSIGNED})")
_NUMBER = re.compile(rf"[+-]?{_UNSIGNED}")
_INTEGER = re.compile(r"[+-]?\d+")
_SIGN_OPS = {"+": "add", "-": "subtract", "*": "multiply"}
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}


def _effect(
    variable_id: str, parts: tuple[str, ...], body: str, source: str, decoded: Any
) -> tuple[Effect, bool]:
    """Read a directive body (``op value``, shorthand or implicit set) into an effect.

    The flag says whether the value was a JSON object or array (seed 000 step 4).
    """
    path = _dot_path(parts) if parts else ()
    quick = _QUICK.fullmatch(body)
    if quick is not None:
        operation, value = _quick(quick)
        return Effect(variable_id, path, operation, value, source), False
    text = body.strip()
    word = _OPWORD.match(text)
    if word is not None:
        operation = word.group(1).lower()
        rest = text[word.end() :].lstrip()
        if not rest:
            if operation == "toggle":
                return Effect(variable_id, path, "toggle", None, source), False
            if operation == "delete":  # seed 000: degrades silently to an implicit set
                return Effect(variable_id, path, "set", word.group(1), source), False
            raise _Malformed(f"{operation} needs a value")
    else:
        if not text:
            raise _Malformed("the directive has no value")
        shorthand = _SHORTHAND.fullmatch(text)
        if shorthand is not None:
            operation = _SIGN_OPS[shorthand.group(1)]
            return Effect(variable_id, path, operation, _number(shorthand.group(2)), source), False
        operation, rest = "set", text
    value, is_json = _value(rest, decoded)
    if operation == "toggle":
        value = None
    return Effect(variable_id, path, operation, value, source), is_json


# The most common bodies, read in one match; each alternative gives what the general reading of
# `_effect` gives for it (``-5`` subtract 5, ``set -10``, ``42``, ``set "text"``, ``toggle``).
_QUICK = re.compile(
    r"\s*(?:"
    r"(?P<sign>[+\-*])\s*(?P<shorthand>[0-9]{1,15})"
    r"|(?P<op>set|add|subtract|multiply)\s+(?P<number>[+-]?[0-9]{1,15})"
    r"|(?P<bare>[0-9]{1,15})"
    r'|(?P<textop>set|append)\s+"(?P<text>[^"\\\n]*)"'
    r"|(?P<toggle>toggle)"
    r")\s*"
)


def _quick(match: re.Match[str]) -> tuple[str, Any]:
    sign, op, textop = match.group("sign", "op", "textop")
    if sign is not None:
        return _SIGN_OPS[sign], int(match.group("shorthand"))
    if op is not None:
        return op, int(match.group("number"))
    if textop is not None:
        return textop, match.group("text")
    if match.group("toggle") is not None:
        return "toggle", None
    return "set", int(match.group("bare"))


def _value(text: str, decoded: Any) -> tuple[Any, bool]:
    first = text[0]
    if first in "{[":
        if decoded is not _NOTHING:
            return decoded, True
        try:
            return _DECODER.decode(text), True
        except ValueError as error:
            raise _Malformed(f"invalid JSON: {_json_error(error)}") from None
        except RecursionError:
            raise _Malformed("invalid JSON: nested too deeply") from None
    if first == '"':
        try:
            value = _DECODER.decode(text)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, str):
            return value, False
        if len(text) >= 2 and text.endswith('"'):
            return text[1:-1], False
        raise _Malformed("malformed string (no closing quote)")
    if _NUMBER.fullmatch(text):
        return _number(text), False
    literal = _LITERALS.get(text.lower(), _NOTHING)
    if literal is not _NOTHING:
        return literal, False
    return text, False


def _number(text: str) -> float:
    try:
        if _INTEGER.fullmatch(text):
            return int(text)
        number = float(text)
    except ValueError:
        raise _Malformed(f"number too large: {text[:40]}") from None
    if not math.isfinite(number):
        raise _Malformed(f"number out of range: {text[:40]}")
    return number


def _dot_path(parts: tuple[str, ...] | list[str]) -> Path:
    path: list[str | int] = []
    for part in parts:
        if not part:
            raise _Malformed("empty segment in the dot path")
        path.append(int(part) if part.isdigit() and part.isascii() else part)
    return tuple(path)


def _json_error(error: ValueError) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at column {error.colno}"
    return str(error)


# --- audio -------------------------------------------------------------------------------


def _audio_cue(world: WorldDefinition, body: str, source: str) -> AudioCue:
    tokens = body.split()
    if len(tokens) < 2:
        raise _Malformed("an audio directive needs a track id and an action")
    track = _track(world, tokens[0])
    action = tokens[1].lower()
    args = tokens[2:]
    if action == "play":
        chain = None
        while args:
            arg = args.pop(0)
            if not arg.lower().startswith("chain:"):
                raise _Malformed(f"unexpected '{arg}' after play")
            name = arg[len("chain:") :] or (args.pop(0) if args else "")
            if not name:
                raise _Malformed("chain: needs a track id")
            chain = _track(world, name)
        return AudioCue(track, "play", None, chain, source)
    if action == "stop":
        if args:
            raise _Malformed(f"unexpected '{args[0]}' after stop")
        return AudioCue(track, "stop", None, None, source)
    if action in ("crossfade", "volume"):
        if len(args) > 1:
            raise _Malformed(f"unexpected '{args[1]}' after {action} {args[0]}")
        if not args:
            if action == "volume":
                raise _Malformed("volume needs a level between 0 and 1")
            return AudioCue(track, "crossfade", None, None, source)
        if not _NUMBER.fullmatch(args[0]):
            raise _Malformed(f"{action} needs a number, got '{args[0]}'")
        number = float(_number(args[0]))
        if action == "volume":
            number = min(1.0, max(0.0, number))
        elif number < 0:
            raise _Malformed("crossfade needs a duration of 0 seconds or more")
        return AudioCue(track, action, number, None, source)
    raise _Malformed(f"unknown audio action '{tokens[1]}' (play, stop, crossfade, volume)")


def _track(world: WorldDefinition, name: str) -> str:
    """Resolve a track id case-insensitively; an undeclared one is still queued as written.

    Seed 000 step 3 queues whatever matches ``[audio: ...]``; the player's audio engine ignores
    tracks the world does not have, so a typo costs a silent cue, not a lost directive.
    """
    tracks = world.tracks_by_id
    if name in tracks:
        return name
    folded = name.casefold()
    for track_id in tracks:
        if track_id.casefold() == folded:
            return track_id
    return name


# --- JSON Patch in <UpdateVariable> ------------------------------------------------------

_TARGET = re.compile(r"""\btarget\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
_JSON_PATCH = re.compile(r"<jsonpatch\s*>(.*?)(?:</jsonpatch\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"\A```[A-Za-z]*\s*|\s*```\Z")
_PATCH_OPS = {"replace": "set", "delta": "add", "insert": "insert", "add": "insert"}


def _patch_effect(world: WorldDefinition, base: tuple[str, Path] | None, operation: Any) -> Effect:
    if not isinstance(operation, dict):
        raise _Malformed("a patch operation must be an object")
    source = _compact(operation)
    name = operation.get("op")
    kind = name.lower() if isinstance(name, str) else ""
    if kind not in _PATCH_OPS and kind != "remove":
        raise _Malformed(
            f"unsupported patch operation {json.dumps(name)} (replace, delta, insert, remove)"
        )
    pointer = operation.get("path")
    if not isinstance(pointer, str):
        raise _Malformed("a patch operation needs a string path")
    segments = _pointer(pointer)
    if base is not None:
        variable_id, prefix = base
        path: Path = (*prefix, *segments)
    else:
        if not segments:
            raise _Malformed("without target=, the path must start with a variable")
        variable = resolve_variable(world, str(segments[0]))
        if variable is None:
            raise _Malformed(f"unknown variable '{segments[0]}'")
        variable_id, path = variable.id, segments[1:]
    if kind == "remove":
        if not path:
            raise _Malformed("remove needs a path inside the variable")
        return Effect(variable_id, path[:-1], "delete", path[-1], source)
    if "value" not in operation:
        raise _Malformed(f"{kind} needs a value")
    return Effect(variable_id, path, _PATCH_OPS[kind], operation["value"], source)


def _pointer(pointer: str) -> Path:
    if not pointer:
        return ()
    if pointer.startswith("/"):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]
    else:
        parts = [p.strip() for p in pointer.split("/" if "/" in pointer else ".")]
    return tuple(int(p) if p.isdigit() and p.isascii() else p for p in parts)


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError, RecursionError):
        return repr(value)
