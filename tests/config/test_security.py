"""Response hardening (config/security.py): the nonce CSP and security headers on every page,
templates with no inline code, error pages that show nothing of the site, offline API docs."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.views.debug import get_exception_reporter_filter

from config.security import SecurityHeadersMiddleware
from play.sessions import start_session
from studio.publishing import publish_world

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def policy(response: HttpResponse) -> dict[str, str]:
    """The Content-Security-Policy as ``{directive: sources}``."""
    parts = (part.strip() for part in response["Content-Security-Policy"].split(";"))
    return dict(tuple(part.split(" ", 1)) for part in parts if part)  # type: ignore[misc]


def nonce_of(response: HttpResponse) -> str:
    match = re.search(r"'nonce-([^']+)'", policy(response)["script-src"])
    assert match, response["Content-Security-Policy"]
    return match.group(1)


class InlineCode(HTMLParser):
    """The inline scripts and styles of a page (with their nonce), and inline handlers/styles."""

    def __init__(self) -> None:
        super().__init__()
        self.inline: list[tuple[str, str | None]] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.attributes += [
            f"<{tag} {name}=...>" for name in found if name.startswith("on") or name == "style"
        ]
        data_block = found.get("type") not in (None, "", "text/javascript", "module")
        if (tag == "script" and "src" not in found and not data_block) or tag == "style":
            self.inline.append((tag, found.get("nonce")))


@pytest.fixture
def responses(client, alice, world) -> list[tuple[str, HttpResponse]]:
    """A page of each kind: public, account, studio, play (framing the sandbox), API, errors."""
    session = start_session(alice, publish_world(world), mode="offline", dice_seed=7)
    anonymous = ["/accounts/login/", "/accounts/signup/"]
    signed_in = [
        "/",
        "/studio/",
        f"/studio/w/{world.pk}/",
        "/play/",
        f"/play/{session.pk}/",
        "/play/provider/",
        "/api/docs",
        "/api/health",
        "/no-such-page/",
    ]
    fetched = [(url, client.get(url)) for url in anonymous]
    client.force_login(alice)
    return fetched + [(url, client.get(url)) for url in signed_in]


def test_every_page_carries_the_security_headers(responses):
    for url, response in responses:
        assert response.status_code in (200, 404), url
        assert response["X-Content-Type-Options"] == "nosniff", url
        assert response["Referrer-Policy"] == "same-origin", url
        assert response["Cross-Origin-Opener-Policy"] == "same-origin", url
        assert response["X-Frame-Options"] == "DENY", url
        assert "camera=()" in response["Permissions-Policy"], url
        assert "microphone=()" in response["Permissions-Policy"], url
        csp = policy(response)
        assert csp["default-src"] == "'self'", url
        assert csp["object-src"] == "'none'", url
        assert csp["base-uri"] == "'self'", url
        assert csp["form-action"] == "'self'", url
        assert csp["frame-ancestors"] == "'none'", url  # follows X-Frame-Options: DENY


def test_the_policy_allows_no_inline_code_without_the_nonce_and_no_eval(client):
    response = client.get("/")
    csp = policy(response)
    nonce = nonce_of(response)
    assert csp["script-src"] == f"'self' 'nonce-{nonce}'"
    assert csp["style-src"] == f"'self' 'nonce-{nonce}'"
    assert "unsafe" not in response["Content-Security-Policy"]
    assert csp["connect-src"] == "'self' ws://testserver wss://testserver"
    assert csp["img-src"] == "'self' data: blob:"
    assert csp["frame-src"] == csp["child-src"] == "'self'"


def test_over_https_the_socket_may_only_use_wss(client):
    response = client.get("/", secure=True)
    assert policy(response)["connect-src"] == "'self' wss://testserver"


def test_the_nonce_is_new_for_every_request_and_marks_every_inline_script(responses):
    seen: set[str] = set()
    for url, response in responses:
        nonce = nonce_of(response)
        assert nonce not in seen and len(nonce) >= 16, url
        seen.add(nonce)
        parser = InlineCode()
        parser.feed(response.content.decode())
        for tag, tag_nonce in parser.inline:
            assert tag_nonce == nonce, f"{url}: an inline <{tag}> without this request's nonce"
        assert parser.attributes == [], url  # the policy would block these


def test_templates_have_no_inline_handlers_styles_or_eval():
    """What the CSP would block (or needs 'unsafe-eval' for) never reaches a page."""
    forbidden = re.compile(
        r"""<[a-zA-Z][^>]*?\s(on[a-z]+|style|hx-on[:\w-]*)\s*=|javascript:|hx-vals=["']js:""",
    )
    # The sandbox document runs the world's own code under its own policy (play/views/sandbox.py).
    own_policy = {ROOT / "templates/play/sandbox.html"}
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group(0)[:80]}"
        for path in sorted((ROOT / "templates").rglob("*.html"))
        if path not in own_policy
        for match in forbidden.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_scripts_need_no_eval():
    evaluating = re.compile(r"\beval\(|new Function\(|set(Timeout|Interval)\(\s*[\"']")
    offenders = [
        path.name
        for path in sorted((ROOT / "static/js").glob("*.js"))
        if evaluating.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_htmx_runs_without_eval_and_without_injected_styles(client):
    page = client.get("/").content.decode()
    meta = re.search(r"""<meta name="htmx-config" content='([^']*)'>""", page)
    assert meta is not None
    config = json.loads(meta.group(1))
    assert config["allowEval"] is False and config["includeIndicatorStyles"] is False
    # A form refused with 400/409/422 shows its errors; other errors swap nothing.
    swapped = {rule["code"]: rule["swap"] for rule in config["responseHandling"]}
    assert swapped["(400|409|422)"] is True and swapped["[45].."] is False
    css = (ROOT / "static/css/studio.css").read_text(encoding="utf-8")
    assert ".htmx-request .htmx-indicator" in css  # the rule htmx no longer injects


# --- the per-response hooks ------------------------------------------------------------------


def run_middleware(response: HttpResponse, **request_attrs: object) -> HttpResponse:
    request = RequestFactory().get("/play/x/")
    for name, value in request_attrs.items():
        setattr(request, name, value)
    middleware = SecurityHeadersMiddleware(lambda req: response)
    result = middleware(request)
    assert isinstance(result, HttpResponse)
    return result


def test_a_response_with_its_own_policy_keeps_it():
    own = HttpResponse("sandbox")
    own["Content-Security-Policy"] = "default-src 'none'; sandbox allow-scripts"
    result = run_middleware(own)
    assert result["Content-Security-Policy"] == "default-src 'none'; sandbox allow-scripts"
    assert "Permissions-Policy" in result


def test_only_djangos_debug_pages_go_without_a_policy(settings):
    """With DEBUG on, 404/500 are Django's technical pages, which style themselves inline."""
    settings.DEBUG = True
    assert "Content-Security-Policy" not in run_middleware(HttpResponse(status=500))
    assert "Content-Security-Policy" not in run_middleware(HttpResponse(status=404))
    assert "Content-Security-Policy" in run_middleware(HttpResponse(status=200))
    settings.DEBUG = False
    assert "Content-Security-Policy" in run_middleware(HttpResponse(status=500))


def test_a_view_narrows_where_frames_may_go():
    sandbox = "http://testserver/play/ui/"
    by_request = policy(run_middleware(HttpResponse("page"), csp_frame_src=sandbox))
    assert by_request["frame-src"] == by_request["child-src"] == sandbox
    assert by_request["default-src"] == "'self'"
    # play/csp.py puts a frame-only policy on the response and leaves its sources beside it:
    # the page still gets the whole policy, with those sources.
    framed = HttpResponse("page")
    framed["Content-Security-Policy"] = f"frame-src {sandbox}; child-src {sandbox}"
    framed.csp_frame_src = [sandbox]  # type: ignore[attr-defined]
    by_response = policy(run_middleware(framed))
    assert by_response["frame-src"] == by_response["child-src"] == sandbox
    assert by_response["script-src"].startswith("'self' 'nonce-")


def test_the_play_page_frames_only_the_sandbox(client, alice, world):
    session = start_session(alice, publish_world(world), mode="offline", dice_seed=7)
    client.force_login(alice)
    csp = policy(client.get(f"/play/{session.pk}/"))
    assert csp["frame-src"] == csp["child-src"] == "http://testserver/play/ui/"
    assert "nonce-" in csp["script-src"]


def test_a_bad_host_header_still_gets_a_policy_and_a_plain_400(client):
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert "evil.example" not in response["Content-Security-Policy"]
    assert "evil.example" not in response.content.decode()
    assert "studio.css" in response.content.decode()


# --- error pages ------------------------------------------------------------------------------


def leaks(body: str) -> list[str]:
    secrets = [
        django_settings.SECRET_KEY,
        django_settings.FABULA_KEY_ENCRYPTION_SECRET,
        "SECRET_KEY",
        "INSTALLED_APPS",
        "Traceback",
        "urlpatterns",
        "config.urls",
        str(ROOT),
    ]
    return [secret for secret in secrets if secret in body]


@pytest.mark.urls("tests.config.error_urls")
@pytest.mark.parametrize(
    ("url", "status", "heading"),
    [
        ("/no-such-page/", 404, "Page not found"),
        ("/boom/not-found/", 404, "Page not found"),
        ("/boom/forbidden/", 403, "You cannot open this page"),
        ("/boom/bad/", 400, "This request could not be understood"),
        ("/boom/crash/", 500, "Something went wrong on our side"),
    ],
)
def test_error_pages_are_styled_and_show_nothing_of_the_site(url, status, heading):
    client = Client(raise_request_exception=False)
    response = client.get(url)
    body = response.content.decode()
    assert response.status_code == status
    assert f"<h1>{heading}</h1>" in body
    assert 'href="/static/css/studio.css"' in body
    assert 'class="panel narrow error-page"' in body
    assert "the view's private detail" not in body  # the exception's text stays in the logs
    assert leaks(body) == []
    assert "nonce-" in response["Content-Security-Policy"]


def test_a_csrf_failure_gets_the_styled_page(db):
    response = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "x"})
    body = response.content.decode()
    assert response.status_code == 403
    assert "<h1>This form has expired</h1>" in body
    assert "studio.css" in body and leaks(body) == []


def test_error_reports_hide_urls_and_addresses_that_carry_passwords(settings):
    settings.DATABASE_URL = "postgres://fabula:hunter2@db.internal:5432/fabula"
    settings.REDIS_URL = "redis://:hunter2@cache.internal:6379/0"
    settings.CELERY_BROKER_URL = settings.REDIS_URL
    settings.CHANNEL_LAYERS = {"default": {"CONFIG": {"hosts": [{"address": settings.REDIS_URL}]}}}
    safe = get_exception_reporter_filter(HttpRequest()).get_safe_settings()
    assert "hunter2" not in repr(safe)
    assert safe["SECRET_KEY"] == safe["DATABASE_URL"] == "********************"


# --- API docs ---------------------------------------------------------------------------------


def test_the_api_docs_load_swagger_ui_from_this_site(client):
    response = client.get("/api/docs")
    body = response.content.decode()
    assert response.status_code == 200
    sources = re.findall(r"""(?:src|href)=["']([^"']+)["']""", body)
    assert "/static/ninja/swagger-ui-bundle.js" in sources
    assert "/static/ninja/swagger-ui.css" in sources
    assert [url for url in sources if "//" in url] == []  # nothing from a CDN
    for url in sources:
        assert finders.find(url.removeprefix("/static/")), url
    assert '"validatorUrl": null' in body  # no badge fetched from validator.swagger.io
    parser = InlineCode()
    parser.feed(body)
    assert parser.inline == []  # its settings are a JSON block, its code static files


def test_https_redirect_spares_only_the_health_probe(settings):
    settings.SECURE_SSL_REDIRECT = True  # production's default
    client = Client()  # a new handler reads the setting
    page = client.get("/accounts/login/")
    assert page.status_code == 301
    assert page["Location"] == "https://testserver/accounts/login/"
    assert client.get("/api/health").status_code == 200
