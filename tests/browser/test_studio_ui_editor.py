"""The studio's custom-UI editor in real Chromium (issue 15, "Studio").

A creator opens Custom UI, adds index.tsx, types TypeScript with JSX into the highlighted
editor, saves, and sees it run in the preview's sandbox frame with the sample state; a syntax
error shows its path:line:column in the tree, under the editor and on the editor's line; a
second file in a folder is imported; the preview follows unsaved typing; and without the
in-browser compiler the editor's parser still flags the syntax error.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(180),
    pytest.mark.django_db(transaction=True),
]

APP = (
    "export default function App(): JSX.Element { const api = useYumina(); "
    "const hp: number = Number(api.variables.health ?? 0); "
    'return <div className="hello">Hello from TSX, hp {hp}, {api.messages.length} messages</div>; }'
)
BROKEN = "export default function App() {\nreturn <div>;\n}"
HELLO = (
    "export function Hello(props: { name: string }) "
    '{ return <b className="hi">Hi {props.name}</b>; }'
)
WITH_IMPORT = (
    'import { Hello } from "./parts/hello";\n'
    'export default function App() { return <Hello name="Mirela" />; }'
)


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def open_editor(new_page: Any, world: Any) -> Any:
    page = new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors
    page.goto("/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "password")
    page.click("main button[type=submit]")
    page.wait_for_load_state()
    page.goto(f"/studio/w/{world.pk}/ui/")
    return page


def type_source(page: Any, text: str) -> None:
    page.click(".ui-code .cm-content")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


def save(page: Any) -> None:
    with page.expect_response(lambda r: r.request.method == "POST" and "/ui/files/" in r.url):
        page.click(".ui-editor-form button[type=submit]")


def test_a_typed_tsx_file_runs_in_the_preview_and_errors_show_inline(
    new_page: Any, world: Any
) -> None:
    page = open_editor(new_page, world)
    expect(page.locator(".editor-nav a", has_text="Custom UI")).to_have_count(1)
    page.fill("#ui-new-path", "index.tsx")
    page.click(".ui-new-file button[type=submit]")
    editor = page.locator(".ui-code .cm-editor")
    expect(editor).to_be_visible()
    expect(page.locator(".ui-tree .ui-file[data-path='index.tsx'] .badge")).to_have_text("entry")

    type_source(page, APP)
    # Highlighted: the keywords and the JSX tag get token spans of their own.
    expect(page.locator(".ui-code .cm-content span").first).to_be_visible()
    assert page.locator(".ui-code .cm-content span").count() >= 5
    save(page)
    world.refresh_from_db()
    assert "Hello from TSX" in world.root_files.get(path="index.tsx").source

    frame = page.frame_locator(".ui-preview-frame")
    expect(frame.locator(".hello")).to_have_text("Hello from TSX, hp 100, 2 messages")

    type_source(page, BROKEN)
    where = page.locator("[data-error-for='index.tsx']")
    expect(where).to_contain_text("index.tsx:2:")
    expect(page.locator("[data-ui-errors] li").first).to_contain_text("index.tsx:2:")
    expect(page.locator(".ui-code .cm-error-line")).to_have_count(1)

    # A second file in a folder: leaving the unsaved broken edit asks first.
    page.once("dialog", lambda dialog: dialog.accept())
    page.fill("#ui-new-path", "parts/hello.tsx")
    page.click(".ui-new-file button[type=submit]")
    expect(page.locator(".ui-file-title")).to_have_text("parts/hello.tsx")
    expect(page.locator(".ui-tree .ui-dir")).to_contain_text("parts/")
    type_source(page, HELLO)
    save(page)
    page.click(".ui-tree .ui-file[data-path='index.tsx'] a")
    expect(page.locator(".ui-file-title")).to_have_text("index.tsx")
    type_source(page, WITH_IMPORT)
    save(page)
    expect(frame.locator(".hi")).to_have_text("Hi Mirela")
    expect(page.locator(".ui-code .cm-content")).to_contain_text(
        'import { Hello } from "./parts/hello"'
    )
    expect(page.locator("[data-ui-errors] li")).to_have_count(0)

    # The preview follows the typing (unsaved) once the files compile.
    type_source(page, WITH_IMPORT.replace("Mirela", "Tomas"))
    expect(frame.locator(".hi")).to_have_text("Hi Tomas")
    world.refresh_from_db()
    assert "Mirela" in world.root_files.get(path="index.tsx").source

    # Without the compiler (static/js/compile.js), the editor's own parser still flags it.
    page.evaluate("delete window.FabulaCompile")
    type_source(page, BROKEN)
    expect(page.locator("[data-ui-errors] li").first).to_contain_text("Syntax error")
    expect(page.locator("[data-error-for='index.tsx']")).to_contain_text("index.tsx:")
    # Last: a screenshot leaves style="" on inputs, which htmx's next swap would copy.
    shot(page, "studio-ui-editor")
    assert [e for e in page.errors if "Content Security Policy" in e] == []
