"""Character cards inside PNG files (W10 interop): text chunks ``chara`` (V2) and ``ccv3`` (V3).

The chunk walk is done by hand so that a hostile upload costs no more than one pass over its
bytes: lengths are checked against the file, only text chunks are copied, compressed text is
inflated no further than MAX_CARD_TEXT_BYTES (docs/LIMITS.md). The CRC of a card chunk is
checked: a card that reads despite a bad CRC is kept with a warning (SillyTavern does not check
CRCs either), one that does not read says its chunk is damaged.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
import zlib
from collections.abc import Iterator
from typing import Any

from engine.interop.common import MAX_IMPORT_BYTES, CardError, parse_json_object

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CARD_KEYWORDS = ("ccv3", "chara")  # precedence: a V3 copy wins over the V2 one
_CHUNK_TYPE = re.compile(rb"[A-Za-z]{4}")
_TEXT_TYPES = (b"tEXt", b"zTXt", b"iTXt")
MAX_CARD_TEXT_BYTES = MAX_IMPORT_BYTES  # a card chunk's text, once decompressed
_URLSAFE = str.maketrans("-_", "+/")


def is_png(data: bytes) -> bool:
    return data.startswith(PNG_SIGNATURE)


def read_png_card(data: bytes) -> dict[str, Any]:
    """Return the character card JSON embedded in a PNG.

    Raises CardError for a file that is not a PNG, a broken chunk layout, no ``chara``/``ccv3``
    chunk, or a chunk whose base64 or JSON cannot be read.
    """
    return read_png_card_with_warnings(data, [])


def read_png_card_with_warnings(data: bytes, warnings: list[str]) -> dict[str, Any]:
    """Like read_png_card, appending what it forgave (a truncated tail, an unusable V3 chunk)."""
    texts, damaged = _card_texts(data, warnings)
    found = [keyword for keyword in CARD_KEYWORDS if keyword in texts]
    if not found:
        raise CardError("no character card (tEXt chunk 'chara' or 'ccv3') in PNG")
    for keyword in found:
        try:
            card = _decode_card(keyword, texts[keyword])
        except CardError as exc:
            if keyword in damaged:
                exc = CardError(f"{exc} (the chunk fails its CRC check: the file is damaged)")
            if keyword == found[-1]:
                raise exc from None
            warnings.append(f"PNG: card chunk '{keyword}' is unusable ({exc}); read '{found[-1]}'")
            continue
        if keyword in damaged:
            warnings.append(f"PNG: card chunk '{keyword}' fails its CRC check; read anyway")
        return card
    raise AssertionError("unreachable")  # pragma: no cover


def iter_chunks(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    """Yield (type, body) for each chunk up to IEND; CardError when the layout is broken."""
    for kind, start, length, _crc in _chunk_spans(data):
        yield kind, data[start : start + length]


def _chunk_spans(data: bytes) -> Iterator[tuple[bytes, int, int, int]]:
    """(type, body offset, body length, stored CRC) of each chunk up to IEND, copying nothing."""
    if not is_png(data):
        raise CardError("not a PNG file")
    offset = len(PNG_SIGNATURE)
    while offset < len(data):
        if offset + 8 > len(data):
            raise CardError(f"PNG is truncated: chunk header at byte {offset} is cut off")
        length, kind = struct.unpack_from(">I4s", data, offset)
        if not _CHUNK_TYPE.fullmatch(kind):
            raise CardError(f"PNG is damaged: chunk at byte {offset} has an invalid type")
        if length > 0x7FFFFFFF or offset + 12 + length > len(data):
            raise CardError(_past_the_end(data, offset, kind))
        (crc,) = struct.unpack_from(">I", data, offset + 8 + length)
        yield kind, offset + 8, length, crc
        offset += 12 + length
        if kind == b"IEND":
            return


def _past_the_end(data: bytes, offset: int, kind: bytes) -> str:
    keyword = data[offset + 8 : offset + 88].partition(b"\0")[0].decode("latin-1").lower()
    if kind in _TEXT_TYPES and keyword in CARD_KEYWORDS:
        return (
            f"PNG is truncated: card chunk '{keyword}' at byte {offset} runs past the end of "
            "the file (the card is incomplete)"
        )
    name = kind.decode("ascii")
    return f"PNG is truncated: chunk '{name}' at byte {offset} runs past the end of the file"


def _card_texts(data: bytes, warnings: list[str]) -> tuple[dict[str, str], set[str]]:
    """The first text of each card keyword, and the keywords whose chunk fails its CRC.

    A truncated tail is forgiven once a card is found.
    """
    texts: dict[str, str] = {}
    damaged: set[str] = set()
    try:
        for kind, start, length, crc in _chunk_spans(data):
            if kind not in _TEXT_TYPES:
                continue
            body = data[start : start + length]
            found = _text_chunk(kind, body)
            if found and found[0] not in texts:
                texts[found[0]] = found[1]
                if zlib.crc32(kind + body) != crc:
                    damaged.add(found[0])
    except CardError as exc:
        if not texts or str(exc) == "not a PNG file":
            raise
        warnings.append(f"PNG: {exc}; the card chunk before it was read")
    return texts, damaged


def _text_chunk(kind: bytes, body: bytes) -> tuple[str, str] | None:
    raw_keyword, sep, rest = body.partition(b"\0")
    keyword = raw_keyword.decode("latin-1").lower()
    if not sep or keyword not in CARD_KEYWORDS:
        return None
    if kind == b"tEXt":
        return keyword, rest.decode("latin-1")
    if kind == b"zTXt":
        return keyword, _inflate(keyword, rest[1:]).decode("latin-1")
    if len(rest) < 2:
        raise CardError(f"card chunk '{keyword}' is damaged (iTXt header cut off)")
    compressed = rest[0] == 1
    _language, _, rest = rest[2:].partition(b"\0")
    _translated, _, payload = rest.partition(b"\0")
    if compressed:
        payload = _inflate(keyword, payload)
    return keyword, payload.decode("utf-8", errors="replace")


def _inflate(keyword: str, payload: bytes) -> bytes:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(payload, MAX_CARD_TEXT_BYTES)
    except zlib.error:
        raise CardError(f"card chunk '{keyword}' is not valid zlib data") from None
    if inflater.unconsumed_tail:
        limit = MAX_CARD_TEXT_BYTES // (1024 * 1024)
        raise CardError(f"card chunk '{keyword}' is larger than {limit} MB once decompressed")
    return out


def _decode_card(keyword: str, text: str) -> dict[str, Any]:
    stripped = text.strip()
    if not stripped:
        raise CardError(f"card chunk '{keyword}' is empty")
    if stripped.startswith("{"):  # a few tools store the JSON without base64
        return parse_json_object(stripped, "card JSON")
    compact = re.sub(r"\s+", "", stripped).translate(_URLSAFE)
    compact += "=" * (-len(compact) % 4)
    try:
        raw = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise CardError(f"card chunk '{keyword}' is not valid base64") from None
    try:
        decoded = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CardError(f"card chunk '{keyword}' does not hold UTF-8 text") from None
    return parse_json_object(decoded, "card JSON")
