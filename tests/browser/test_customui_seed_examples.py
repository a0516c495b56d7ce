"""Seed 004's own custom-UI examples, typed in TypeScript with its Tailwind classes, run
unchanged in published play and in the studio playtest (issue 15, "Done when"): the custom
bubble (``<Chat renderBubble={Bubble} />``), the full application (``useYumina()`` variables,
``<MessageList />`` and ``<MessageInput />``) and the multi-file structure (``StatusPanel``,
``Chat``, ``MapView``). A message typed in the world's own input reaches the narrator and comes
back through its own list.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.browser.pages import signed_in_page
from tests.browser.servers import AppServers

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SEED_CLASSES = "flex flex-col gap-4 p-4 bg-[#1a1a2e] text-[#e0e0e0] font-serif"

BUBBLE_APP = {
    "index.tsx": """import Bubble from "./bubble";

export default function App() {
  return <Chat renderBubble={Bubble} />;
}
""",
    "bubble.tsx": """type BubbleProps = { content: string; role: "user" | "assistant" | "system" };

export default function Bubble({ content, role }: BubbleProps) {
  return <div className={`seed-bubble seed-${role} rounded-lg p-4`}>{content}</div>;
}
""",
}
FULL_APP = {
    "index.tsx": f"""interface Vars {{ health?: number }}

export default function App() {{
  var api = useYumina();
  const vars = api.variables as Vars;
  return (
    <div id="app" className="{SEED_CLASSES}"
      style={{ {{display: "flex", flexDirection: "column", height: "100vh"}} }}>
      <header id="hp">HP: {{vars.health}}</header>
      <MessageList />
      <MessageInput />
    </div>
  );
}}
""",
}
MULTI_FILE = {
    "index.tsx": """import StatusPanel from "./status-panel";
import MapView from "./map-view";

export default function App() {
  return (
    <>
      <StatusPanel />
      <Chat />
      <MapView />
    </>
  );
}
""",
    "status-panel.tsx": """export default function StatusPanel(): JSX.Element {
  const api = useYumina();
  return <div id="status" className="flex gap-4 text-white">{api.worldName}</div>;
}
""",
    "map-view.tsx": """const places: string[] = ["Dunes", "Oasis"];
export default function MapView() {
  return <ul id="map" className="p-4">{places.map((p) => <li key={p}>{p}</li>)}</ul>;
}
""",
}


def world(name: str, files: dict[str, str]) -> dict[str, Any]:
    return {
        "version": "20.0.0",
        "name": name,
        "language": "en",
        "variables": [{"id": "health", "name": "Health", "type": "number", "defaultValue": 90}],
        "entries": [
            {"id": "narrator", "content": "You narrate.", "role": "system"},
            {"id": "hello", "content": "The wind rises.", "role": "greeting"},
        ],
        "rootComponent": {
            "id": "ui",
            "name": "My World UI",
            "entryFile": "index.tsx",
            "files": files,
        },
    }


WORLDS = {
    "bubble": world("Bubble Dunes", BUBBLE_APP),
    "full": world("Full Dunes", FULL_APP),
    "multi": world("Multi Dunes", MULTI_FILE),
}

SEED = f"""
import json
from tests.browser.seed_gm import login_cookie  # sets Django up
from django.contrib.auth.models import User
from play.sessions import start_session
from studio.publishing import publish_world
from studio.worlds import import_world

demo = User.objects.get(username="demo")
sessions, worlds = {{}}, {{}}
for key, data in json.loads({json.dumps(json.dumps(WORLDS))}).items():
    world = import_world(demo, data)
    worlds[key] = world.pk
    sessions[key] = str(start_session(demo, publish_world(world), mode="offline").pk)
print(json.dumps({{"cookie": login_cookie(demo), "sessions": sessions, "worlds": worlds}}))
"""


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    return app_servers.get(["-c", SEED], demo=True)


def new_page(browser: Any, server: dict[str, Any]) -> Any:
    viewport = {"width": 1280, "height": 900}
    return signed_in_page(browser, server, console=None, timeout_ms=15_000, viewport=viewport)


def published(browser: Any, server: dict[str, Any], key: str) -> tuple[Any, Any, str]:
    page = new_page(browser, server)
    page.goto(f"{server['base']}/play/{server['sessions'][key]}/")
    page.wait_for_selector(".conn[data-state=online]")
    return page, page.frame_locator(".play-custom iframe"), ""


def playtest(browser: Any, server: dict[str, Any], key: str) -> tuple[Any, Any, str]:
    page = new_page(browser, server)
    page.goto(f"{server['base']}/studio/w/{server['worlds'][key]}/")
    page.wait_for_selector("[data-playtest-reset]")
    page.check('#playtest-panel input[name="mode"]')
    page.click("[data-playtest-reset]")
    page.wait_for_selector("#playtest-panel .conn[data-state=online]")
    return page, page.frame_locator("#playtest-panel .play-custom iframe"), "#playtest-panel "


def computed(page: Any, selector: str, prop: str) -> str:
    frame = next(f for f in page.frames if "/play/ui/" in f.url)
    for _ in range(100):  # Tailwind writes its CSS once it has seen the class names
        value = str(
            frame.evaluate(f"getComputedStyle(document.querySelector({selector!r})).{prop}")
        )
        if value not in ("", "0px", "rgba(0, 0, 0, 0)", "block"):
            return value
        page.wait_for_timeout(100)
    return value


def type_in_the_worlds_input(ui: Any, text: str) -> None:
    ui.locator(".fy-input textarea").fill(text)
    ui.locator(".fy-input button[type=submit]").click()


@pytest.mark.parametrize("where", [published, playtest], ids=["published", "playtest"])
def test_the_custom_bubble_example(browser: Any, server: dict[str, Any], where: Any) -> None:
    page, ui, scope = where(browser, server, "bubble")
    ui.locator(".seed-bubble.seed-assistant", has_text="The wind rises.").wait_for()
    assert computed(page, ".seed-bubble", "paddingTop") == "16px"  # p-4
    type_in_the_worlds_input(ui, "I walk into the wind")
    ui.locator(".seed-bubble.seed-user", has_text="I walk into the wind").wait_for()
    ui.locator(".seed-bubble.seed-assistant").nth(1).wait_for()  # the narrator answered
    assert page.locator(f"{scope}[data-ui-errors]").count() == 0
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize("where", [published, playtest], ids=["published", "playtest"])
def test_the_full_application_example(browser: Any, server: dict[str, Any], where: Any) -> None:
    page, ui, scope = where(browser, server, "full")
    ui.locator("#hp", has_text="HP: 90").wait_for()
    assert computed(page, "#app", "backgroundColor") == "rgb(26, 26, 46)"  # bg-[#1a1a2e]
    assert computed(page, "#app", "color") == "rgb(224, 224, 224)"  # text-[#e0e0e0]
    assert computed(page, "#app", "rowGap") == "16px"  # gap-4
    type_in_the_worlds_input(ui, "Hello, dunes")
    ui.locator(".fy-list li", has_text=re.compile("^Hello, dunes$")).wait_for()
    assert page.locator(f"{scope}[data-ui-errors]").count() == 0
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize("where", [published, playtest], ids=["published", "playtest"])
def test_the_multi_file_example(browser: Any, server: dict[str, Any], where: Any) -> None:
    page, ui, scope = where(browser, server, "multi")
    ui.locator("#status", has_text="Multi Dunes").wait_for()
    assert ui.locator("#map li").all_text_contents() == ["Dunes", "Oasis"]
    ui.locator(".fy-chat").wait_for()
    assert computed(page, "#status", "display") == "flex"
    assert page.locator(f"{scope}[data-ui-errors]").count() == 0
    assert page.errors == []
    page.context.close()


def test_the_seed_examples_are_what_this_module_plays() -> None:
    """The files above are the seed's examples with types added, nothing else changed."""
    assert 'import Bubble from "./bubble";' in BUBBLE_APP["index.tsx"]
    assert "<Chat renderBubble={Bubble} />" in BUBBLE_APP["index.tsx"]
    assert (
        "<MessageList />" in FULL_APP["index.tsx"] and "<MessageInput />" in FULL_APP["index.tsx"]
    )
    assert f'className="{SEED_CLASSES}"' in FULL_APP["index.tsx"]
