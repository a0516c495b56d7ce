"""Quotas and the site key (issue 9 §4): guests count by cookie and by address, the site key has a
daily budget and its own model, a failed turn costs nothing, and the page says when it is over."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.test import Client as HttpClient
from django.utils import timezone

from play.models import DailyActionCount, ProviderSetting, Session
from play.quota import SITE_SUBJECT, address_subject, client_address, utc_day
from play.sessions import start_session
from studio.publishing import publish_world
from tests.factories import make_world
from tests.play.conftest import (
    PLAY_WORLD_ENTRIES,
    PLAY_WORLD_RULES,
    PLAY_WORLD_VARIABLES,
    Client,
    consumer_app,
    guest_store,
)
from tests.support.model_server import Fault

pytestmark = pytest.mark.django_db(transaction=True)

HOME = "198.51.100.7"
CAFE = "203.0.113.40"


async def connect_from(
    session: Session, address: str, *, user: Any = None, store: Any = None, forwarded: str = ""
) -> Client:
    """The play socket as a browser at ``address`` (behind a proxy: with X-Forwarded-For)."""
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    ws = WebsocketCommunicator(consumer_app(), f"/ws/play/{session.pk}/", headers=headers)
    ws.scope["user"] = user if user is not None else AnonymousUser()
    ws.scope["session"] = store or SimpleNamespace(session_key=None)
    ws.scope["client"] = (address, 51000)
    connected, _ = await ws.connect()
    assert connected
    client = Client(ws)
    await client.receive()  # the history
    return client


async def turn(
    session: Session, address: str = HOME, **who: Any
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One action; returns how it ended and every frame the socket got."""
    client = await connect_from(session, address, **who)
    await client.send(type="send", text="I wait")
    end = await client.settle(timeout=20)
    await client.close()
    return end, client.frames


async def guest_session(version: Any, store: Any) -> Session:
    return await sync_to_async(start_session)(
        None, version, mode="live", guest_key=store.session_key, dice_seed=5
    )


async def user_session(user: Any, version: Any, model: str = "") -> Session:
    return await sync_to_async(start_session)(user, version, mode="live", model=model, dice_seed=5)


def quota_notices(frames: list[dict[str, Any]]) -> list[str]:
    return [f["message"] for f in frames if f["type"] == "notification" and f["style"] == "quota"]


@sync_to_async
def count_of(subject: str) -> int:
    row = DailyActionCount.objects.filter(subject=subject, day=utc_day(timezone.now())).first()
    return row.count if row else 0


# --- guests ----------------------------------------------------------------------------------


async def test_a_fresh_guest_cookie_does_not_reset_the_quota(version, live_openai, settings):
    settings.FABULA_DAILY_ACTION_QUOTA = 1
    first, second = await sync_to_async(guest_store)(), await sync_to_async(guest_store)()
    live, _ = await turn(await guest_session(version, first), HOME, store=first)
    fresh, frames = await turn(await guest_session(version, second), HOME, store=second)
    assert live["message"]["model"] == "test-model"
    assert fresh["message"]["model"] == "offline"
    assert len(live_openai.requests) == 1
    assert quota_notices(frames) == [
        "Today's live actions are used up, so the offline narrator answers for now. "
        "They come back at midnight UTC."
    ]
    assert await count_of(f"addr:{HOME}") == 1


async def test_a_guest_cookie_is_counted_from_any_address(version, live_openai, settings):
    settings.FABULA_DAILY_ACTION_QUOTA = 1
    store = await sync_to_async(guest_store)()
    session = await guest_session(version, store)
    await turn(session, HOME, store=store)
    elsewhere, _ = await turn(session, CAFE, store=store)
    assert elsewhere["message"]["model"] == "offline"
    assert len(live_openai.requests) == 1


async def test_a_forged_forwarded_for_is_not_a_new_guest(version, live_openai, settings):
    settings.FABULA_DAILY_ACTION_QUOTA = 1
    settings.FABULA_TRUSTED_PROXIES = []
    first, second = await sync_to_async(guest_store)(), await sync_to_async(guest_store)()
    await turn(await guest_session(version, first), HOME, store=first, forwarded="192.0.2.1")
    forged, _ = await turn(
        await guest_session(version, second), HOME, store=second, forwarded="192.0.2.2"
    )
    assert forged["message"]["model"] == "offline"
    assert len(live_openai.requests) == 1


async def test_behind_a_trusted_proxy_each_forwarded_client_counts(version, live_openai, settings):
    settings.FABULA_DAILY_ACTION_QUOTA = 1
    settings.FABULA_TRUSTED_PROXIES = ["10.0.0.0/8"]
    stores = [await sync_to_async(guest_store)() for _ in range(3)]
    sessions = [await guest_session(version, store) for store in stores]
    proxy = "10.0.0.5"
    one, _ = await turn(sessions[0], proxy, store=stores[0], forwarded=HOME)
    two, _ = await turn(sessions[1], proxy, store=stores[1], forwarded=CAFE)
    # The client may write anything left of what the proxy appended; only the last hop counts.
    again, _ = await turn(sessions[2], proxy, store=stores[2], forwarded=f"192.0.2.9, {HOME}")
    assert [e["message"]["model"] for e in (one, two, again)] == [
        "test-model",
        "test-model",
        "offline",
    ]


@pytest.mark.parametrize(
    ("remote", "forwarded", "trusted", "client"),
    [
        ("198.51.100.7", "", [], "198.51.100.7"),
        ("198.51.100.7", "10.9.9.9", [], "198.51.100.7"),  # no trusted proxy: header ignored
        ("10.0.0.5", "203.0.113.4", ["10.0.0.0/8"], "203.0.113.4"),
        ("10.0.0.5", "1.2.3.4, 203.0.113.4, 10.0.0.6", ["10.0.0.0/8"], "203.0.113.4"),
        ("10.0.0.5", "not-an-ip", ["10.0.0.5"], "10.0.0.5"),
        ("", "203.0.113.4", ["10.0.0.0/8"], ""),
    ],
)
def test_the_client_address(remote, forwarded, trusted, client):
    assert client_address(remote, forwarded, trusted) == client


def test_an_ipv6_client_counts_by_its_64():
    assert address_subject("2001:db8:1:2:aaaa::1") == address_subject("2001:db8:1:2:bbbb::9")
    assert address_subject("2001:db8:1:2::1") == "addr:2001:db8:1:2::/64"
    assert address_subject("::ffff:198.51.100.7") == "addr:198.51.100.7"


# --- the site key ----------------------------------------------------------------------------


async def test_the_site_budget_stops_live_turns_for_everybody(
    alice, bob, version, live_openai, settings
):
    settings.FABULA_SITE_DAILY_BUDGET = 1
    first, _ = await turn(await user_session(alice, version), user=alice)
    second, frames = await turn(await user_session(bob, version), user=bob)
    assert first["message"]["model"] == "test-model"
    assert second["message"]["model"] == "offline"
    assert len(quota_notices(frames)) == 1
    assert len(live_openai.requests) == 1
    assert await count_of(SITE_SUBJECT) == 1


async def test_a_users_own_key_does_not_spend_the_site_budget(bob, version, live_openai, settings):
    settings.FABULA_SITE_DAILY_BUDGET = 1
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True
    await sync_to_async(DailyActionCount.objects.create)(
        subject=SITE_SUBJECT, day=utc_day(timezone.now()), count=1
    )
    await sync_to_async(ProviderSetting.objects.create)(
        user=bob, provider="openai", base_url=live_openai.openai_url, model="bobs-model"
    )
    end, _ = await turn(await user_session(bob, version), user=bob)
    assert end["message"]["model"] == "bobs-model"
    assert await count_of(SITE_SUBJECT) == 1


async def test_on_the_site_key_the_api_cannot_pick_the_model(alice, version, live_openai):
    http = HttpClient()
    await sync_to_async(http.force_login)(alice)
    created = await sync_to_async(http.post)(
        "/api/play/sessions",
        {"version_id": version.pk, "model": "gpt-very-expensive"},
        content_type="application/json",
    )
    session = await sync_to_async(Session.objects.get)(pk=created.json()["id"])
    assert session.model == "gpt-very-expensive"
    end, _ = await turn(session, user=alice)
    assert live_openai.requests[-1].body["model"] == "test-model"
    assert end["message"]["model"] == "test-model"


async def test_on_the_site_key_a_world_cannot_pick_the_model(alice, version, live_openai):
    world = await sync_to_async(make_world)(
        alice,
        entries=PLAY_WORLD_ENTRIES,
        variables=PLAY_WORLD_VARIABLES,
        rules=PLAY_WORLD_RULES,
        settings={"model": "creator-expensive"},
    )
    pricey = await sync_to_async(publish_world)(world)
    await turn(await user_session(alice, pricey), user=alice)
    assert live_openai.requests[-1].body["model"] == "test-model"


async def test_an_allowlisted_model_may_be_picked_on_the_site_key(
    alice, version, live_openai, settings
):
    settings.FABULA_SITE_MODELS = ["test-model-mini"]
    await turn(await user_session(alice, version, model="test-model-mini"), user=alice)
    assert live_openai.requests[-1].body["model"] == "test-model-mini"


async def test_on_their_own_key_a_player_picks_any_model(alice, version, live_openai, settings):
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True
    await sync_to_async(ProviderSetting.objects.create)(
        user=alice, provider="openai", base_url=live_openai.openai_url, model="alice-default"
    )
    await turn(await user_session(alice, version, model="alice-pick"), user=alice)
    assert live_openai.requests[-1].body["model"] == "alice-pick"


# --- failed turns and the page ---------------------------------------------------------------


async def test_a_failed_turn_does_not_count(alice, version, live_openai, settings):
    settings.FABULA_DAILY_ACTION_QUOTA = 1
    settings.FABULA_SITE_DAILY_BUDGET = 1
    settings.FABULA_PROVIDER_RETRIES = 0
    live_openai.script([Fault("500")])
    session = await user_session(alice, version)
    failed, _ = await turn(session, user=alice)
    assert failed["type"] == "message_failed"
    assert (await count_of(f"user:{alice.pk}"), await count_of(SITE_SUBJECT)) == (0, 0)
    live, _ = await turn(session, user=alice)
    assert live["message"]["model"] == "test-model"
    assert (await count_of(f"user:{alice.pk}"), await count_of(SITE_SUBJECT)) == (1, 1)


NOTICE_SHOWN = 'data-quota-notice role="status">'
NOTICE_HIDDEN = 'data-quota-notice role="status" hidden>'


@sync_to_async
def page_of(session: Session, user: Any = None, address: str = HOME, store_key: str = "") -> str:
    http = HttpClient(REMOTE_ADDR=address)
    if user is not None:
        http.force_login(user)
    if store_key:
        http.cookies["sessionid"] = store_key
    return http.get(f"/play/{session.pk}/").content.decode()


async def test_the_play_page_says_when_the_quota_is_used_up(alice, version, live_openai, settings):
    settings.FABULA_DAILY_ACTION_QUOTA = 1
    session = await user_session(alice, version)
    assert NOTICE_HIDDEN in await page_of(session, alice)
    await turn(session, user=alice)
    page = await page_of(session, alice)
    assert NOTICE_SHOWN in page
    assert "They come back at midnight UTC." in page


async def test_the_play_page_counts_a_guest_by_address(version, live_openai, settings):
    settings.FABULA_DAILY_ACTION_QUOTA = 1
    first, second = await sync_to_async(guest_store)(), await sync_to_async(guest_store)()
    await turn(await guest_session(version, first), HOME, store=first)
    fresh = await guest_session(version, second)
    assert NOTICE_SHOWN in await page_of(fresh, address=HOME, store_key=second.session_key)
    assert NOTICE_HIDDEN in await page_of(fresh, address=CAFE, store_key=second.session_key)


def test_an_action_counts_against_every_subject_or_none_of_them() -> None:
    from play.quota import reserve

    now = timezone.now()
    day = utc_day(now)

    def counts() -> dict[str, int]:
        rows = DailyActionCount.objects.filter(day=day).values_list("subject", "count")
        return dict(rows)

    assert reserve({"guest:a": 2, "addr:1.2.3.4": 3}, now) == ("addr:1.2.3.4", "guest:a")
    assert reserve({"guest:a": 2, "addr:1.2.3.4": 3}, now) is not None
    assert counts() == {"guest:a": 2, "addr:1.2.3.4": 2}

    # guest:a is used up: the address, counted first, is not counted either.
    assert reserve({"guest:a": 2, "addr:1.2.3.4": 3}, now) is None
    assert counts() == {"guest:a": 2, "addr:1.2.3.4": 2}

    assert reserve({"guest:a": 0}, now) == ("guest:a",)  # 0: counted, never refused
    assert counts()["guest:a"] == 3
    assert reserve({"guest:b": 1}, now, day=day - timedelta(days=1)) == ("guest:b",)
    assert "guest:b" not in counts()  # counted on the day asked for
