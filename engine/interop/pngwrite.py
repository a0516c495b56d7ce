"""Character cards written into PNG files, as SillyTavern writes them (W10 interop; issue 16 §3).

The card JSON goes, base64-encoded, into ``tEXt`` chunks before ``IEND``: ``chara`` holds the V2
card and, for a V3 export, ``ccv3`` holds the V3 one (SillyTavern writes both; readers that know
V3 prefer it). Card chunks already in the image are dropped first, so a portrait that was itself
a card does not carry its old card along. Without a portrait, ``placeholder_png`` draws one in
pure Python (zlib and struct): a vertical gradient in colours taken from the world's name.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import zlib
from collections.abc import Sequence
from typing import Any

from engine.interop.png import CARD_KEYWORDS, PNG_SIGNATURE, iter_chunks

PORTRAIT_SIZE = (400, 600)  # SillyTavern's avatar size
_TEXT_TYPES = (b"tEXt", b"zTXt", b"iTXt")


def card_chunk(keyword: str, card: dict[str, Any]) -> bytes:
    """A ``tEXt`` chunk holding ``card`` as base64 JSON under ``keyword``."""
    payload = base64.b64encode(json.dumps(card, ensure_ascii=False).encode("utf-8"))
    return _chunk(b"tEXt", keyword.encode("latin-1") + b"\0" + payload)


def write_card_png(image: bytes, cards: Sequence[tuple[str, dict[str, Any]]]) -> bytes:
    """``image`` with each (keyword, card) embedded and its old card chunks removed.

    Raises CardError (engine.interop.common) when ``image`` is not a well-formed PNG.
    """
    parts = [PNG_SIGNATURE]
    for kind, body in iter_chunks(image):
        if kind == b"IEND":
            break
        if kind in _TEXT_TYPES and _keyword(body) in CARD_KEYWORDS:
            continue
        parts.append(_chunk(kind, body))
    parts += [card_chunk(keyword, card) for keyword, card in cards]
    parts.append(_chunk(b"IEND", b""))
    return b"".join(parts)


def placeholder_png(seed: str, size: tuple[int, int] = PORTRAIT_SIZE) -> bytes:
    """A portrait for a world without one: a gradient between two colours ``seed`` picks."""
    width, height = size
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    top, bottom = _soft(digest[0:3]), _soft(digest[3:6])
    rows = []
    for y in range(height):
        t = y / max(height - 1, 1)
        pixel = bytes(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True))
        rows.append(b"\0" + pixel * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"".join(rows), 9)
    return PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", pixels) + _chunk(b"IEND", b"")


def _soft(rgb: bytes) -> tuple[int, int, int]:
    # Keep the colours in the middle of the range: no black or white portraits.
    r, g, b = (48 + value * 160 // 255 for value in rgb)
    return r, g, b


def _keyword(body: bytes) -> str:
    return body.partition(b"\0")[0].decode("latin-1").lower()


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)
