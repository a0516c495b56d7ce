"""Starting a guest preview acts on the browser's session cookie, so it checks CSRF like a form."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from play.models import Session

pytestmark = pytest.mark.django_db

URL = "/api/play/guest-sessions"


@pytest.fixture
def browser() -> Client:
    return Client(enforce_csrf_checks=True)


def csrf_of(browser: Client, version: Any) -> str:
    browser.get(reverse("play:preview", args=[version.pk]))  # the page that offers the preview
    return str(browser.cookies["csrftoken"].value)


def test_a_guest_session_without_the_csrf_token_is_refused(browser, version):
    csrf_of(browser, version)
    response = browser.post(URL, {"version_id": version.pk, "mode": "offline"}, "application/json")
    assert response.status_code == 403
    assert response.json() == {"detail": "CSRF check Failed", "errors": []}
    assert not Session.objects.exists()


def test_a_cross_site_post_with_a_guessed_token_is_refused(browser, version):
    csrf_of(browser, version)
    response = browser.post(
        URL,
        {"version_id": version.pk, "mode": "offline"},
        "application/json",
        HTTP_X_CSRFTOKEN="x" * 32,
    )
    assert response.status_code == 403
    assert not Session.objects.exists()


def test_a_guest_session_with_the_csrf_token_starts(browser, version):
    token = csrf_of(browser, version)
    response = browser.post(
        URL,
        {"version_id": version.pk, "mode": "offline"},
        "application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 201
    session = Session.objects.get(pk=response.json()["id"])
    assert session.guest_key == browser.session.session_key


def test_the_preview_page_form_carries_the_csrf_token(browser, version):
    page = browser.get(reverse("play:preview", args=[version.pk])).content.decode()
    assert 'name="csrfmiddlewaretoken"' in page
    refused = browser.post(reverse("play:preview", args=[version.pk]))
    assert refused.status_code == 403
    assert not Session.objects.exists()
