"""Who pays for a live action, and when the day's actions are used up (seed 001 G10, issue 9 §4).

Actions count per UTC day and reset at midnight UTC. A user counts by account; a guest counts
by the browser's cookie AND by the client's address, and is refused when either is used up, so a
fresh cookie does not reset the quota. The site's own key also has a budget for the whole site
(``FABULA_SITE_DAILY_BUDGET``). An action is reserved when its turn is prepared, in one locked
step, so parallel turns cannot overspend; a failed turn gives it back.

The client's address is ``REMOTE_ADDR`` (a websocket's ``scope["client"]``); ``X-Forwarded-For``
is read only through proxies the operator lists in ``FABULA_TRUSTED_PROXIES``, or anybody could
name a new address per request. An IPv6 client counts by its /64, which one host usually owns.

An account younger than a day also counts its site-key actions against a smaller first-day share
(``FABULA_NEW_ACCOUNT_DAILY_QUOTA``, subject ``new:user:N``), so throwaway accounts cannot empty
the site's budget (issue 32 §4); on the user's own key only the account's quota counts.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils.translation import gettext_lazy as _

from play.models import DailyActionCount
from play.players import Player, player_for

SITE_SUBJECT = "site"
NEW_ACCOUNT_PREFIX = "new:"
NEW_ACCOUNT_AGE = timedelta(hours=24)
NOTICE = _(
    "Today's live actions are used up, so the offline narrator answers for now. "
    "They come back at midnight UTC."
)


def utc_day(now: datetime) -> date:
    return now.astimezone(UTC).date()


def resets_at(now: datetime) -> datetime:
    """The next midnight UTC, when the day's actions come back."""
    return datetime.combine(utc_day(now) + timedelta(days=1), time(0), tzinfo=UTC)


# --- who asks --------------------------------------------------------------------------------


def client_address(remote: str, forwarded_for: str = "", trusted: Sequence[str] = ()) -> str:
    """The client's address: ``remote``, or behind trusted proxies the nearest hop that is not one.

    ``X-Forwarded-For`` is read from the right: each proxy appends the address it saw, so only
    the entries after the last untrusted hop were written by proxies the operator runs.
    """
    networks = _networks(trusted)
    address = _ip(remote)
    if address is None:
        return ""
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    while hops and any(address in net for net in networks):
        hop = _ip(hops.pop())
        if hop is None:
            break
        address = hop
    return str(address)


def request_address(request: Any) -> str:
    """A Django request's client address (see ``client_address``)."""
    meta = request.META
    return client_address(
        str(meta.get("REMOTE_ADDR") or ""),
        str(meta.get("HTTP_X_FORWARDED_FOR") or ""),
        _trusted(),
    )


def scope_address(scope: Mapping[str, Any]) -> str:
    """A websocket scope's client address (ASGI ``client``; see ``client_address``)."""
    client = scope.get("client") or ("", 0)
    forwarded = b",".join(
        value for name, value in scope.get("headers") or () if name.lower() == b"x-forwarded-for"
    )
    return client_address(str(client[0] or ""), forwarded.decode("latin-1"), _trusted())


def address_subject(address: str) -> str:
    """The quota subject of an address: an IPv4 address, or an IPv6 client's /64."""
    ip = _ip(address)
    if ip is None:
        return ""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"addr:{ip.ipv4_mapped}"
        return f"addr:{ipaddress.IPv6Network((ip, 64), strict=False)}"
    return f"addr:{ip}"


def quota_subjects(player: Player) -> tuple[str, ...]:
    """What a player's action counts against: a guest's cookie and address, or the account."""
    if player.user_id:
        return account_subjects(player.subject, player.joined, datetime.now(UTC))
    by_address = address_subject(player.address)
    return (player.subject, by_address) if by_address else (player.subject,)


def account_subjects(subject: str, joined: datetime | None, now: datetime) -> tuple[str, ...]:
    """An account's subjects: itself, and while younger than a day its first-day share."""
    young = joined is not None and now - joined < NEW_ACCOUNT_AGE
    return (subject, NEW_ACCOUNT_PREFIX + subject) if young and new_account_quota() else (subject,)


def new_account_quota() -> int:
    """Site-key actions a day for an account younger than a day (0: no smaller share)."""
    return int(getattr(settings, "FABULA_NEW_ACCOUNT_DAILY_QUOTA", 0) or 0)


def request_subjects(request: Any) -> tuple[str, ...]:
    """``quota_subjects`` of the player behind a Django request."""
    player = player_for(request.user, request.session.session_key, request_address(request))
    return quota_subjects(player)


def limits(subjects: Sequence[str], *, on_site_key: bool) -> dict[str, int]:
    """Each subject with its daily limit (0: counted, never refused)."""
    quota = int(settings.FABULA_DAILY_ACTION_QUOTA)
    out = dict.fromkeys((s for s in subjects if not s.startswith(NEW_ACCOUNT_PREFIX)), quota)
    if on_site_key and new_account_quota():
        young = (s for s in subjects if s.startswith(NEW_ACCOUNT_PREFIX))
        out.update(dict.fromkeys(young, new_account_quota()))
    budget = int(getattr(settings, "FABULA_SITE_DAILY_BUDGET", 0) or 0)
    if on_site_key and budget:
        out[SITE_SUBJECT] = budget
    return out


# --- counting --------------------------------------------------------------------------------


def reserve(
    subject_limits: Mapping[str, int], now: datetime, *, day: date | None = None
) -> tuple[str, ...] | None:
    """Count one action against every subject; None (and nothing counted) when one is used up.

    ``day`` defaults to the UTC day of ``now`` (a character's quota counts the player's own day).
    One upsert per subject that counts only under the limit (it runs on every live turn, on the
    play process's database thread: the ORM's lock, read, create and update took five queries).
    Rows are upserted in a fixed order, so two turns never wait on each other in a circle.
    """
    day_value = connection.ops.adapt_datefield_value(day or utc_day(now))
    subjects = sorted(subject_limits)
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            for subject in subjects:
                limit = subject_limits[subject]
                cursor.execute(_COUNT_UNDER_LIMIT, [subject, day_value, limit, limit])
                if cursor.fetchone() is None:
                    raise _UsedUp  # undoes the counts made above
    except _UsedUp:
        return None
    return tuple(subjects)


class _UsedUp(Exception):
    pass


_TABLE = DailyActionCount._meta.db_table
_COUNT_UNDER_LIMIT = (
    f"INSERT INTO {_TABLE} (subject, day, count) VALUES (%s, %s, 1) "
    f"ON CONFLICT (subject, day) DO UPDATE SET count = {_TABLE}.count + 1 "
    f"WHERE %s = 0 OR {_TABLE}.count < %s RETURNING count"
)


def refund(subjects: Sequence[str], day: date | None) -> None:
    """Give back an action reserved on ``day`` (a failed turn costs nothing)."""
    if not subjects or day is None:
        return
    DailyActionCount.objects.filter(subject__in=subjects, day=day, count__gt=0).update(
        count=F("count") - 1
    )


def used_up(subject_limits: Mapping[str, int], now: datetime) -> bool:
    """Whether the next action would be refused (read only, for pages)."""
    counts = dict(
        DailyActionCount.objects.filter(
            subject__in=list(subject_limits), day=utc_day(now)
        ).values_list("subject", "count")
    )
    return any(limit and counts.get(s, 0) >= limit for s, limit in subject_limits.items())


# --- helpers ---------------------------------------------------------------------------------


def _ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(value.strip().strip("[]").split("%")[0])
    except ValueError:
        return None


def _networks(
    entries: Sequence[str],
) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    out = []
    for entry in entries:
        try:
            out.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            continue
    return out


def _trusted() -> list[str]:
    return [str(p) for p in getattr(settings, "FABULA_TRUSTED_PROXIES", None) or ()]
