"""Sign-up throttling per client address (issue 32 §4: "15 accounts in 20 s; three throwaway
accounts emptied the site's daily budget").

One client address may create FABULA_SIGNUPS_PER_ADDRESS accounts per UTC day (0: no limit).
The address is the guest quota's (play.quota: X-Forwarded-For only through
FABULA_TRUSTED_PROXIES; an IPv6 client by its /64); a request with no address at all (a proxy
set up wrong) counts as one address, so the limit fails closed. Sign-ups count in play.quota's
daily table (subject ``signup:addr:…``) in the transaction that creates the user, so parallel
sign-ups cannot pass the limit and one that fails costs nothing; a refused one is not counted.
What a new account may then spend of the site's key is play.quota's first-day share
(FABULA_NEW_ACCOUNT_DAILY_QUOTA).
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import ngettext

from play.services import quota

PREFIX = "signup:"
UNKNOWN = "addr:unknown"


def signup_subject(address: str) -> str:
    return PREFIX + (quota.address_subject(address) or UNKNOWN)


def daily_limit() -> int:
    return int(getattr(settings, "FABULA_SIGNUPS_PER_ADDRESS", 0) or 0)


def wait_seconds(address: str, now: datetime | None = None) -> int:
    """Seconds until ``address`` may create an account again; 0 when it may now."""
    now, limit = now or timezone.now(), daily_limit()
    if not limit or not quota.used_up({signup_subject(address): limit}, now):
        return 0
    return max(1, math.ceil((quota.resets_at(now) - now).total_seconds()))


def refusal(seconds: int) -> str:
    """What the sign-up form says while the address may not create accounts."""
    minutes = max(1, math.ceil(seconds / 60))
    if minutes <= 90:
        return ngettext(
            "Too many accounts were created from your address today. Try again in %(n)d minute.",
            "Too many accounts were created from your address today. Try again in %(n)d minutes.",
            minutes,
        ) % {"n": minutes}
    hours = math.ceil(minutes / 60)
    return ngettext(
        "Too many accounts were created from your address today. Try again in %(n)d hour.",
        "Too many accounts were created from your address today. Try again in %(n)d hours.",
        hours,
    ) % {"n": hours}


def sign_up(form: Any, address: str, now: datetime | None = None) -> Any:
    """Create the valid form's account and count it against ``address``; None, with the
    refusal on the form, when the address's sign-ups ran out meanwhile."""
    now, limit = now or timezone.now(), daily_limit()
    with transaction.atomic():
        if limit and quota.reserve({signup_subject(address): limit}, now) is None:
            form.add_error(None, refusal(wait_seconds(address, now)))
            return None
        return form.save()
