"""The custom UI sandbox page and the compiler behind it (seed 004 "自定义 UI")."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from engine.world import RootComponent
from play.customui import compile_root_component, escape_inline_script, rewrite_modules
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


def test_sandbox_serves_the_compiled_ui_under_a_strict_csp(
    client: Client, alice: Any, ui_session: Session
) -> None:
    client.force_login(alice)
    response = client.get(reverse("play:sandbox", args=[ui_session.pk]))
    assert response.status_code == 200
    csp = response["Content-Security-Policy"]
    nonce = re.search(r"'nonce-([^']+)'", csp)
    assert nonce
    assert csp == (
        f"default-src 'none'; script-src 'nonce-{nonce.group(1)}'; style-src 'unsafe-inline'; "
        "img-src http://testserver data: blob:; media-src http://testserver data: blob:; "
        "font-src http://testserver data:; connect-src 'none'; frame-src 'none'; "
        "worker-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'self'; sandbox allow-scripts"
    )
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    assert response["Referrer-Policy"] == "no-referrer"
    html = response.content.decode()
    assert 'React.createElement("div", { id: "x" }' in html
    assert html.count("<script") == html.count(f'<script nonce="{nonce.group(1)}"')
    assert "</script><script>alert(1)" not in html  # the creator's text cannot close the tag


def test_sandbox_nonce_changes_per_response(
    client: Client, alice: Any, ui_session: Session
) -> None:
    client.force_login(alice)
    url = reverse("play:sandbox", args=[ui_session.pk])
    first = client.get(url)["Content-Security-Policy"]
    assert first != client.get(url)["Content-Security-Policy"]


def test_play_page_points_at_the_sandbox(client: Client, alice: Any, ui_session: Session) -> None:
    client.force_login(alice)
    html = client.get(reverse("play:session", args=[ui_session.pk])).content.decode()
    assert f'"customUiUrl": "/play/{ui_session.pk}/ui/"' in html


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


def test_compiler_rewrites_imports_and_exports() -> None:
    code = rewrite_modules(
        'import Bubble from "./bubble";\n'
        'import { Chat, MessageList as List } from "yumina/Chat";\n'
        'import * as Parts from "./parts";\n'
        'import "./style.css";\n'
        "export const size = 3;\n"
        "export function helper() {}\n"
        "export default function App() {}\n"
    )
    assert code == (
        'var __import1 = require("./bubble"); var Bubble = __import1.default;\n'
        'var __import2 = require("yumina/Chat"); var Chat = __import2["Chat"]; '
        'var List = __import2["MessageList"];\n'
        'var __import3 = require("./parts"); var Parts = __import3;\n'
        'require("./style.css");\n'
        "const size = 3;\n"
        "exports.helper = helper;\nfunction helper() {}\n"
        "exports.default = App;\nfunction App() {}\n"
        "\nexports.size = size;"
    )


def test_compiler_reports_typescript_it_cannot_strip() -> None:
    root = RootComponent(
        entry_file="index.tsx",
        files={"index.tsx": APP, "types.ts": "function f(x: number): string { return '' }"},
    )
    compiled = compile_root_component(root)
    assert compiled.errors == [
        "types.ts: could not be compiled (a syntax error, or TypeScript type annotations, which "
        "the sandbox does not support)"
    ]
    assert compiled.entry == "index.tsx"


def test_inline_script_escaping_defuses_closing_tags() -> None:
    assert escape_inline_script('a = "</script><!-- <SCRIPT>"') == (
        'a = "\\x3C/script>\\x3C!-- \\x3CSCRIPT>"'
    )
