"""Fuzzing the doors of untrusted input (issue 9 §6): the import API, the world API and the
websocket frame decoder. Whatever arrives: no 500, no exception, every refusal says which field
(``path: message``) is wrong, and what is accepted can be stored (no NUL for PostgreSQL, no NaN,
no nesting pydantic cannot dump).
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.jsonguard import check_value
from play.frames import FRAME_TYPES, FrameError, decode_frame
from studio.api_items import KINDS
from studio.models import World
from studio.worlds import export_world_json
from tests.factories import world_data

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FIELDS = [
    "id", "name", "content", "type", "section", "role", "position", "depth", "keywords",
    "conditions", "trigger", "actions", "when", "then", "defaultValue", "min", "max", "volume",
    "maxTokens", "temperature", "lorebookScanDepth", "topK", "settings", "entries", "variables",
    "rules", "version", "files", "entryFile", "chat", "state", "changelog", "targetTrackId",
    "variableId", "operator", "value", "eventType", "tracks", "gapSeconds", "atTurn",
    "description", "first_mes", "extensions", "character_book", "text", "message_id",
]  # fmt: skip
HOSTILE_TEXT = st.sampled_from(
    ["", "\0", "a\0b", "\ud800", "[" * 70, "x" * 5000, "-1", "1e400", "NaN", "été", "🙂"]
)


def _deep(levels: int) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for _ in range(levels):
        nested = {"k": nested}
    return nested


SCALARS = (
    st.just(_deep(300))
    | st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | HOSTILE_TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=16,
)
OBJECTS = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), VALUES, max_size=8)
ERROR = re.compile(r"^.*?: .+", re.DOTALL)  # "path: message" (a path may be an empty key)


def _as_body(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")


def _mangled(data: bytes, cut: int, insert: bytes) -> bytes:
    at = cut % (len(data) + 1)
    return data[:at] + insert + data[at:]


BODIES = st.one_of(
    OBJECTS.map(_as_body),
    VALUES.map(_as_body),
    st.builds(
        _mangled,
        OBJECTS.map(_as_body),
        st.integers(min_value=0),
        st.sampled_from(
            [b"\0", b"\xff", b"\\u0000", b"[" * 2000, b"{", b'"', b"\xc3", b"1e999", b"NaN"]
        ),
    ),
    st.binary(max_size=200),
)


def assert_clear(response: Any, world: Any = None) -> None:
    """A 2xx that stored only what can be stored, or a 4xx whose every error names its field."""
    assert response.status_code < 500, response.content[:500]
    if response.status_code < 400:
        if world is None and response.status_code == 201:
            world = World.objects.get(pk=response.json()["world"]["id"])
        if world is not None:
            check_value(export_world_json(World.objects.get(pk=world.pk)))
        return
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"]
    if response.status_code in (400, 413, 422):
        assert body["errors"], body
        for error in body["errors"]:
            assert ERROR.match(error), error


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def _first(items: Any) -> int:
    """The pk of the oldest item (a replaced world may have none: then a 404 route)."""
    first = items.order_by("pk").first()
    return first.pk if first is not None else 0


def world_urls(world: Any) -> list[tuple[str, str]]:
    base = f"/api/worlds/{world.pk}"
    urls = [
        ("post", "/api/worlds"),
        ("post", "/api/worlds/import"),
        ("patch", base),
        ("put", f"{base}/content"),
        ("patch", f"{base}/settings"),
        ("post", f"{base}/preview"),
        ("post", f"{base}/parse"),
        ("post", f"{base}/publish"),
        ("put", f"{base}/bgm-playlist"),
        ("put", f"{base}/root-component"),
        ("post", f"{base}/root-component/files"),
        ("put", f"{base}/entries/{_first(world.entries)}"),
        ("patch", f"{base}/variables/{_first(world.variables)}"),
    ]
    return urls + [("post", f"{base}/{kind}") for kind in KINDS]


@FUZZ
@given(route=st.integers(min_value=0), body=BODIES)
def test_the_world_api_answers_any_body_with_a_clear_status(as_alice, world, route, body):
    urls = world_urls(world)
    method, url = urls[route % len(urls)]

    assert_clear(getattr(as_alice, method)(url, body, "application/json"), world)


@FUZZ
@given(value=OBJECTS)
def test_the_import_api_answers_any_world_json_with_a_clear_status(as_alice, value):
    data = {**world_data(id=""), **value}

    assert_clear(as_alice.post("/api/worlds/import", _as_body(data), "application/json"))


def _png(chunks: list[tuple[bytes, bytes]], cut: int) -> bytes:
    out = b"\x89PNG\r\n\x1a\n"
    for kind, body in chunks:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        out += struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)
    return out[: len(out) - cut % 40]


CHUNKS = st.lists(
    st.tuples(
        st.sampled_from([b"IHDR", b"tEXt", b"zTXt", b"iTXt", b"IEND", b"x\0yz"]),
        st.one_of(
            st.binary(max_size=60),
            OBJECTS.map(lambda v: b"chara\0" + _as_body({"spec": "chara_card_v2", "data": v})),
            OBJECTS.map(lambda v: b"chara\0\0" + zlib.compress(_as_body(v))),
        ),
    ),
    max_size=4,
)
FILES = st.one_of(
    st.builds(_png, CHUNKS, st.integers(min_value=0)),
    OBJECTS.map(_as_body),
    st.binary(max_size=300),
)


@FUZZ
@given(data=FILES, name=st.sampled_from(["card.png", "card.json", "world.json", "x"]))
def test_the_import_api_answers_any_file_with_a_clear_status(as_alice, data, name):
    response = as_alice.post("/api/worlds/import", {"file": SimpleUploadedFile(name, data)})

    assert_clear(response)


FRAMES = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(FRAME_TYPES)}, optional={"x": VALUES}).flatmap(
        lambda frame: OBJECTS.map(lambda extra: {**extra, **frame})
    ),
    OBJECTS,
).map(_as_body)


@settings(max_examples=300, deadline=None)
@given(raw=st.one_of(FRAMES, BODIES, st.text(max_size=100)))
def test_the_frame_decoder_gives_a_frame_or_a_frame_error_naming_the_field(raw):
    try:
        frame = decode_frame(raw)
    except FrameError as exc:
        assert exc.field and exc.message
        return
    assert frame.type in FRAME_TYPES
    check_value(frame.model_dump())
