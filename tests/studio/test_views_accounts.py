"""Sign up, log in, log out, and personal API tokens on the account page."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from studio.models import ApiToken
from studio.tokens import authenticate_token, create_token
from tests.studio.view_helpers import errors_of, hx, is_partial, login

pytestmark = pytest.mark.django_db

TOKEN = {"name": "script", "scope": "read", "days": "30"}


def test_signup_creates_the_user_and_logs_in(client):
    response = client.post(
        reverse("signup"),
        {"username": "dana", "password1": "salty-caravan-42", "password2": "salty-caravan-42"},
    )
    assert response["Location"] == reverse("studio:world_list")
    assert User.objects.filter(username="dana").exists()
    assert client.get(reverse("studio:world_list")).status_code == 200


def test_signup_bad_input_rerenders_with_the_error(client):
    response = client.post(
        reverse("signup"),
        {"username": "dana", "password1": "salty-caravan-42", "password2": "other-password-1"},
    )
    assert response.status_code == 200
    assert errors_of(response) == ["The two password fields didn’t match."]
    assert not User.objects.filter(username="dana").exists()


def test_signup_refuses_put_and_skips_when_signed_in(client, alice):
    assert client.put(reverse("signup")).status_code == 405
    assert login(client, alice).get(reverse("signup"))["Location"] == reverse("studio:world_list")


def test_login_and_logout(client, alice):
    page = client.get(reverse("login"))
    assert b'name="username"' in page.content
    response = client.post(reverse("login"), {"username": "alice", "password": "password"})
    assert response["Location"] == reverse("studio:world_list")
    assert client.get(reverse("logout")).status_code == 405
    response = client.post(reverse("logout"))
    assert response["Location"] == reverse("gallery")
    assert client.get(reverse("account")).status_code == 302


def test_login_with_a_wrong_password_says_so(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert errors_of(response) == [
        "Please enter a correct username and password. Note that both fields may be case-sensitive."
    ]


def test_account_page_lists_tokens(client, alice, django_assert_num_queries):
    create_token(alice, "script")
    create_token(alice, "backup")
    login(client, alice)
    with django_assert_num_queries(3):
        response = client.get(reverse("account"))
    assert b"script" in response.content and b"backup" in response.content


def test_a_new_token_is_shown_once_and_works(client, alice):
    login(client, alice)
    response = client.post(reverse("token_create"), TOKEN | {"name": "exporter"}, **hx())
    assert is_partial(response)
    secret = re.search(r'id="new-token">([^<]+)<', response.content.decode()).group(1)
    assert authenticate_token(secret) == alice
    again = client.get(reverse("account")).content.decode()
    assert secret not in again
    assert secret[:12] in again


def test_token_name_is_required(client, alice):
    response = login(client, alice).post(reverse("token_create"), TOKEN | {"name": ""})
    assert errors_of(response) == ["This field is required."]
    assert not ApiToken.objects.exists()


def test_revoke_a_token(client, alice):
    token, secret = create_token(alice, "old")
    response = login(client, alice).post(reverse("token_revoke", args=[token.pk]))
    assert response["Location"] == reverse("account")
    assert authenticate_token(secret) is None
    partial = client.post(reverse("token_revoke", args=[token.pk]), **hx())
    assert is_partial(partial)
    assert b"revoked" in partial.content


def test_tokens_checklist(client, alice, bob):
    token, _ = create_token(alice, "mine")
    assert client.get(reverse("account")).status_code == 302
    assert client.post(reverse("token_create"), {"name": "x"}).status_code == 302
    login(client, bob)
    assert client.post(reverse("token_revoke", args=[token.pk])).status_code == 404
    assert client.get(reverse("token_create")).status_code == 405
    assert client.get(reverse("token_revoke", args=[token.pk])).status_code == 405
    assert client.post(reverse("account")).status_code == 405
    token.refresh_from_db()
    assert token.is_active


# --- password rules --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("username", "password", "errors"),
    [
        ("saltcaravan", "saltcaravan1", ["The password is too similar to the username."]),
        ("dana", "48213957612", ["This password is entirely numeric."]),
        ("dana", "password", ["This password is too common."]),
        ("dana", "x7#qv", ["This password is too short. It must contain at least 8 characters."]),
    ],
)
def test_signup_applies_all_of_djangos_password_validators(client, username, password, errors):
    response = client.post(
        reverse("signup"), {"username": username, "password1": password, "password2": password}
    )
    assert response.status_code == 200
    assert errors_of(response) == errors
    assert not User.objects.filter(username=username).exists()


def test_signup_page_lists_every_password_rule(client):
    html = client.get(reverse("signup")).content.decode()
    for rule in (
        "Your password can’t be too similar to your other personal information.",
        "Your password must contain at least 8 characters.",
        "Your password can’t be a commonly used password.",
        "Your password can’t be entirely numeric.",
    ):
        assert rule in html


# --- token scope and expiry ------------------------------------------------------------------


def test_a_new_token_gets_the_chosen_scope_and_lifetime(client, alice):
    before = timezone.now()
    login(client, alice).post(reverse("token_create"), {**TOKEN, "scope": "write", "days": "7"})
    token = ApiToken.objects.get()
    assert token.scope == "write"
    assert before + timedelta(days=7) <= token.expires <= timezone.now() + timedelta(days=7)


def test_the_token_form_offers_read_only_for_30_days_first(client, alice):
    html = login(client, alice).get(reverse("account")).content.decode()
    assert '<option value="read" selected>Read only</option>' in html
    assert '<option value="write">Read and write</option>' in html
    assert '<option value="30" selected>30 days</option>' in html
    assert '<option value="365">365 days</option>' in html


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("scope", "admin", "Select a valid choice. admin is not one of the available choices."),
        ("days", "1000", "Select a valid choice. 1000 is not one of the available choices."),
        ("days", "", "This field is required."),
    ],
)
def test_token_scope_and_lifetime_are_checked(client, alice, field, value, error):
    response = login(client, alice).post(reverse("token_create"), {**TOKEN, field: value})
    assert errors_of(response) == [error]
    assert not ApiToken.objects.exists()


def test_account_page_shows_scope_expiry_and_state_of_each_token(client, alice):
    reader, _ = create_token(alice, "reader", scope="read", days=30)
    writer, _ = create_token(alice, "writer", scope="write", days=7)
    expired, _ = create_token(alice, "expired", days=1)
    ApiToken.objects.filter(pk=expired.pk).update(expires=timezone.now() - timedelta(days=1))
    html = login(client, alice).get(reverse("account")).content.decode()

    def row(token):
        return re.search(rf'<tr id="token-{token.pk}">(.*?)</tr>', html, re.S).group(1)

    assert "read only" in row(reader) and "Revoke" in row(reader)
    assert "read and write" in row(writer) and "Revoke" in row(writer)
    assert date_format(writer.expires, "SHORT_DATE_FORMAT") in row(writer)
    assert "expired" in row(expired) and "Revoke" not in row(expired)
