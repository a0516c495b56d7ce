"""Bad input (issue 9 §6): a clear 4xx naming the field, never a 500, and nothing stored.

NUL characters, JSON nested 100,000 deep, extras 300 deep, bodies over the limits, an entry of
20 MB, numbers out of range, broken UTF-8 and broken PNG cards, through the API and the HTML
forms. The limits are documented in docs/LIMITS.md.
"""

from __future__ import annotations

import io
import json
import struct
import zlib

import pytest
from asgiref.sync import async_to_sync
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse
from django.urls import reverse

from config.limits import input_limits, refusal
from studio.models import Entry, World
from studio.worlds import export_world_json
from tests.factories import world_data
from tests.studio.view_helpers import errors_of

NUL = "contains a NUL character (U+0000), which cannot be stored"
DEEP = "[" * 100_000
IMPORT = "/api/worlds/import"


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def send(client, method, url, body, content_type="application/json"):
    return getattr(client, method)(url, body, content_type)


def snapshot():
    """Everything the requests below could change: the worlds and their content."""
    return [(w.pk, w.name, export_world_json(w)) for w in World.objects.order_by("pk")]


def deep_object(levels: int) -> dict:
    nested: dict = {}
    for _ in range(levels):
        nested = {"k": nested}
    return nested


def world_routes(world):
    base = f"/api/worlds/{world.pk}"
    return {
        "create": ("post", "/api/worlds"),
        "import": ("post", IMPORT),
        "header": ("patch", base),
        "content": ("put", f"{base}/content"),
        "settings": ("patch", f"{base}/settings"),
        "entries": ("post", f"{base}/entries"),
        "entry": ("put", f"{base}/entries/{world.entries.get().pk}"),
        "preview": ("post", f"{base}/preview"),
        "publish": ("post", f"{base}/publish"),
    }


# --- NUL characters ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "body", "field"),
    [
        ("create", {"name": "Fen\0"}, "name"),
        ("import", world_data(id="", description="a\0b"), "description"),
        ("header", {"description": "\0"}, "description"),
        ("content", world_data(entries=[{"id": "e", "content": "a\0b"}]), "entries[0].content"),
        ("settings", {"playerName": "Al\0"}, "playerName"),
        ("entries", {"id": "well", "keywords": ["ok", "w\0ll"]}, "keywords[1]"),
        ("entry", {"id": "gate", "content": "\0"}, "content"),
        ("preview", {"chat": [{"role": "user", "content": "\0"}]}, "chat[0].content"),
        ("publish", {"changelog": "v2\0"}, "changelog"),
    ],
)
def test_a_nul_in_a_json_field_is_a_400_naming_it(as_alice, world, route, body, field):
    before = snapshot()
    method, url = world_routes(world)[route]

    response = send(as_alice, method, url, json.dumps(body))

    assert response.status_code == 400
    assert response.json() == {"detail": "bad input", "errors": [f"{field}: {NUL}"]}
    assert snapshot() == before


@pytest.mark.parametrize("route", ["import", "content", "entry"])
def test_a_lone_surrogate_in_a_json_field_is_a_400_naming_it(as_alice, world, route):
    # PostgreSQL's jsonb and text refuse a lone surrogate: it must never reach a save.
    before = snapshot()
    method, url = world_routes(world)[route]
    body = {"import": world_data(id="", description="\ud800"), "entry": {"content": "\ud800"}}
    raw = json.dumps(body.get(route, world_data(entries=[{"id": "e", "content": "\ud800"}])))

    response = send(as_alice, method, url, raw)

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error.endswith("contains a lone surrogate (U+D800-U+DFFF), which is not valid Unicode")
    assert snapshot() == before


def test_a_nul_in_a_query_is_a_400_naming_the_parameter(as_alice, world):
    api = as_alice.get("/api/gallery", {"q": "salt\0"})
    page = as_alice.get(reverse("gallery"), {"q": "salt\0"})

    assert api.status_code == 400
    assert api.json() == {"detail": "bad input", "errors": [f"q: {NUL}"]}
    assert page.status_code == 400
    assert page["Content-Type"] == "text/plain; charset=utf-8"
    assert page.content.decode() == f"Bad input.\nq: {NUL}"


def test_a_nul_in_a_form_field_is_a_400_and_creates_nothing(as_alice, world):
    before = snapshot()

    response = as_alice.post(reverse("studio:world_new"), {"name": "Fen", "description": "a\0"})

    assert response.status_code == 400
    assert response.content.decode() == f"Bad input.\ndescription: {NUL}"
    assert snapshot() == before


# --- nesting ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "route",
    ["create", "import", "header", "content", "settings", "entries", "entry", "preview", "publish"],
)
def test_json_nested_100000_deep_is_a_400(as_alice, world, route):
    before = snapshot()
    method, url = world_routes(world)[route]

    response = send(as_alice, method, url, DEEP)

    assert response.status_code == 400
    assert response.json() == {
        "detail": "bad input",
        "errors": ["$: is nested deeper than 64 levels"],
    }
    assert snapshot() == before


@pytest.mark.parametrize("route", ["import", "content", "entries", "settings"])
def test_extra_keys_300_deep_are_refused_not_kept(as_alice, world, route):
    before = snapshot()
    method, url = world_routes(world)[route]
    body = {**world_data(id=""), "id": "deep", "futureField": deep_object(300)}

    response = send(as_alice, method, url, json.dumps(body))

    assert response.status_code == 400
    assert response.json()["errors"] == ["$: is nested deeper than 64 levels"]
    assert snapshot() == before


def test_an_uploaded_file_300_deep_is_a_422_naming_the_problem(as_alice):
    data = json.dumps({**world_data(id=""), "futureField": deep_object(300)}).encode()

    response = as_alice.post(IMPORT, {"file": SimpleUploadedFile("deep.json", data)})

    assert response.status_code == 422
    assert response.json()["detail"] == "JSON is invalid: nested deeper than 64 levels"
    assert World.objects.count() == 0


def entry_form(**overrides: str) -> dict[str, str]:
    data = {
        "id": "tavern",
        "section": "chat-history",
        "position": "0",
        "role": "lore",
        "api_role": "system",
        "content": "A smoky tavern.",
        "secondary_keyword_logic": "AND_ANY",
        "condition_logic": "all",
    }
    return {**data, **overrides}


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("conditions", DEEP, "Nested deeper than 64 levels."),
        ("conditions", json.dumps([{"value": deep_object(300)}]), "Nested deeper than 64 levels."),
        ("conditions", '[{"variableId": "a\\u0000"}]', f"conditions[0].variableId: {NUL}"),
        ("position", str(10**30), "input should be less than or equal to 2147483647"),
    ],
    ids=["100000-deep", "300-deep", "nul-escape", "huge-position"],
)
def test_the_html_entry_form_shows_bad_json_and_numbers_as_field_errors(
    as_alice, world, field, value, error
):
    before = snapshot()
    url = reverse("studio:entries_new", args=[world.pk])

    response = as_alice.post(url, entry_form(**{field: value}))

    assert response.status_code == 200
    assert any(error in shown for shown in errors_of(response)), errors_of(response)
    assert snapshot() == before


# --- sizes ------------------------------------------------------------------------------------


def test_a_body_over_the_limit_is_a_413_before_it_is_read(as_alice, world, settings):
    settings.FABULA_MAX_BODY_BYTES = 1024 * 1024
    before = snapshot()
    body = json.dumps({"id": "big", "content": "x" * (1100 * 1024)})

    api = as_alice.post(f"/api/worlds/{world.pk}/entries", body, "application/json")
    form = as_alice.post(reverse("studio:world_new"), {"name": "x" * (1100 * 1024)})

    assert api.status_code == 413
    assert api.json() == {
        "detail": "request body too large",
        "errors": ["$: is larger than the 1 MB limit"],
    }
    assert form.status_code == 413
    assert form.content.decode() == "Request body too large.\n$: is larger than the 1 MB limit"
    assert snapshot() == before


def test_djangos_request_data_too_big_is_a_413_not_a_400(as_alice, world, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
    body = json.dumps({"name": "x" * (1100 * 1024)})

    api = as_alice.post("/api/worlds", body, "application/json")
    form = as_alice.post(reverse("studio:world_new"), {"name": "x" * (1100 * 1024)})

    assert (api.status_code, form.status_code) == (413, 413)
    assert api.json()["errors"] == ["$: is larger than the 1 MB limit"]


def test_the_api_maps_request_data_too_big_to_413_by_itself(as_alice, world, settings):
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m != "config.limits.input_limits"]
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
    body = json.dumps({"name": "x" * (1100 * 1024)})

    response = as_alice.post("/api/worlds", body, "application/json")

    assert response.status_code == 413
    assert response.json()["errors"] == ["$: is larger than the 1 MB limit"]
    deep = as_alice.post("/api/worlds", DEEP, "application/json")
    assert deep.json()["errors"] == ["$: is nested deeper than 64 levels"]


def test_an_entry_of_20_mb_is_refused_with_its_field(as_alice, world):
    before = snapshot()
    body = json.dumps({"id": "huge", "content": "x" * (20 * 1024 * 1024)})

    response = as_alice.post(f"/api/worlds/{world.pk}/entries", body, "application/json")

    assert response.status_code == 422
    assert response.json() == {
        "detail": "invalid world",
        "errors": ["content: string should have at most 1000000 characters"],
    }
    assert snapshot() == before


def test_an_imported_entry_over_the_limit_is_refused_with_its_path(as_alice):
    data = world_data(id="", entries=[{"id": "big", "content": "x" * 1_000_001}])

    response = as_alice.post(IMPORT, data, "application/json")

    assert response.status_code == 422
    assert response.json()["errors"] == [
        "entries[0].content: string should have at most 1000000 characters"
    ]
    assert World.objects.count() == 0


# --- numbers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "body", "error"),
    [
        ("settings", '{"maxTokens": 1e30}', "maxTokens: is out of range (too large a number)"),
        (
            "settings",
            '{"maxTokens": 100000000000000000000}',
            "maxTokens: input should be less than or equal to 1000000",
        ),
        (
            "settings",
            '{"lorebookScanDepth": 1000000000}',
            "lorebookScanDepth: input should be less than or equal to 10000",
        ),
        ("settings", '{"temperature": 1e400}', "temperature: must be a finite number"),
        (
            "entries",
            '{"id": "e", "position": 1000000000000000000000000000000}',
            "position: input should be less than or equal to 2147483647",
        ),
        (
            "import",
            '{"name": "N", "settings": {"maxTokens": 1e30}}',
            "settings.maxTokens: is out of range (too large a number)",
        ),
        (
            "import",
            '{"name": "N", "variables": [{"id": "v", "type": "json", "defaultValue": NaN}]}',
            "variables[0].defaultValue: must be a finite number",
        ),
    ],
)
def test_numbers_out_of_range_are_refused_with_the_field_path(as_alice, world, route, body, error):
    before = snapshot()
    method, url = world_routes(world)[route]

    response = send(as_alice, method, url, body)

    assert response.status_code in (400, 422)
    assert response.json()["errors"] == [error]
    assert snapshot() == before


# --- encoding ---------------------------------------------------------------------------------


@pytest.mark.parametrize("route", ["import", "entries", "settings", "create"])
def test_broken_utf8_in_a_json_body_is_a_400_naming_the_byte(as_alice, world, route):
    before = snapshot()
    method, url = world_routes(world)[route]

    response = send(as_alice, method, url, b'{"name": "caf\xe9", "id": "cafe"}')

    assert response.status_code == 400
    assert response.json() == {
        "detail": "bad input",
        "errors": ["$: is not valid UTF-8 (byte 0xe9 at position 13)"],
    }
    assert snapshot() == before


def test_broken_utf8_in_a_form_or_query_is_a_400(as_alice, world):
    before = snapshot()

    form = as_alice.post(
        reverse("studio:world_new"), b"name=caf%E9", "application/x-www-form-urlencoded"
    )
    query = as_alice.get("/api/gallery?q=caf%E9")

    assert form.status_code == 400
    assert form.content.decode().endswith(
        "$: the form body is not valid UTF-8 (byte 0xe9 once decoded)"
    )
    assert query.status_code == 400
    assert query.json()["errors"] == [
        "$: the query string is not valid UTF-8 (byte 0xe9 once decoded)"
    ]
    assert snapshot() == before


# --- PNG cards --------------------------------------------------------------------------------


def chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def png(*chunks: bytes) -> bytes:
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + header + b"".join(chunks) + chunk(b"IEND", b"")


def card(**data) -> bytes:
    return json.dumps({"spec": "chara_card_v2", "data": {"name": "Card", **data}}).encode()


TRUNCATED = png(chunk(b"tEXt", b"chara\0" + card(description="x" * 100)))[:60]
HUGE = png(chunk(b"zTXt", b"chara\0\0" + zlib.compress(card(description="x" * 21_000_000))))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            TRUNCATED,
            "PNG is truncated: card chunk 'chara' at byte 33 runs past the end of the file "
            "(the card is incomplete)",
        ),
        (HUGE, "card chunk 'chara' is larger than 20 MB once decompressed"),
    ],
    ids=["truncated", "huge"],
)
def test_a_broken_png_card_is_a_422_with_a_clear_message(as_alice, data, message):
    api = as_alice.post(IMPORT, {"file": SimpleUploadedFile("card.png", data)})
    page = as_alice.post(reverse("studio:import"), {"file": SimpleUploadedFile("card.png", data)})

    assert api.status_code == 422
    assert api.json() == {"detail": message, "errors": [f"file: {message}"]}
    assert page.status_code == 200
    assert message in page.content.decode().replace("&#x27;", "'")
    assert World.objects.count() == 0


def test_a_card_field_past_an_entry_limit_names_the_card_field(as_alice):
    data = png(chunk(b"tEXt", b"chara\0" + card(description="x" * 1_000_001)))

    response = as_alice.post(IMPORT, {"file": SimpleUploadedFile("long.png", data)})

    assert response.status_code == 422
    assert response.json()["errors"] == [
        "description: is longer than the 1,000,000 characters an entry holds"
    ]
    assert Entry.objects.count() == 0


# --- the middleware under ASGI ----------------------------------------------------------------


def asgi_request(body: bytes, query: bytes = b"") -> ASGIRequest:
    """A request as daphne hands it over: the body buffered, maybe sent without a length."""
    buffered = io.BytesIO(body)  # seekable, like the SpooledTemporaryFile of ASGIHandler
    headers = [(b"content-type", b"application/json")]
    scope = {"type": "http", "method": "POST", "path": "/api/worlds", "query_string": query}
    return ASGIRequest({**scope, "headers": headers}, buffered)


def test_a_chunked_body_over_the_limit_is_a_413_though_it_declares_no_length(settings):
    settings.FABULA_MAX_BODY_BYTES = 1000

    response = refusal(asgi_request(b'{"name": "' + b"x" * 2000 + b'"}'))

    assert response is not None and response.status_code == 413
    assert json.loads(response.content)["errors"] == ["$: is larger than the 1,000 bytes limit"]
    assert refusal(asgi_request(b'{"name": "ok"}')) is None


def test_the_async_middleware_refuses_bad_input_and_passes_the_rest():
    async def view(request):
        return HttpResponse("ok")

    middleware = input_limits(view)

    refused = async_to_sync(middleware)(asgi_request(b'{"name": "\\u0000"}'))
    passed = async_to_sync(middleware)(asgi_request(b'{"name": "Fen"}', b"q=salt"))

    assert refused.status_code == 400
    assert json.loads(refused.content)["errors"] == [f"name: {NUL}"]
    assert passed.content == b"ok"
