"""A signed-in page: the one way the browser tests open the site as one of its users.

Each user gets a fresh context of the worker's one Chromium (conftest.py's ``browser``), so no
cookie or storage leaks between users; the session cookie (``server[who]``, set up by the
module's seed script) and, when asked, the language cookie are set for the server's origin.
What the page reports is collected on ``page.errors``: uncaught exceptions always; console
errors all of them (``console="errors"``), only the site CSP's violations, which Chromium logs
as errors (``console="csp"``), or none (``console=None``, for modules that listen themselves).
"""

from __future__ import annotations

from typing import Any, Literal

Console = Literal["errors", "csp"] | None


def signed_in_page(
    browser: Any,
    server: dict[str, Any],
    *,
    who: str = "cookie",
    language: str | None = None,
    console: Console = "errors",
    timeout_ms: float | None = None,
    **context_options: Any,
) -> Any:
    """A new page in a new context, signed in as ``who``; Playwright's context options pass on."""
    context = browser.new_context(**context_options)
    if timeout_ms is not None:
        context.set_default_timeout(timeout_ms)
    cookies = [{"name": "sessionid", "value": server[who], "url": server["base"]}]
    if language:
        cookies.append({"name": "django_language", "value": language, "url": server["base"]})
    context.add_cookies(cookies)
    page = context.new_page()
    page.errors = collect_errors(page, console)
    return page


def collect_errors(page: Any, console: Console = "errors") -> list[str]:
    """What ``page`` reports from now on: uncaught exceptions, and the console errors asked for
    (a CSP violation is one, as Chromium logs it)."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    if console is not None:
        csp_only = console == "csp"

        def record(msg: Any) -> None:
            if msg.type == "error" and (not csp_only or "Content Security Policy" in msg.text):
                errors.append(msg.text)

        page.on("console", record)
    return errors


def client_js(expr: str) -> str:
    """A JS expression evaluated with ``c``, the page's PlayClient."""
    client = "document.querySelector('[data-play-root]').__fabulaPlay"
    return f"(() => {{ const c = {client}; return {expr}; }})()"


def held(page: Any) -> int:
    """How many messages the play page holds."""
    return int(page.evaluate(client_js("c.messages.length")))


def wait_settled(page: Any, count: int, timeout: int = 20000) -> None:
    """Until the play page holds ``count`` messages and nothing streams."""
    page.wait_for_function(
        client_js(f"c.messages.length === {count} && c.streamingId === null"), timeout=timeout
    )
