"""Sign-up is throttled per client address (issue 32 §4, studio.signups): FABULA_SIGNUPS_PER_ADDRESS
accounts per UTC day, by the guest quota's address rule (X-Forwarded-For only through trusted
proxies; an IPv6 client by its /64); the form says when to come back."""

from __future__ import annotations

from datetime import UTC, datetime
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.studio.view_helpers import errors_of

pytestmark = pytest.mark.django_db

HOME = "198.51.100.7"
CAFE = "203.0.113.40"
EVENING = datetime(2030, 5, 1, 22, 30, tzinfo=UTC)  # 90 minutes before midnight UTC
NOON = datetime(2030, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def limit(settings):
    settings.FABULA_SIGNUPS_PER_ADDRESS = 3
    settings.FABULA_TRUSTED_PROXIES = []
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def sign_up(name: str, address: str = HOME, **headers: str):
    """A fresh browser at ``address`` signs up as ``name``."""
    password = "salty-caravan-42"
    return Client().post(
        reverse("signup"),
        {"username": name, "password1": password, "password2": password},
        REMOTE_ADDR=address,
        **headers,
    )


def at(moment: datetime):
    return mock.patch("django.utils.timezone.now", return_value=moment)


def test_an_address_creates_its_daily_accounts_then_is_told_when_to_come_back():
    with at(EVENING):
        made = [sign_up(f"user{n}") for n in range(3)]
        refused = sign_up("user3")

    assert [r.status_code for r in made] == [302, 302, 302]
    assert refused.status_code == 200
    assert errors_of(refused) == [
        "Too many accounts were created from your address today. Try again in 90 minutes."
    ]
    assert not User.objects.filter(username="user3").exists()
    assert User.objects.count() == 3


def test_a_longer_wait_is_said_in_hours_and_the_next_day_the_address_may_sign_up_again(settings):
    settings.FABULA_SIGNUPS_PER_ADDRESS = 1
    with at(NOON):
        sign_up("dana")
        refused = sign_up("erin")
    with at(datetime(2030, 5, 2, 0, 1, tzinfo=UTC)):
        next_day = sign_up("erin")

    assert errors_of(refused) == [
        "Too many accounts were created from your address today. Try again in 12 hours."
    ]
    assert next_day.status_code == 302


def test_refused_and_failed_sign_ups_are_not_counted_and_other_addresses_are_not_held():
    bad = {"username": "x", "password1": "salty-caravan-42", "password2": "other-password-1"}
    for _ in range(5):
        Client().post(reverse("signup"), bad, REMOTE_ADDR=HOME)
    made = [sign_up(f"user{n}") for n in range(3)]
    refused = [sign_up("late"), sign_up("later")]
    elsewhere = sign_up("cafe", CAFE)

    assert [r.status_code for r in made] == [302] * 3
    assert [r.status_code for r in refused] == [200, 200]
    assert elsewhere.status_code == 302


def test_a_forged_forwarded_for_is_not_a_new_address():
    made = [sign_up(f"user{n}", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}") for n in range(4)]

    assert [r.status_code for r in made] == [302, 302, 302, 200]


def test_behind_a_trusted_proxy_each_forwarded_client_counts(settings):
    settings.FABULA_TRUSTED_PROXIES = ["10.0.0.0/8"]
    proxy = "10.0.0.5"
    home = [sign_up(f"home{n}", proxy, HTTP_X_FORWARDED_FOR=HOME) for n in range(4)]
    cafe = sign_up("cafe", proxy, HTTP_X_FORWARDED_FOR=f"192.0.2.9, {CAFE}")

    assert [r.status_code for r in home] == [302, 302, 302, 200]
    assert cafe.status_code == 302


def test_an_ipv6_network_counts_as_one_address():
    made = [sign_up(f"user{n}", f"2001:db8:1:2::{n + 1}") for n in range(4)]

    assert [r.status_code for r in made] == [302, 302, 302, 200]


def test_zero_lifts_the_limit(settings):
    held = [sign_up(f"user{n}").status_code for n in range(4)]
    settings.FABULA_SIGNUPS_PER_ADDRESS = 0
    lifted = [sign_up(f"more{n}").status_code for n in range(4)]

    assert held == [302, 302, 302, 200]
    assert lifted == [302] * 4


def test_the_refusal_is_in_the_readers_language():
    with at(EVENING):
        for n in range(3):
            sign_up(f"user{n}")
        refused = sign_up("late", HTTP_ACCEPT_LANGUAGE="es")

    assert errors_of(refused) == [
        "Se han creado demasiadas cuentas desde tu dirección hoy. Vuelve a intentarlo dentro de "
        "90 minutos."
    ]
