"""The custom UI sandbox page and the compiler behind it (seed 004 "自定义 UI")."""

from __future__ import annotations

import base64
import hashlib
import re
import uuid
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse

from play.csp import add_frame_policy, sandbox_url_prefix
from play.models import Session
from play.sessions import start_session
from studio.publishing import publish_world
from tests.factories import make_world

pytestmark = pytest.mark.django_db

APP = (
    "export default function App() "
    '{ return <div id="x">{"</script><script>alert(1)</script>"}</div>; }'
)


@pytest.fixture
def ui_session(alice: Any) -> Session:
    world = make_world(
        alice,
        rootComponent={
            "id": "ui",
            "name": "UI",
            "entryFile": "index.tsx",
            "files": {"index.tsx": APP},
        },
    )
    return start_session(alice, publish_world(world), mode="offline")


RUNTIME = (
    "http://testserver/static/vendor/react/react.production.min.js "
    "http://testserver/static/vendor/react/react-dom.production.min.js "
    "http://testserver/static/js/markdown.js "
    "http://testserver/static/vendor/sucrase/sucrase.min.js "
    "http://testserver/static/js/compile.js "
    "http://testserver/static/vendor/tailwind/tailwind.browser.js "
    "http://testserver/static/js/sandbox.js "
    # The runtime's ES modules, each by its exact URL (the entry, then its parts).
    "http://testserver/play/sandbox-js/main.js "
    "http://testserver/play/sandbox-js/store.js "
    "http://testserver/play/sandbox-js/bridge.js "
    "http://testserver/play/sandbox-js/api.js "
    "http://testserver/play/sandbox-js/guards.js "
    "http://testserver/play/sandbox-js/components.js "
    "http://testserver/play/sandbox-js/loader.js "
    "http://testserver/play/sandbox-js/boot.js"
)
FRAMES = "frame-src http://testserver/play/ui/; child-src http://testserver/play/ui/"


def frame_policy(response: HttpResponse) -> str:
    """The page policy's frame-src and child-src (config/security.py writes the rest of it)."""
    parts = (part.strip() for part in response["Content-Security-Policy"].split(";"))
    directives = dict(part.split(" ", 1) for part in parts if part)
    return f"frame-src {directives['frame-src']}; child-src {directives['child-src']}"


def inline_scripts(html: str) -> list[str]:
    return re.findall(r"<script>(.*?)</script>", html, re.S)


def test_sandbox_serves_the_compiled_ui_under_a_csp_without_network(
    client: Client, alice: Any, ui_session: Session
) -> None:
    client.force_login(alice)
    response = client.get(reverse("play:sandbox", args=[ui_session.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    [script] = inline_scripts(html)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert response["Content-Security-Policy"] == (
        f"default-src 'none'; script-src 'sha256-{digest}' {RUNTIME} blob:; "
        "style-src 'unsafe-inline'; img-src data: blob:; media-src data: blob:; "
        "font-src data: blob:; connect-src 'none'; frame-src 'none'; child-src 'none'; "
        "worker-src 'none'; object-src 'none'; manifest-src 'none'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'self'; sandbox allow-scripts"
    )
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    assert response["Referrer-Policy"] == "no-referrer"
    assert response["X-DNS-Prefetch-Control"] == "off"
    assert 'id="fabula-ui-files" type="application/json"' in html  # compiled in the frame
    assert script.endswith("window.FabulaSandbox.boot();\n")
    assert "</script><script>alert(1)" not in html  # the creator's text cannot close the tag


def test_sandbox_scripts_carry_no_nonce_the_ui_could_reuse(
    client: Client, alice: Any, ui_session: Session
) -> None:
    # A nonce is readable by the page's own scripts (script.nonce) and admits a script from any
    # host: the world's code could load <script nonce=… src=https://elsewhere/?chat=…>.
    client.force_login(alice)
    response = client.get(reverse("play:sandbox", args=[ui_session.pk]))
    assert "nonce" not in response["Content-Security-Policy"]
    assert "nonce" not in response.content.decode()


def test_play_page_points_at_the_sandbox(client: Client, alice: Any, ui_session: Session) -> None:
    client.force_login(alice)
    html = client.get(reverse("play:session", args=[ui_session.pk])).content.decode()
    assert f'"customUiUrl": "/play/ui/{ui_session.pk}/"' in html


def test_play_page_frames_only_the_sandbox_path(
    client: Client, alice: Any, ui_session: Session
) -> None:
    client.force_login(alice)
    response = client.get(reverse("play:session", args=[ui_session.pk]))
    assert frame_policy(response) == FRAMES
    assert response.csp_frame_src == ["http://testserver/play/ui/"]


def test_persona_change_page_frames_only_the_sandbox_path(
    client: Client, alice: Any, ui_session: Session
) -> None:
    client.force_login(alice)
    url = reverse("play:session_persona", args=[ui_session.pk])
    response = client.post(url, {"persona": "not-a-persona"})
    assert response.status_code == 400
    assert frame_policy(response) == FRAMES


def test_studio_playtest_panel_frames_only_the_sandbox_path(
    client: Client, alice: Any, world: Any
) -> None:
    client.force_login(alice)
    response = client.get(reverse("play:playtest", args=[world.pk]))
    assert response.status_code == 200
    assert frame_policy(response) == FRAMES
    response = client.post(reverse("play:playtest_reset", args=[world.pk]), {"mode": "offline"})
    assert response.status_code == 302
    assert frame_policy(response) == FRAMES


def test_frame_policy_joins_a_policy_the_response_already_has(rf: RequestFactory) -> None:
    response = HttpResponse()
    response["Content-Security-Policy"] = "default-src 'self'"
    add_frame_policy(rf.get("/"), response)
    assert response["Content-Security-Policy"] == f"default-src 'self', {FRAMES}"


def test_every_sandbox_url_is_under_the_framed_prefix() -> None:
    prefix = sandbox_url_prefix()
    assert prefix == "/play/ui/"
    assert reverse("play:sandbox", args=[uuid.uuid4()]).startswith(prefix)


def test_sandbox_of_a_world_without_custom_ui_is_404(
    client: Client, alice: Any, play_session: Session
) -> None:
    client.force_login(alice)
    assert client.get(reverse("play:sandbox", args=[play_session.pk])).status_code == 404


def test_sandbox_of_another_users_session_is_404(
    client: Client, bob: Any, ui_session: Session
) -> None:
    client.force_login(bob)
    assert client.get(reverse("play:sandbox", args=[ui_session.pk])).status_code == 404


def test_sandbox_refuses_post(client: Client, alice: Any, ui_session: Session) -> None:
    client.force_login(alice)
    assert client.post(reverse("play:sandbox", args=[ui_session.pk])).status_code == 405
