"""My model: "Test connection" and "List models" against the loopback model server through the
real openai and anthropic SDKs, the pick of a listed model, the SSRF guard, the daily allowance,
and that no answer ever shows the user's key (issue 16 §5)."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from play.crypto import encrypt_secret, mask_secret
from play.models import DailyActionCount, ProviderSetting
from play.netguard import UNREACHABLE
from play.provider_check import masked
from tests.studio.view_helpers import hx, is_partial
from tests.support.listeners import Listener
from tests.support.model_server import Fault, ModelServer, Reply

pytestmark = pytest.mark.django_db

KEY = "sk-alice-own-key-0123456789"
HINT = mask_secret(KEY)


def own(user: Any, base_url: str, provider: str = "openai", model: str = "test-model") -> None:
    """The user's provider as stored (no save-time address check, as if saved long ago)."""
    ProviderSetting.objects.update_or_create(
        user=user,
        defaults={
            "provider": provider,
            "base_url": base_url,
            "model": model,
            "api_key_encrypted": encrypt_secret(KEY),
            "api_key_hint": HINT,
        },
    )


def url_of(server: ModelServer, provider: str) -> str:
    return server.openai_url if provider == "openai" else server.anthropic_url


def try_(client: Client, name: str, **headers: Any) -> tuple[int, str]:
    response = client.post(reverse(f"play:provider_{name}"), **headers)
    return response.status_code, unescape(response.content.decode())


@pytest.fixture
def loopback_allowed(settings: Any) -> None:
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True  # the model server listens on 127.0.0.1


# --- test connection -------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_test_makes_one_tiny_request_with_the_saved_settings(
    client, alice, model_server, loopback_allowed, provider
):
    own(alice, url_of(model_server, provider), provider)
    model_server.script([Reply(text="OK")])
    client.force_login(alice)
    status, html = try_(client, "test", **hx())
    assert status == 200
    assert "Connected: test-model answered “OK”." in html
    request, *probes = model_server.requests  # an OpenAI-compatible server is probed (#37)
    assert all(p.body["tools"][0]["function"]["name"] == "note" for p in probes)
    assert len(probes) == (3 if provider == "openai" else 0)
    assert request.body["model"] == "test-model"
    assert request.body["max_tokens"] == 8
    key_header = request.headers.get("authorization") or request.headers["x-api-key"]
    assert KEY in key_header


def test_the_result_is_only_the_fragment_for_htmx(client, alice, model_server, loopback_allowed):
    own(alice, model_server.openai_url)
    client.force_login(alice)
    response = client.post(reverse("play:provider_test"), **hx())
    assert is_partial(response)
    assert response.content.decode().lstrip().startswith('<div id="provider-check"')


def test_without_htmx_the_whole_page_shows_the_result(
    client, alice, model_server, loopback_allowed
):
    own(alice, model_server.openai_url)
    client.force_login(alice)
    status, html = try_(client, "test")
    assert status == 200
    assert "<h1>My model</h1>" in html
    assert "Connected: test-model answered" in html


def test_a_refused_key_shows_the_servers_own_words(client, alice, model_server, loopback_allowed):
    own(alice, model_server.openai_url)
    model_server.script([Fault("401")])
    client.force_login(alice)
    _, html = try_(client, "test", **hx())
    assert "The model provider refused the API key. Check the key in the settings." in html
    assert "The server said: <code>Scripted error 401</code>" in html
    assert KEY not in html


def test_an_unknown_model_is_said_so(client, alice, model_server, loopback_allowed):
    own(alice, model_server.anthropic_url, "anthropic", model="claude-nope")
    model_server.script([Fault("404")])
    client.force_login(alice)
    _, html = try_(client, "test", **hx())
    assert "The model provider does not know this model. Check the model name." in html
    assert "Scripted error 404" in html


def test_a_test_needs_a_model_name(client, alice, model_server, loopback_allowed, settings):
    settings.FABULA_MODEL = ""
    own(alice, model_server.openai_url, model="")
    client.force_login(alice)
    _, html = try_(client, "test", **hx())
    assert "Name a model first: “List models” shows what your server offers." in html
    assert model_server.requests == []


@pytest.mark.parametrize("name", ["test", "models"])
def test_nothing_is_tried_without_an_own_provider(client, alice, name):
    client.force_login(alice)
    _, html = try_(client, name, **hx())
    assert "Save a provider other than offline first." in html
    ProviderSetting.objects.create(user=alice, provider="offline")
    _, html = try_(client, name, **hx())
    assert "Save a provider other than offline first." in html
    assert not DailyActionCount.objects.exists()  # nothing tried, nothing counted


# --- list models and pick one ----------------------------------------------------------------


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_models_the_server_offers_are_listed(
    client, alice, model_server, loopback_allowed, provider
):
    own(alice, url_of(model_server, provider), provider)
    model_server.models = ["zeta-large", "alpha-small", "test-model"]
    client.force_login(alice)
    status, html = try_(client, "models", **hx())
    assert status == 200
    assert "The server offers 3 models. Pick one to use it." in html
    assert html.index('value="alpha-small"') < html.index('value="zeta-large"')
    assert '<option value="test-model" selected>' in html  # the saved one
    (request,) = model_server.list_requests
    assert request.method == "GET"
    assert ("anthropic-version" in request.headers) is (provider == "anthropic")
    assert model_server.requests == []  # listing asks no model anything


def test_a_listing_refused_by_the_server_says_why(client, alice, model_server, loopback_allowed):
    own(alice, model_server.openai_url)
    model_server.models_fault = 401
    client.force_login(alice)
    _, html = try_(client, "models", **hx())
    assert "The model provider refused the API key. Check the key in the settings." in html
    assert "Scripted error 401" in html
    assert "<select" not in html


def test_picking_a_listed_model_saves_it_into_the_model_field(client, alice, model_server):
    own(alice, model_server.openai_url)
    client.force_login(alice)
    response = client.post(reverse("play:provider_pick"), {"model": "alpha-small"}, **hx())
    html = unescape(response.content.decode())
    assert response.status_code == 200
    assert is_partial(response)
    assert 'id="provider-form"' in html
    assert 'name="model" value="alpha-small"' in html
    assert "Your model is now alpha-small." in html
    setting = ProviderSetting.objects.get(user=alice)
    assert (setting.model, setting.base_url) == ("alpha-small", model_server.openai_url)
    assert setting.api_key_hint == HINT  # the key stays


def test_picking_without_htmx_redirects_with_a_message(client, alice, model_server):
    own(alice, model_server.openai_url)
    client.force_login(alice)
    response = client.post(reverse("play:provider_pick"), {"model": "alpha-small"}, follow=True)
    assert response.redirect_chain == [(reverse("play:provider"), 302)]
    assert "Your model is now alpha-small." in unescape(response.content.decode())


def test_picking_needs_saved_settings_and_a_name(client, alice):
    client.force_login(alice)
    response = client.post(reverse("play:provider_pick"), {"model": "alpha-small"}, **hx())
    assert response.status_code == 400
    assert "Save your model settings first." in response.content.decode()
    response = client.post(reverse("play:provider_pick"), {"model": ""}, **hx())
    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    assert not ProviderSetting.objects.exists()


# --- the SSRF guard --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["test", "models"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_loopback_server_gets_the_generic_refusal_and_no_connection(
    client, alice, name, provider
):
    listener = Listener("127.0.0.1")
    try:
        own(alice, f"http://127.0.0.1:{listener.port}/v1", provider)
        client.force_login(alice)
        _, html = try_(client, name, **hx())
    finally:
        listener.close()
    assert f"{UNREACHABLE}</span>" in html
    assert "The server said" not in html
    assert listener.accepted == 0


@pytest.mark.parametrize("name", ["test", "models"])
def test_a_server_that_does_not_answer_reads_the_same(client, alice, loopback_allowed, name):
    listener = Listener("127.0.0.1", reply=b"SSH-2.0-OpenSSH_9.6\r\n")
    try:
        own(alice, f"http://127.0.0.1:{listener.port}/v1")
        client.force_login(alice)
        _, html = try_(client, name, **hx())
    finally:
        listener.close()
    assert f"{UNREACHABLE}</span>" in html
    assert "SSH" not in html
    assert listener.accepted >= 1


# --- the allowance and the checklist ---------------------------------------------------------


def test_tries_are_limited_per_day(client, alice, model_server, loopback_allowed, settings):
    settings.FABULA_PROVIDER_CHECKS = 2
    own(alice, model_server.openai_url)
    client.force_login(alice)
    try_(client, "test", **hx())
    try_(client, "models", **hx())
    _, html = try_(client, "test", **hx())
    assert "You have tried your model settings often today. Try again tomorrow." in html
    tests = [r for r in model_server.requests if "tools" not in r.body]  # not the probe's
    assert len(tests) + len(model_server.list_requests) == 2
    assert DailyActionCount.objects.get(subject=f"provider-check:user:{alice.pk}").count == 2


@pytest.mark.parametrize("name", ["test", "models", "pick"])
def test_the_buttons_need_login_and_a_post(client, alice, name):
    url = reverse(f"play:provider_{name}")
    response = client.post(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    client.force_login(alice)
    assert client.get(url).status_code == 405


def test_the_page_offers_both_buttons(client, alice):
    client.force_login(alice)
    html = client.get(reverse("play:provider")).content.decode()
    assert "data-provider-test" in html
    assert "data-provider-models" in html
    assert f'hx-post="{reverse("play:provider_test")}"' in html


def test_the_key_is_masked_in_what_a_server_says():
    assert masked(f"Incorrect API key provided: {KEY}.", KEY) == (
        f"Incorrect API key provided: {HINT}."
    )
    assert masked(f"key '{KEY[:14]}' is unknown", KEY) == f"key '{HINT}' is unknown"
    assert masked("rate limited", KEY) == "rate limited"
    assert masked("the key sk-a is short", KEY) == "the key sk-a is short"
