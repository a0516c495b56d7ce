"""What the sandbox page ships of a world's custom UI (issue 15 "Compile", "Tailwind").

The server no longer compiles: the sources go out as JSON data with the vendored compiler and
Tailwind next to them, all from this server, under a CSP that admits blob: scripts (how the
compiled modules run) but no eval and no network.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from engine.world import RootComponent
from play.customui import MAX_FILE_CHARS, MAX_FILES, ui_sources
from play.models import Session
from play.sessions import start_session
from play.views.sandbox import RUNTIME_SCRIPTS
from studio.publishing import publish_world
from tests.factories import make_world

pytestmark = pytest.mark.django_db

STATIC = Path(__file__).resolve().parents[2] / "static"
TYPED = """import { Panel } from "./components/Panel";
interface Props { title?: string }
export default function App<T>({ title }: Props): JSX.Element {
  const evil = "</script><script>alert(1)</script>";
  return <div className="bg-red-500 p-4">{evil}{title as string}</div>;
}
"""
PANEL = (
    "export function Panel(p: { children?: unknown }) { return <section>{p.children}</section>; }"
)


@pytest.fixture
def typed_session(alice: Any) -> Session:
    files = {"index.tsx": TYPED, "./components/Panel.tsx": PANEL, "notes.md": "# not code"}
    root = {"id": "ui", "name": "UI", "entryFile": "index.tsx", "files": files}
    return start_session(alice, publish_world(make_world(alice, rootComponent=root)))


def sandbox_page(client: Client, alice: Any, session: Session) -> tuple[str, str]:
    client.force_login(alice)
    response = client.get(reverse("play:sandbox", args=[session.pk]))
    assert response.status_code == 200
    return response.content.decode(), response["Content-Security-Policy"]


def shipped(html: str) -> dict[str, Any]:
    [data] = re.findall(
        r'<script id="fabula-ui-files" type="application/json">(.*?)</script>', html, re.S
    )
    result: dict[str, Any] = json.loads(data)
    return result


def test_sandbox_ships_the_typescript_sources_as_data_to_compile_in_the_frame(
    client: Client, alice: Any, typed_session: Session
) -> None:
    html, _ = sandbox_page(client, alice, typed_session)
    assert shipped(html) == {
        "entry": "index.tsx",
        "files": {"index.tsx": TYPED, "components/Panel.tsx": PANEL},
        "errors": [],
    }
    # The one script that runs inline only starts the runtime.
    assert re.findall(r"<script>(.*?)</script>", html, re.S) == ["\nwindow.FabulaSandbox.boot();\n"]


def test_shipped_sources_cannot_close_their_data_script(
    client: Client, alice: Any, typed_session: Session
) -> None:
    html, _ = sandbox_page(client, alice, typed_session)
    assert "</script><script>alert(1)" not in html
    assert "alert(1)" in shipped(html)["files"]["index.tsx"]


def test_sandbox_loads_the_vendored_compiler_and_tailwind_from_this_server(
    client: Client, alice: Any, typed_session: Session
) -> None:
    html, csp = sandbox_page(client, alice, typed_session)
    for path in (
        "vendor/sucrase/sucrase.min.js",
        "js/compile.js",
        "vendor/tailwind/tailwind.browser.js",
    ):
        assert path in RUNTIME_SCRIPTS
        assert (STATIC / path).stat().st_size > 1000
        assert f'<script src="/static/{path}"></script>' in html
        assert f"http://testserver/static/{path}" in csp
    assert (STATIC / "vendor/sucrase/LICENSE").exists()
    assert (STATIC / "vendor/tailwind/LICENSE").exists()
    # Tailwind and the compiler come before the runtime that uses them.
    assert RUNTIME_SCRIPTS.index("js/compile.js") < RUNTIME_SCRIPTS.index("js/sandbox.js")
    assert re.findall(r'src="(https?:)?//', html) == []  # nothing from another host


def test_sandbox_csp_admits_blob_scripts_and_inline_styles_but_no_eval_or_network(
    client: Client, alice: Any, typed_session: Session
) -> None:
    _, csp = sandbox_page(client, alice, typed_session)
    directives = dict(part.strip().split(" ", 1) for part in csp.split(";"))
    assert directives["script-src"].endswith(" blob:")
    assert "unsafe-eval" not in csp
    assert directives["style-src"] == "'unsafe-inline'"
    assert directives["connect-src"] == "'none'"
    assert directives["default-src"] == "'none'"
    assert directives["sandbox"] == "allow-scripts"


def test_ui_sources_normalizes_paths_and_keeps_only_modules() -> None:
    root = RootComponent(
        entry_file="./index.tsx",
        files={
            "./index.tsx": "x",
            "parts/../lib/util.ts": "y",
            "data.json": "{}",
            "style.css": "p {}",
            "readme.md": "z",
            "logo.png": "",
        },
    )
    sources = ui_sources(root)
    assert sources.entry == "index.tsx"
    assert sorted(sources.files) == ["data.json", "index.tsx", "lib/util.ts", "style.css"]
    assert sources.errors == []


def test_ui_sources_leaves_out_an_oversized_file_and_names_it() -> None:
    root = RootComponent(
        entry_file="index.tsx", files={"index.tsx": "x", "big.ts": "a" * (MAX_FILE_CHARS + 1)}
    )
    sources = ui_sources(root)
    assert list(sources.files) == ["index.tsx"]
    assert sources.errors == [
        {
            "path": "big.ts",
            "line": 0,
            "column": 0,
            "message": f"larger than {MAX_FILE_CHARS} characters; left out",
        }
    ]


def test_ui_sources_stops_after_the_file_limit() -> None:
    files = {f"f{i}.ts": "" for i in range(MAX_FILES + 5)}
    sources = ui_sources(RootComponent(entry_file="f0.ts", files=files))
    assert len(sources.files) == MAX_FILES
    assert [e["path"] for e in sources.errors] == [f"f{MAX_FILES}.ts"]
