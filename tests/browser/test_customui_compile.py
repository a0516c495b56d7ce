"""A world's custom UI in TypeScript with Tailwind classes, compiled in the sandbox (issue 15).

Real Chromium against ``runserver``: the sandbox compiles the world's TSX files with the
vendored sucrase (static/js/compile.js), runs them as modules that import each other, and the
vendored Tailwind styles their class names. A file that does not compile, or a component that
throws, leaves play working: the built-in chat comes back and a notice names
``path:line:column``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.browser.pages import signed_in_page
from tests.browser.servers import AppServers

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

INDEX = """import { Panel } from "./components/Panel";
import Stat from "./components/stat.tsx";
import { clamp, type Range } from "./lib";
import type { Hero } from "./types";

interface AppProps { title?: string }

enum Mood { Calm = "calm", Angry = "angry" }

function first<T>(items: readonly T[], fallback: T): T {
  return items.length ? items[0] : fallback;
}

export default function App({ title = "Dunes" }: AppProps): JSX.Element {
  const api = useYumina();
  const hero: Hero = { name: first<string>(["Mirela"], "nobody"), hp: 80 };
  const range: Range = { min: 0, max: 50 };
  const shown = clamp(hero.hp as number, range);
  return (
    <div className="flex flex-col gap-4 bg-[#1a1a2e] text-[#e0e0e0]" id="app">
      <Panel heading={title}>
        <Stat id="stat" label={hero.name} value={shown} />
      </Panel>
      <div id="tw" className="bg-red-500 p-4">{Mood.Calm}</div>
      <Chat />
    </div>
  );
}
"""
PANEL = """import type { ReactNode } from "react";

type PanelProps = { heading: string; children?: ReactNode };

export function Panel(props: PanelProps) {
  return <section id="panel"><h2>{props.heading}</h2>{props.children}</section>;
}
"""
STAT = """type StatProps<V> = { id: string; label: string; value: V };
export default function Stat<V extends number>(p: StatProps<V>) {
  return <p id={p.id}>{p.label}: {p.value}</p>;
}
"""
LIB = """export interface Range { min: number; max: number }
export const clamp = (value: number, r: Range): number => Math.min(r.max, Math.max(r.min, value));
"""
TYPES = "export interface Hero { name: string; hp: number }\n"
BROKEN = """export default function Broken() {
  const ok = 1;
  const x = ;
  return <p>{ok}</p>;
}
"""
BOMB = """import React from "react";

export default function Bomb(): React.ReactElement {
  const n: number = 1; throw new Error("the bomb went off");
}
"""


def ui_world(name: str, files: dict[str, str]) -> dict[str, Any]:
    return {
        "version": "20.0.0",
        "name": name,
        "language": "en",
        "entries": [
            {"id": "narrator", "content": "You narrate.", "role": "system"},
            {"id": "hello", "content": "The wind rises.", "role": "greeting"},
        ],
        "rootComponent": {"id": "ui", "name": "UI", "entryFile": "index.tsx", "files": files},
    }


WORLDS = {
    "typed": ui_world(
        "Typed Dunes",
        {
            "index.tsx": INDEX,
            "components/Panel.tsx": PANEL,
            "components/stat.tsx": STAT,
            "lib/index.ts": LIB,
            "types.ts": TYPES,
        },
    ),
    "broken": ui_world(
        "Broken Dunes",
        {
            "index.tsx": 'import Broken from "./broken";\nexport default Broken;\n',
            "broken.tsx": BROKEN,
        },
    ),
    "bomb": ui_world(
        "Bombed Dunes",
        {
            "index.tsx": 'import Bomb from "./parts/Bomb";\nexport default Bomb;\n',
            "parts/Bomb.tsx": BOMB,
        },
    ),
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


def open_play(browser: Any, server: dict[str, Any], world: str) -> Any:
    viewport = {"width": 1280, "height": 900}
    page = signed_in_page(browser, server, console=None, timeout_ms=15_000, viewport=viewport)
    page.goto(f"{server['base']}/play/{server['sessions'][world]}/")
    page.wait_for_selector(".conn[data-state=online]")
    return page


def style_of(frame: Any, selector: str, prop: str) -> str:
    return str(frame.evaluate(f"getComputedStyle(document.querySelector({selector!r})).{prop}"))


def sandbox_frame(page: Any) -> Any:
    return next(f for f in page.frames if "/play/ui/" in f.url)


def test_typescript_world_with_imports_and_tailwind_renders_in_play(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_play(browser, server, "typed")
    ui = page.frame_locator(".play-custom iframe")
    ui.locator("#stat", has_text="Mirela: 50").wait_for()
    ui.locator("#panel h2", has_text="Dunes").wait_for()
    assert ui.locator("#tw").text_content() == "calm"
    frame = sandbox_frame(page)
    # Tailwind writes its CSS after it has seen the class names: wait for the padding.
    for _ in range(100):
        if style_of(frame, "#tw", "paddingTop") == "16px":
            break
        page.wait_for_timeout(100)
    assert style_of(frame, "#tw", "paddingTop") == "16px"  # p-4
    assert style_of(frame, "#tw", "backgroundColor") not in ("", "rgba(0, 0, 0, 0)")  # bg-red-500
    assert style_of(frame, "#app", "backgroundColor") == "rgb(26, 26, 46)"  # bg-[#1a1a2e]
    assert style_of(frame, "#app", "display") == "flex"
    assert page.locator("[data-ui-errors]").count() == 0
    page.context.close()


def test_syntax_error_names_the_place_and_the_built_in_chat_still_plays(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_play(browser, server, "broken")
    notice = page.locator("[data-ui-errors]")
    notice.wait_for()
    assert "broken.tsx:3:13: Unexpected token" in notice.text_content()
    assert page.locator("[data-chat]").is_visible()
    page.fill("[data-input]", "Still playing")
    page.click("[data-send]")
    page.wait_for_selector("[data-chat] :text('Still playing')")
    page.context.close()


def test_component_that_throws_names_its_line_and_the_built_in_chat_comes_back(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_play(browser, server, "bomb")
    notice = page.locator("[data-ui-errors]")
    notice.wait_for()
    # Line and column in the creator's file, the stripped type before it notwithstanding.
    assert "parts/Bomb.tsx:4:30: the bomb went off" in notice.text_content()
    assert page.locator("[data-chat]").is_visible()
    page.fill("[data-input]", "Still here")
    page.click("[data-send]")
    page.wait_for_selector("[data-chat] :text('Still here')")
    page.context.close()


def test_playtest_shows_the_compile_error_and_keeps_the_built_in_chat(
    browser: Any, server: dict[str, Any]
) -> None:
    viewport = {"width": 1280, "height": 900}
    page = signed_in_page(browser, server, console=None, timeout_ms=15_000, viewport=viewport)
    page.goto(f"{server['base']}/studio/w/{server['worlds']['broken']}/")
    page.wait_for_selector("[data-playtest-reset]")
    page.check('#playtest-panel input[name="mode"]')
    page.click("[data-playtest-reset]")
    notice = page.locator("#playtest-panel [data-ui-errors]")
    notice.wait_for()
    assert "broken.tsx:3:13: Unexpected token" in notice.text_content()
    page.wait_for_selector("#playtest-panel .conn[data-state=online]")
    page.fill("#playtest-panel [data-input]", "Testing on")
    page.click("#playtest-panel [data-send]")
    page.wait_for_selector("#playtest-panel [data-chat] :text('Testing on')")
    page.context.close()


REPORT = """async ([id, report]) => {
  const reply = new Promise((resolve) => {
    window.addEventListener("message", (e) => {
      if (e.data && e.data.type === "reply" && e.data.id === id) resolve(e.data);
    });
  });
  window.top.postMessage({ fabula: "ui", id, method: "uiError", args: [report] }, "*");
  return await reply;
}"""


def test_host_refuses_a_malformed_error_report_and_shows_a_runtime_one_without_fallback(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_play(browser, server, "typed")
    page.frame_locator(".play-custom iframe").locator("#stat").wait_for()
    frame = sandbox_frame(page)
    forged = {"errors": [{"path": 5, "line": "x", "column": 1, "message": "hi"}], "fatal": True}
    reply = frame.evaluate(REPORT, [41, forged])
    assert reply["ok"] is False and reply["error"] == "bad error report"
    assert page.locator("[data-ui-errors]").count() == 0
    assert page.locator("[data-custom-ui]").is_visible()
    error = {"path": "index.tsx", "line": 7, "column": 3, "message": "<b>late</b>"}
    reply = frame.evaluate(REPORT, [42, {"errors": [error], "fatal": False}])
    assert reply["ok"] is True
    assert "index.tsx:7:3: <b>late</b>" in page.locator("[data-ui-errors]").text_content()
    assert page.locator("[data-ui-errors] b").count() == 0  # text, never markup
    assert page.locator("[data-custom-ui]").is_visible()  # not fatal: the UI stays
    page.context.close()
