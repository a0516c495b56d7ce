"""The export panel's report on condition-gated entries, and the creator's choice for them in
the character card download (issue 35 §9)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from tests.factories import make_world
from tests.studio.view_helpers import login

pytestmark = pytest.mark.django_db

WOUNDED = {
    "id": "wounded",
    "name": "Wounded",
    "section": "chat-history",
    "content": "{{user}} bleeds ({{health}} left). [health: -10]",
    "conditions": [{"variableId": "health", "operator": "lt", "value": 50}],
}
ATLAS = {"id": "atlas", "name": "Atlas", "keywords": ["Atlas"], "content": "A map."}


@pytest.fixture
def gated_world(alice):
    from tests.factories import BASE_WORLD

    return make_world(alice, entries=[*BASE_WORLD["entries"], ATLAS, WOUNDED])


def card_book(response) -> list[dict]:
    return json.loads(response.content)["data"]["character_book"]["entries"]


def test_the_export_panel_names_the_gated_entries_and_offers_both_choices(
    client, alice, gated_world
):
    page = login(client, alice).get(reverse("studio:world", args=[gated_world.pk]))
    html = page.content.decode()

    assert "data-card-gated" in html and "<li>Wounded</li>" in html
    assert "which SillyTavern cannot check" in html
    assert "gated=omit" in html and "gated=disable" in html


def test_no_report_when_no_entry_is_gated(client, alice, world):
    html = login(client, alice).get(reverse("studio:world", args=[world.pk])).content.decode()

    assert "data-card-gated" not in html


def test_the_card_leaves_gated_entries_out_or_switches_them_off_as_chosen(
    client, alice, gated_world
):
    url = reverse("studio:export_card", args=[gated_world.pk]) + "?format=json&spec=v2"
    login(client, alice)

    left_out = card_book(client.get(url + "&gated=omit"))
    switched_off = card_book(client.get(url + "&gated=disable"))
    default = card_book(client.get(url))

    assert [e["comment"] for e in left_out] == ["Atlas"]
    assert {e["comment"]: e["enabled"] for e in switched_off} == {"Atlas": True, "Wounded": False}
    assert default == switched_off
    assert client.get(url + "&gated=keep").status_code == 400
