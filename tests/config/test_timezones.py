"""Dates in the reader's time zone (config/timezones.py, {% when %}): the browser's fabula_tz
cookie picks the zone, anything unknown or malformed leaves UTC, and nothing leaks to the next
request."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from unittest.mock import patch

import pytest
from django.test import AsyncClient, Client
from django.urls import reverse
from django.utils import timezone

from config.timezones import zone_from_cookie
from studio.models import WorldVersion
from studio.publishing import publish_world
from studio.tokens import create_token
from tests.factories import make_world

pytestmark = pytest.mark.django_db

MOMENT = datetime(2026, 5, 13, 22, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("cookie", "zone"),
    [
        ("Europe%2FMadrid", "Europe/Madrid"),
        ("America/New_York", "America/New_York"),
        ("Asia%2FShanghai", "Asia/Shanghai"),
        ("", None),
        ("Mars%2FOlympus_Mons", None),
        ("..%2F..%2Fetc%2Fpasswd", None),
        ("%2Fetc%2Flocaltime", None),
        ("Europe/Madrid" + "x" * 80, None),
    ],
)
def test_the_cookie_names_a_known_zone_or_none(cookie: str, zone: str | None):
    found = zone_from_cookie(cookie)
    assert (str(found) if found else None) == zone


def version_cell(client: Client, version: WorldVersion) -> str:
    html = client.get(reverse("world_page", args=[version.world_id])).content.decode()
    return html.split("<tbody>", 1)[1].split("</tr>", 1)[0]


def test_the_world_page_dates_its_versions_in_the_browsers_zone(client: Client, alice: Any):
    version = _published_at(alice, MOMENT)
    assert '<time datetime="2026-05-13T22:30+00:00"' in version_cell(client, version)
    client.cookies["fabula_tz"] = "Europe%2FMadrid"
    cell = version_cell(client, version)
    assert '<time datetime="2026-05-14T00:30+02:00"' in cell
    assert 'title="May 14, 2026, 12:30 a.m. (Europe/Madrid)">05/14/2026 12:30 a.m.</time>' in cell


def test_an_unknown_zone_leaves_utc(client: Client, alice: Any):
    version = _published_at(alice, MOMENT)
    client.cookies["fabula_tz"] = "Nowhere%2FAtAll"
    assert '<time datetime="2026-05-13T22:30+00:00"' in version_cell(client, version)


def test_dates_follow_the_language_too(client: Client, alice: Any):
    version = _published_at(alice, MOMENT)
    client.cookies["fabula_tz"] = "Asia%2FShanghai"
    client.post(reverse("set_language"), {"language": "es", "next": "/"})
    assert ">14/05/2026 06:30</time>" in version_cell(client, version)


def test_the_zone_does_not_outlive_the_request(client: Client, alice: Any):
    client.cookies["fabula_tz"] = "Asia%2FTokyo"
    client.get(reverse("gallery"))
    assert timezone.get_current_timezone_name() == "UTC"


@pytest.mark.django_db(transaction=True)
async def test_the_zone_is_active_under_asgi_too(async_client: AsyncClient, alice: Any):
    from asgiref.sync import sync_to_async

    version = await sync_to_async(_published_at)(alice, MOMENT)
    url = reverse("world_page", args=[version.world_id])
    async_client.cookies["fabula_tz"] = "Europe%2FMadrid"
    response = await async_client.get(url)
    assert '<time datetime="2026-05-14T00:30+02:00"' in response.content.decode()


def _published_at(owner: Any, moment: datetime) -> WorldVersion:
    """A published version dated ``moment`` (auto_now_add reads the clock; versions are frozen)."""
    with patch("django.utils.timezone.now", return_value=moment):
        return publish_world(make_world(owner))


def test_the_account_page_dates_tokens_in_the_browsers_zone(client: Client, alice: Any):
    with patch("django.utils.timezone.now", return_value=MOMENT):
        create_token(alice, "script")
    client.force_login(alice)
    client.cookies["fabula_tz"] = "Asia%2FTokyo"
    html = client.get(reverse("account")).content.decode()
    assert (
        '<time datetime="2026-05-14T07:30+09:00" title="May 14, 2026, 7:30 a.m. (Asia/Tokyo)">'
        in html
    )
