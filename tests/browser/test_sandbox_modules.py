"""The sandbox runtime split into ES modules still renders a world's UI (issue 36).

Real Chromium against ``runserver``: the frame's origin is opaque, so its module scripts are
cross-origin fetches that need the CORS header of play/views/sandbox.py ``runtime_module``; if
one were refused, nothing below would render. The widget uses each part: the store and the
bridge (a variable from the host's snapshot, a message sent and echoed back), the API
(useYumina), the guards (fetch refused in place), the built-ins (Chat) and the loader (an import).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from play.views.sandbox import RUNTIME_MODULES
from tests.browser.pages import signed_in_page
from tests.browser.servers import AppServers

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

INDEX = """import { Health } from "./health";

export default function App() {
  const api = useYumina();
  const [refusal, setRefusal] = React.useState("");
  React.useEffect(() => {
    fetch("https://example.com/").catch((e) => setRefusal(String(e.message)));
  }, []);
  return (
    <div>
      <Health value={api.variables.health} />
      <p id="refusal">{refusal}</p>
      <button id="say" onClick={() => api.sendMessage("Hello from the widget")}>say</button>
      <Chat />
    </div>
  );
}
"""
HEALTH = "export function Health(p) { return <p id='hp'>{String(p.value)}</p>; }\n"
WORLD = {
    "version": "1.0.0",
    "name": "Modular Dunes",
    "language": "en",
    "entries": [
        {"id": "narrator", "content": "You narrate.", "role": "system"},
        {"id": "hello", "content": "The wind rises.", "role": "greeting"},
    ],
    "variables": [{"id": "health", "type": "number", "defaultValue": 80, "min": 0, "max": 100}],
    "rootComponent": {
        "id": "ui",
        "name": "UI",
        "entryFile": "index.jsx",
        "files": {"index.jsx": INDEX, "health.jsx": HEALTH},
    },
}
SEED = f"""
import json
from tests.browser.seed_gm import login_cookie  # sets Django up
from django.contrib.auth.models import User
from play.sessions import start_session
from studio.publishing import publish_world
from studio.worlds import import_world

demo = User.objects.get(username="demo")
world = import_world(demo, json.loads({json.dumps(json.dumps(WORLD))}))
session = start_session(demo, publish_world(world), mode="offline")
print(json.dumps({{"cookie": login_cookie(demo), "session": str(session.pk)}}))
"""


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    return app_servers.get(["-c", SEED], demo=True)


def test_world_ui_renders_and_talks_to_the_host_through_the_module_runtime(
    browser: Any, server: dict[str, Any]
) -> None:
    viewport = {"width": 1280, "height": 900}
    page = signed_in_page(browser, server, console=None, timeout_ms=15_000, viewport=viewport)
    modules: dict[str, tuple[int, str | None]] = {}
    errors: list[str] = []

    def fetched(response: Any) -> None:
        if "/play/sandbox-js/" in response.url:
            cors = response.headers.get("access-control-allow-origin")
            modules[response.url.rsplit("/", 1)[1]] = (response.status, cors)

    page.on("response", fetched)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{server['base']}/play/{server['session']}/")
    page.wait_for_selector(".conn[data-state=online]")
    ui = page.frame_locator(".play-custom iframe")
    ui.locator("#hp", has_text="80").wait_for()
    ui.locator(".fy-msg", has_text="The wind rises.").wait_for()
    ui.locator("#refusal", has_text="fetch is not available in the sandbox").wait_for()
    ui.locator("#say").click()
    ui.locator(".fy-msg--user", has_text="Hello from the widget").wait_for()
    assert modules == dict.fromkeys(RUNTIME_MODULES, (200, "*"))
    frame = next(f for f in page.frames if "/play/ui/" in f.url)
    assert frame.evaluate("typeof window.FabulaSandbox.define") == "function"
    assert frame.evaluate("window.parent") is None  # locked down before the world's code ran
    assert page.locator("[data-ui-errors]").count() == 0
    assert [e for e in errors if "CORS" in e or "Content Security Policy" in e] == []
    page.context.close()
