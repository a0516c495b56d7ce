"""The sandbox runtime as ES modules (issue 36): served with the CORS header the sandbox's opaque
origin needs, nothing else gets it, and the sandbox page's policy names each module and no more.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from play.models import Session
from play.sessions import start_session
from play.views.sandbox import BOOT, RUNTIME_MODULES, RUNTIME_SCRIPTS, sandbox_csp
from studio.publishing import publish_world
from tests.factories import make_world

ROOT = Path(__file__).resolve().parents[2]
MODULES = ROOT / "static" / "js" / "sandbox"
TEMPLATE = ROOT / "templates" / "play" / "sandbox.html"


def module_url(name: str) -> str:
    return reverse("play:sandbox_module", args=[name])


def directives(policy: str) -> dict[str, list[str]]:
    parts = (part.strip().split() for part in policy.split(";"))
    return {part[0]: part[1:] for part in parts if part}


@pytest.fixture
def ui_session(alice: Any) -> Session:
    files = {"index.tsx": "export default function App() { return <p>hi</p>; }"}
    root = {"id": "ui", "name": "UI", "entryFile": "index.tsx", "files": files}
    return start_session(alice, publish_world(make_world(alice, rootComponent=root)))


@pytest.mark.django_db
@pytest.mark.parametrize("name", RUNTIME_MODULES)
def test_each_runtime_module_is_served_as_javascript_to_any_origin(
    client: Client, name: str
) -> None:
    # No login: the sandbox's opaque origin sends no cookies.
    response = client.get(module_url(name), headers={"Origin": "null"})
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response.content == (MODULES / name).read_bytes()


@pytest.mark.django_db
def test_a_runtime_module_unchanged_since_the_last_fetch_is_not_sent_again(client: Client) -> None:
    first = client.get(module_url("main.js"))
    assert first["Cache-Control"] == "no-cache"
    again = client.get(module_url("main.js"), headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304
    assert again["Access-Control-Allow-Origin"] == "*"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["sandbox.js", "missing.js", "..%2Fsandbox.js", "main.js.map"])
def test_only_the_listed_runtime_modules_are_served(client: Client, name: str) -> None:
    assert client.get(f"/play/sandbox-js/{name}").status_code == 404
    assert client.post(module_url("main.js")).status_code == 405


def test_the_listed_modules_are_the_folder_and_the_page_preloads_each() -> None:
    assert sorted(RUNTIME_MODULES) == sorted(path.name for path in MODULES.glob("*.js"))
    template = TEMPLATE.read_text(encoding="utf-8")
    preloaded = re.findall(
        r"modulepreload\" href=\"\{% url 'play:sandbox_module' '([^']+)'", template
    )
    [entry] = re.findall(
        r"<script type=\"module\" src=\"\{% url 'play:sandbox_module' '([^']+)'", template
    )
    assert [entry, *preloaded] == list(RUNTIME_MODULES)


def test_each_runtime_module_stays_small_and_needs_no_eval() -> None:
    evaluating = re.compile(r"\beval\(|new Function\(|set(Timeout|Interval)\(\s*[\"']")
    for path in [ROOT / "static/js/sandbox.js", *MODULES.glob("*.js")]:
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 400, path.name
        assert not evaluating.search(text), path.name


@pytest.mark.django_db
def test_the_sandbox_page_loads_the_modules_it_names_and_itself_has_no_cors_header(
    client: Client, alice: Any, ui_session: Session
) -> None:
    client.force_login(alice)
    response = client.get(reverse("play:sandbox", args=[ui_session.pk]))
    html = response.content.decode()
    assert "Access-Control-Allow-Origin" not in response
    assert f'<script type="module" src="{module_url("main.js")}"></script>' in html
    for name in RUNTIME_MODULES[1:]:
        assert f'<link rel="modulepreload" href="{module_url(name)}">' in html
    # The classic part still comes first and the page's one inline script only boots.
    assert html.index("/static/js/sandbox.js") < html.index(module_url("main.js"))
    assert re.findall(r"<script>(.*?)</script>", html, re.S) == [BOOT]


@pytest.mark.django_db
def test_the_sandbox_policy_names_each_script_exactly_and_nothing_looser(
    client: Client, alice: Any, ui_session: Session, rf: RequestFactory
) -> None:
    client.force_login(alice)
    response = client.get(reverse("play:sandbox", args=[ui_session.pk]))
    policy = directives(response["Content-Security-Policy"])
    hashes = [s for s in policy["script-src"] if s.startswith("'sha256-")]
    urls = [s for s in policy["script-src"] if s.startswith("http")]
    assert len(hashes) == 1
    assert urls == [f"http://testserver/static/{path}" for path in RUNTIME_SCRIPTS] + [
        f"http://testserver{module_url(name)}" for name in RUNTIME_MODULES
    ]
    assert policy["script-src"] == [*hashes, *urls, "blob:"]  # no keyword, folder or wildcard
    assert policy["default-src"] == policy["connect-src"] == ["'none'"]
    assert policy["style-src"] == ["'unsafe-inline'"]
    assert policy["sandbox"] == ["allow-scripts"]
    # The studio's live preview renders the same page under the same policy builder.
    assert sandbox_csp(rf.get("/"), BOOT) == response["Content-Security-Policy"]
