"""The user's own provider: the key is write-only and shown masked."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from play.crypto import decrypt_secret
from play.models import ProviderSetting
from play.providers import save_provider_setting
from tests.studio.view_helpers import errors_of, hx, is_partial

pytestmark = pytest.mark.django_db
KEY = "sk-test-1234567890abcdef"


def test_form_shows_the_site_default(client: Client, alice: Any, settings: Any) -> None:
    settings.FABULA_PROVIDER = "openai"
    settings.FABULA_MODEL = "gpt-test"
    client.force_login(alice)
    html = client.get(reverse("play:provider")).content.decode()
    assert "The site's default narrator is openai (model gpt-test)." in html
    assert "No key saved." in html


def test_saving_stores_the_key_encrypted_and_shows_only_a_hint(
    client: Client, alice: Any, settings: Any
) -> None:
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True  # a local Ollama, as the operator allowed
    client.force_login(alice)
    response = client.post(
        reverse("play:provider"),
        {
            "provider": "openai",
            "base_url": "http://127.0.0.1:11434/v1",
            "model": "llama3",
            "api_key": KEY,
        },
    )
    assert response["Location"] == reverse("play:provider")
    setting = ProviderSetting.objects.get(user=alice)
    assert KEY not in setting.api_key_encrypted
    assert decrypt_secret(setting.api_key_encrypted) == KEY
    html = client.get(reverse("play:provider")).content.decode()
    assert KEY not in html
    assert "sk-…cdef" in html


def test_a_blank_key_keeps_the_saved_one(client: Client, alice: Any) -> None:
    save_provider_setting(alice, provider="openai", api_key=KEY)
    client.force_login(alice)
    client.post(reverse("play:provider"), {"provider": "anthropic", "model": "claude"})
    setting = ProviderSetting.objects.get(user=alice)
    assert setting.provider == "anthropic"
    assert decrypt_secret(setting.api_key_encrypted) == KEY


def test_clearing_removes_the_key(client: Client, alice: Any) -> None:
    save_provider_setting(alice, provider="openai", api_key=KEY)
    client.force_login(alice)
    client.post(reverse("play:provider"), {"provider": "openai", "clear_key": "on"})
    assert ProviderSetting.objects.get(user=alice).api_key_encrypted == ""


def test_bad_input_re_renders_with_the_errors(client: Client, alice: Any) -> None:
    client.force_login(alice)
    response = client.post(
        reverse("play:provider"), {"provider": "skynet", "base_url": "not a url"}, **hx()
    )
    assert response.status_code == 400
    assert is_partial(response)
    assert errors_of(response) == [
        "Select a valid choice. skynet is not one of the available choices.",
        "Enter a valid URL.",
    ]
    assert not ProviderSetting.objects.exists()


def test_a_new_key_and_clearing_at_once_is_refused(client: Client, alice: Any) -> None:
    client.force_login(alice)
    response = client.post(
        reverse("play:provider"), {"provider": "openai", "api_key": KEY, "clear_key": "on"}
    )
    assert response.status_code == 400
    assert errors_of(response) == ["Either enter a new key or remove the saved one."]


def test_the_key_is_never_rendered_back_into_the_form(client: Client, alice: Any) -> None:
    client.force_login(alice)
    response = client.post(reverse("play:provider"), {"provider": "bad", "api_key": KEY})
    assert response.status_code == 400
    assert KEY not in response.content.decode()


def test_reset_forgets_the_settings(client: Client, alice: Any) -> None:
    save_provider_setting(alice, provider="openai", api_key=KEY)
    client.force_login(alice)
    response = client.post(reverse("play:provider_reset"))
    assert response["Location"] == reverse("play:provider")
    assert not ProviderSetting.objects.exists()


def test_provider_pages_need_login(client: Client) -> None:
    assert client.get(reverse("play:provider")).status_code == 302
    assert client.post(reverse("play:provider_reset")).status_code == 302


def test_reset_refuses_get(client: Client, alice: Any) -> None:
    client.force_login(alice)
    assert client.get(reverse("play:provider_reset")).status_code == 405


def test_provider_refuses_delete(client: Client, alice: Any) -> None:
    client.force_login(alice)
    assert client.delete(reverse("play:provider")).status_code == 405
