"""``config.serve --static``'s /static/ handler (issue 32 §9): a path that climbs out of the
static folders is a 400, never a 500, and reads nothing outside them; real files still serve."""

from __future__ import annotations

from typing import Any

import pytest
from channels.testing import ApplicationCommunicator

import config.serve

pytestmark = pytest.mark.django_db


async def get(path: str) -> tuple[int, bytes]:
    """GET ``path`` as daphne hands it over: percent-escapes already decoded."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }
    communicator = ApplicationCommunicator(config.serve.application, scope)
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(10)
    body = b""
    while True:
        message = await communicator.receive_output(10)
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await communicator.wait(10)
    return start["status"], body


@pytest.mark.parametrize(
    "path",
    [
        "/static/../manage.py",  # /static/%2e%2e/manage.py, decoded
        "/static/../config/settings.py",
        "/static/js/../../../manage.py",
        "/static/..",
    ],
)
async def test_a_path_climbing_out_of_the_static_folders_is_a_bad_request(path):
    status, body = await get(path)
    assert status == 400
    assert b"DJANGO_SETTINGS_MODULE" not in body and b"SECRET_KEY" not in body


async def test_static_files_still_serve_and_a_missing_one_is_not_found():
    status, body = await get("/static/js/site.js")
    assert status == 200 and body
    assert (await get("/static/js/nothing-here.js"))[0] == 404
