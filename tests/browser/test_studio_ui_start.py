"""A creator's first custom UI in real Chromium (issue 35, item 5).

The help names ``<Chat />`` as text (not swallowed as an HTML tag); a new index.tsx starts
from a working starter that runs in the preview; ``<div>…</p>`` is a compile error with its
place; and a runtime error the preview reported goes away on the next good compile, before
any Save.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_studio_ui_editor import expect, open_editor, type_source

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(180),
    pytest.mark.django_db(transaction=True),
]

MISMATCHED = 'export default function App() {\n  return <div className="x">hi</p>;\n}'
THROWS = 'export default function App(): JSX.Element {\n  throw new Error("boom");\n}'
FIXED = 'export default function App() {\n  return <div className="fixed">fixed</div>;\n}'


def test_a_new_ui_starts_from_a_working_starter_and_the_help_shows_chat(
    new_page: Any, world: Any
) -> None:
    page = open_editor(new_page, world)
    expect(page.locator("[data-ui-start]")).to_contain_text("<Chat />")
    expect(page.locator(".ui-api-help")).to_contain_text('from "yumina"')
    page.click(".ui-new-file button[type=submit]")  # the path is index.tsx already
    expect(page.locator(".ui-code .cm-editor")).to_be_visible()
    world.refresh_from_db()
    source = world.root_files.get(path="index.tsx").source
    assert 'import { Chat, useYumina } from "yumina";' in source
    frame = page.frame_locator(".ui-preview-frame")
    expect(frame.locator(".starter-ui .fy-chat")).to_be_visible()
    expect(frame.locator(".starter-header")).to_contain_text(world.name)
    expect(page.locator("[data-ui-errors] li")).to_have_count(0)


def test_a_jsx_tag_mismatch_is_a_compile_error(new_page: Any, world: Any) -> None:
    page = open_editor(new_page, world)
    page.click(".ui-new-file button[type=submit]")
    expect(page.locator(".ui-code .cm-editor")).to_be_visible()
    type_source(page, MISMATCHED)
    error = page.locator("[data-ui-errors] li").first
    expect(error).to_contain_text("index.tsx:2:")
    expect(error).to_contain_text("closing tag for <div>")
    expect(page.locator("[data-error-for='index.tsx']")).to_contain_text("</p>")


def test_a_fixed_runtime_error_clears_on_the_next_good_compile(new_page: Any, world: Any) -> None:
    page = open_editor(new_page, world)
    page.click(".ui-new-file button[type=submit]")
    expect(page.locator(".ui-code .cm-editor")).to_be_visible()
    type_source(page, THROWS)
    expect(page.locator("[data-ui-errors] li").first).to_contain_text("boom")
    type_source(page, FIXED)
    expect(page.frame_locator(".ui-preview-frame").locator(".fixed")).to_have_text("fixed")
    expect(page.locator("[data-ui-errors] li")).to_have_count(0)
    world.refresh_from_db()
    assert "boom" not in world.root_files.get(path="index.tsx").source  # never saved
