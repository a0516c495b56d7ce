"""Login throttling: a few failed logins lock the account name, and the client address, a while.

Failures are rows (``LoginFailure``), so every process and every way in (the login page, the
admin, anything that calls ``authenticate``) shares one count. ``LoginThrottleBackend`` sits
first in AUTHENTICATION_BACKENDS and refuses every check while locked, even with the right
password, so guessing gains nothing; the login forms say when to come back. A try refused while
locked is not counted, so the wait the page names is the wait there is.

Settings: FABULA_LOGIN_ATTEMPTS failures per account name and FABULA_LOGIN_ADDRESS_ATTEMPTS per
address within FABULA_LOGIN_WINDOW seconds (0 attempts: no limit of that kind).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model, user_logged_in, user_login_failed
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import ngettext

from play.services import request_address
from studio.models import LoginFailure


def _window() -> timedelta:
    return timedelta(seconds=settings.FABULA_LOGIN_WINDOW)


def account_key(username: object) -> str:
    # Case-folded: "Alice" and "alice" share one count, so case games do not buy more guesses.
    return str(username or "").strip().casefold()[:150]


def client_address(request: HttpRequest | None) -> str:
    """The client's address, by the site's one rule (X-Forwarded-For only via trusted proxies)."""
    return request_address(request)[:45] if request is not None else ""


def lockout_seconds(username: object, address: str, now: datetime | None = None) -> int:
    """Seconds until this account name and address may try again; 0 when they may now."""
    now = now or timezone.now()
    limits = (
        ("username", account_key(username), settings.FABULA_LOGIN_ATTEMPTS),
        ("address", address, settings.FABULA_LOGIN_ADDRESS_ATTEMPTS),
    )
    waits = [0]
    for field, value, limit in limits:
        if not value or limit <= 0:
            continue
        recent = LoginFailure.objects.filter(**{field: value}, created__gt=now - _window())
        # The lock lasts until the limit-th newest failure leaves the window.
        nth = recent.order_by("-created").values_list("created", flat=True)[limit - 1 : limit]
        waits += [math.ceil((created + _window() - now).total_seconds()) for created in nth]
    return max(waits)


def lockout_message(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many failed logins. Try again in %(minutes)d minute.",
        "Too many failed logins. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def record_failure(username: object, address: str, now: datetime | None = None) -> None:
    now = now or timezone.now()
    LoginFailure.objects.filter(created__lte=now - _window()).delete()
    LoginFailure.objects.create(username=account_key(username), address=address, created=now)


class LoginThrottleBackend:
    """Authenticates nobody: refuses every later backend while the name or address is locked.

    It has no ``get_user``, so sessions and ``force_login`` never name it.
    """

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, **credentials: Any
    ) -> None:
        seconds = lockout_seconds(username, client_address(request))
        if seconds:
            # authenticate() stops at PermissionDenied and sends user_login_failed.
            raise PermissionDenied(lockout_message(seconds))


@receiver(user_login_failed, dispatch_uid="studio.throttle.count_failure")
def count_failure(
    sender: object, credentials: dict[str, Any], request: HttpRequest | None = None, **kw: Any
) -> None:
    username = credentials.get(get_user_model().USERNAME_FIELD, credentials.get("username"))
    address = client_address(request)
    if lockout_seconds(username, address) == 0:
        record_failure(username, address)


@receiver(user_logged_in, dispatch_uid="studio.throttle.forget_failures")
def forget_failures(sender: object, user: Any, **kw: Any) -> None:
    LoginFailure.objects.filter(username=account_key(user.get_username())).delete()
