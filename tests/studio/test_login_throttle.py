"""studio.throttle: failed logins lock the account name and the client address for a while."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from studio.models import LoginFailure
from tests.studio.view_helpers import errors_of

pytestmark = pytest.mark.django_db

WRONG = "Please enter a correct username and password. Note that both fields may be case-sensitive."


@pytest.fixture(autouse=True)
def limits(settings):
    settings.FABULA_LOGIN_ATTEMPTS = 5
    settings.FABULA_LOGIN_ADDRESS_ATTEMPTS = 20
    settings.FABULA_LOGIN_WINDOW = 15 * 60
    # Dozens of password checks per test: a fast hasher keeps them cheap.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# The cast, made here so their passwords use the fast hasher (the factory caches a slow hash).
@pytest.fixture
def alice(db):
    return User.objects.create_user("alice", "alice@example.com", "password")


@pytest.fixture
def bob(db):
    return User.objects.create_user("bob", "bob@example.com", "password")


def log_in(client: Client, username: str, password: str, address: str = "127.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def fail(client: Client, username: str, times: int, address: str = "127.0.0.1") -> list[str]:
    return [errors_of(log_in(client, username, "wrong", address))[0] for _ in range(times)]


def age_failures(**delta: float) -> None:
    for failure in LoginFailure.objects.all():
        failure.created -= timedelta(**delta)
        failure.save()


def test_the_failure_that_reaches_the_limit_locks_the_account_and_names_the_wait(client, alice):
    errors = fail(client, "alice", 5)
    assert errors[:4] == [WRONG] * 4
    assert errors[4] == "Too many failed logins. Try again in 15 minutes."


def test_a_locked_account_refuses_even_the_right_password(client, alice):
    fail(client, "alice", 5)
    response = log_in(client, "alice", "password")
    assert response.status_code == 200
    assert errors_of(response) == ["Too many failed logins. Try again in 15 minutes."]
    assert client.get(reverse("account")).status_code == 302  # not signed in


def test_the_wait_counts_down_from_the_oldest_failure_that_locks(client, alice):
    fail(client, "alice", 5)
    age_failures(minutes=10)
    assert errors_of(log_in(client, "alice", "password")) == [
        "Too many failed logins. Try again in 5 minutes."
    ]
    age_failures(minutes=4, seconds=30)
    assert errors_of(log_in(client, "alice", "password")) == [
        "Too many failed logins. Try again in 1 minute."
    ]


def test_the_lock_ends_when_the_window_has_passed(client, alice):
    fail(client, "alice", 5)
    age_failures(minutes=15)
    response = log_in(client, "alice", "password")
    assert response["Location"] == reverse("studio:world_list")


def test_tries_refused_while_locked_do_not_extend_the_lock(client, alice):
    fail(client, "alice", 5)
    fail(client, "alice", 3)
    assert LoginFailure.objects.count() == 5


def test_a_lock_on_one_account_leaves_the_others_alone(client, alice, bob):
    fail(client, "alice", 5)
    assert log_in(client, "bob", "password")["Location"] == reverse("studio:world_list")


def test_case_variants_of_a_name_share_one_count(client, alice):
    fail(client, "ALICE", 2)
    fail(client, "Alice", 3)
    assert errors_of(log_in(client, "alice", "password")) == [
        "Too many failed logins. Try again in 15 minutes."
    ]


def test_many_names_tried_from_one_address_lock_the_address(client, settings, alice):
    settings.FABULA_LOGIN_ADDRESS_ATTEMPTS = 3
    for name in ("x1", "x2", "x3"):
        fail(client, name, 1, address="203.0.113.9")
    locked = log_in(client, "alice", "password", address="203.0.113.9")
    assert errors_of(locked) == ["Too many failed logins. Try again in 15 minutes."]
    elsewhere = log_in(client, "alice", "password", address="198.51.100.7")
    assert elsewhere["Location"] == reverse("studio:world_list")


def test_the_limit_follows_the_setting(client, settings, alice):
    settings.FABULA_LOGIN_ATTEMPTS = 2
    settings.FABULA_LOGIN_WINDOW = 120
    assert fail(client, "alice", 2) == [WRONG, "Too many failed logins. Try again in 2 minutes."]


def test_a_successful_login_forgets_the_accounts_failures(client, alice):
    fail(client, "alice", 4)
    assert log_in(client, "alice", "password")["Location"] == reverse("studio:world_list")
    assert not LoginFailure.objects.filter(username="alice").exists()


def test_every_authenticate_call_is_refused_while_locked(client, alice):
    # Whatever logs in with a password (an API login, the admin, client.login) goes through it.
    fail(client, "alice", 5)
    assert authenticate(username="alice", password="password") is None
    assert not client.login(username="alice", password="password")


def test_the_admin_login_names_the_wait_too(client, alice):
    alice.is_staff = True
    alice.save()
    fail(client, "alice", 5)
    response = client.post(reverse("admin:login"), {"username": "alice", "password": "password"})
    assert '<p class="errornote">\n    Too many failed logins. Try again in 15 minutes.' in (
        response.content.decode()
    )


def test_failures_older_than_the_window_are_pruned(client, alice):
    fail(client, "alice", 2)
    age_failures(hours=1)
    fail(client, "bob", 1)
    assert list(LoginFailure.objects.values_list("username", flat=True)) == ["bob"]
    assert LoginFailure.objects.get().created <= timezone.now()


def test_behind_a_trusted_proxy_each_forwarded_client_counts_alone(client, settings, alice):
    settings.FABULA_LOGIN_ADDRESS_ATTEMPTS = 3
    settings.FABULA_TRUSTED_PROXIES = ["10.0.0.1"]
    via_proxy = {"REMOTE_ADDR": "10.0.0.1"}
    for name in ("x1", "x2", "x3"):
        client.post(
            reverse("login"),
            {"username": name, "password": "wrong"},
            HTTP_X_FORWARDED_FOR="203.0.113.9",
            **via_proxy,
        )
    other = client.post(
        reverse("login"),
        {"username": "alice", "password": "password"},
        HTTP_X_FORWARDED_FOR="198.51.100.7",
        **via_proxy,
    )
    assert other["Location"] == reverse("studio:world_list")
    assert set(LoginFailure.objects.values_list("address", flat=True)) == {"203.0.113.9"}
