"""A world UI's storage does not fill the disk (issue 32 §8): guests from one client address
share a bound (read by the guest quota's trusted-proxy rule), a guest's storage goes with the
guest purge, and a session's own storage goes with the session."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from play import periodic, ui_storage
from play.models import Session, UiStorage
from play.sessions import delete_session, start_session
from tests.play.conftest import guest_store
from tests.play.test_ui_api import ui_version

pytestmark = pytest.mark.django_db
__all__ = ["ui_version"]  # the fixture, imported for this module's tests

VALUE = json.dumps("x" * 1000)  # about 1 KB stored


def guest(version: Any, address: str = "203.0.113.7", forwarded: str = "") -> tuple[Client, Any]:
    """A fresh guest cookie with a preview of ``version``, its browser at ``address``."""
    store = guest_store()
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    client = Client(REMOTE_ADDR=address, **extra)
    client.cookies[django_settings.SESSION_COOKIE_NAME] = store.session_key
    return client, start_session(None, version, guest_key=store.session_key)


def store(client: Client, session: Session, key: str = "notes", scope: str = "world") -> Any:
    body = {"scope": scope, "key": key, "value": VALUE}
    url = f"/play/{session.pk}/ui/storage/"
    return client.post(url, json.dumps(body), content_type="application/json")


def test_fresh_guest_cookies_from_one_address_share_one_bound(ui_version, settings):
    settings.FABULA_UI_GUEST_STORAGE_PER_ADDRESS = 5000
    answers = [store(*guest(ui_version)) for _ in range(8)]
    assert [a.status_code for a in answers[:4]] == [200] * 4
    refused = answers[4]
    assert refused.status_code == 400 and refused.json()["field"] == "value"
    assert refused.json()["error"].startswith("Guests from this address have filled their")
    assert sum(UiStorage.objects.values_list("size", flat=True)) <= 5000
    assert store(*guest(ui_version, address="198.51.100.9")).status_code == 200  # another address


def test_a_guest_behind_a_trusted_proxy_counts_by_the_forwarded_address(ui_version, settings):
    settings.FABULA_UI_GUEST_STORAGE_PER_ADDRESS = 3000
    settings.FABULA_TRUSTED_PROXIES = ["10.0.0.1"]
    for _ in range(2):
        assert store(*guest(ui_version, "10.0.0.1", forwarded="192.0.2.5")).status_code == 200
    assert store(*guest(ui_version, "10.0.0.1", forwarded="192.0.2.5")).status_code == 400
    assert store(*guest(ui_version, "10.0.0.1", forwarded="192.0.2.6")).status_code == 200
    # A forged hop from an untrusted address is ignored: it counts by its own address.
    for _ in range(2):
        assert store(*guest(ui_version, "203.0.113.8", forwarded="192.0.2.7")).status_code == 200
    assert store(*guest(ui_version, "203.0.113.8", forwarded="192.0.2.99")).status_code == 400


def test_a_guest_over_the_bound_may_still_shrink_and_remove(ui_version, settings):
    client, session = guest(ui_version)
    assert store(client, session).status_code == 200
    settings.FABULA_UI_GUEST_STORAGE_PER_ADDRESS = 500
    assert store(client, session, key="more").status_code == 400
    url = f"/play/{session.pk}/ui/storage/"
    body = json.dumps({"scope": "world", "key": "notes", "value": None})
    assert client.post(url, body, content_type="application/json").status_code == 200


def test_signed_in_players_are_not_bound_by_the_guests_address(ui_version, alice, settings):
    settings.FABULA_UI_GUEST_STORAGE_PER_ADDRESS = 500
    client = Client(REMOTE_ADDR="203.0.113.7")
    client.force_login(alice)
    assert store(client, start_session(alice, ui_version, mode="offline")).status_code == 200


def test_deleting_a_session_deletes_its_own_storage(ui_version, alice):
    client = Client()
    client.force_login(alice)
    session = start_session(alice, ui_version, mode="offline")
    assert store(client, session, scope="session").status_code == 200
    assert store(client, session, scope="world").status_code == 200
    delete_session(session)
    assert list(UiStorage.objects.values_list("scope", flat=True)) == ["world"]  # the player's


def test_the_guest_purge_takes_the_guests_storage_with_it(ui_version, alice):
    client, stale = guest(ui_version)
    assert store(client, stale).status_code == 200
    assert store(client, stale, scope="session").status_code == 200
    kept_client, kept = guest(ui_version)
    assert store(kept_client, kept).status_code == 200
    player = Client()
    player.force_login(alice)
    mine = start_session(alice, ui_version, mode="offline")
    assert store(player, mine).status_code == 200
    gone = start_session(alice, ui_version, mode="offline")
    assert store(player, gone, scope="session").status_code == 200
    Session.objects.filter(pk=gone.pk).delete()  # a session deleted some other way
    Session.objects.filter(pk=stale.pk).update(updated_at=timezone.now() - timedelta(days=2))

    assert periodic.purge_guests() == 1
    left = set(UiStorage.objects.values_list("player", "scope"))
    assert left == {
        (f"guest:{kept.guest_key}@addr:203.0.113.7", "world"),
        (f"user:{alice.pk}", "world"),
    }
    assert ui_storage.purge() == 0


def test_the_purge_command_also_purges_storage(ui_version, capsys):
    client, session = guest(ui_version)
    assert store(client, session).status_code == 200
    Session.objects.filter(pk=session.pk).update(updated_at=timezone.now() - timedelta(days=2))
    call_command("purge_guest_sessions")
    assert not UiStorage.objects.exists()
    assert "Deleted 1 custom-UI storage row(s)." in capsys.readouterr().out
