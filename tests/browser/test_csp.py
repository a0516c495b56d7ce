"""The site under its Content-Security-Policy in real Chromium (config/security.py): htmx, the
studio's scripts and the API docs work, and the browser reports no violation."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser.pages import collect_errors

pytestmark = [pytest.mark.django_db(transaction=True)]

PASSWORD = "salty-caravan-42"


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def watch(page: Any) -> list[str]:
    """Every CSP violation the page reports (Chromium logs each one as a console error)."""
    return collect_errors(page, "csp")


def offline(page: Any, base: str) -> list[str]:
    """Refuse (and record) every request to a host other than the site's."""
    elsewhere: list[str] = []
    site = urlsplit(base).netloc

    def route(route: Any) -> None:
        if urlsplit(route.request.url).netloc == site:
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", route)
    return elsewhere


def test_htmx_and_the_studio_scripts_work_with_no_violation(
    new_page: Callable[..., Any], live_server: Any
) -> None:
    page = new_page()
    violations = watch(page)
    page.goto("/accounts/signup/", timeout=60_000)  # may be the live server's first request
    page.fill("#id_username", "dana")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main button[type=submit]")
    expect(page.locator("h1")).to_have_text("My worlds")
    page.fill("#id_name", "The Salt Road")
    page.click("text=Create world")
    expect(page.locator(".editor-head h1")).to_have_text("The Salt Road")
    # An htmx swap that pushes a URL: the entry form.
    page.click(".editor-nav >> text=Entries")
    page.click("text=+ New")
    expect(page).to_have_url(re.compile(r"/new/$"))
    expect(page.locator("#form-title")).to_have_text("New entry")
    # The delete form asks first (studio.js, no inline onsubmit): refuse, then accept.
    page.click(".editor-nav >> text=Overview")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("text=Delete world")
    expect(page.locator(".editor-head h1")).to_have_text("The Salt Road")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("text=Delete world")
    expect(page.locator("h1")).to_have_text("My worlds")
    # The language switcher submits itself (studio.js).
    page.select_option("#language-select", "es")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    page.goto("/no-such-page/")
    expect(page.locator(".error-page .error-code")).to_have_text("404")
    assert violations == []


def test_the_api_docs_render_with_no_network_and_no_violation(
    new_page: Callable[..., Any], live_server: Any
) -> None:
    page = new_page()
    violations = watch(page)
    elsewhere = offline(page, live_server.url)
    page.goto("/api/docs", timeout=60_000)
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Fabula API")
    expect(page.locator(".opblock").first).to_be_visible()
    page.locator(".opblock-summary").first.click()  # an operation opens (React, no eval)
    expect(page.locator(".opblock-body").first).to_be_visible()
    assert elsewhere == []
    assert violations == []
