"""Downloads for SillyTavern from the world page: character cards and World Info."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from engine.interop import import_file, read_png_card
from engine.world import export_world
from studio.models import Entry
from studio.worlds import create_item, world_to_definition
from tests.studio.view_helpers import login, publish

pytestmark = pytest.mark.django_db


def card_url(world, **query: str) -> str:
    url = reverse("studio:export_card", args=[world.pk])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def test_the_world_page_links_every_export(client, alice, world):
    html = login(client, alice).get(reverse("studio:world", args=[world.pk])).content.decode()

    for fmt in ("png", "json"):
        for spec in ("v2", "v3"):
            assert f"{card_url(world)}?format={fmt}&amp;spec={spec}" in html
    assert reverse("studio:export_worldinfo", args=[world.pk]) in html


def test_a_png_card_downloads_with_the_world_inside(client, alice, world):
    response = login(client, alice).get(card_url(world, format="png", spec="v3"))

    assert response["Content-Type"] == "image/png"
    assert response["Content-Disposition"] == 'attachment; filename="the-salt-road.v3.png"'
    assert read_png_card(response.content)["spec"] == "chara_card_v3"
    again, warnings = import_file(response.content, "card.png")
    assert export_world(again) == export_world(world_to_definition(world))
    assert warnings == []


def test_a_json_card_is_png_v2_by_default_and_json_on_request(client, alice, world):
    login(client, alice)

    default = client.get(card_url(world))
    as_json = client.get(card_url(world, format="json"))

    assert default["Content-Disposition"] == 'attachment; filename="the-salt-road.v2.png"'
    card = json.loads(as_json.content)
    assert (card["spec"], card["data"]["system_prompt"]) == (
        "chara_card_v2",
        "You narrate the salt road. {{char}} speaks plainly.",
    )


def test_the_lorebook_downloads_as_world_info(client, alice, world):
    create_item(world, Entry, {"id": "dunes", "section": "chat-history", "keywords": ["dune"]})

    response = login(client, alice).get(reverse("studio:export_worldinfo", args=[world.pk]))

    data = json.loads(response.content)
    assert response["Content-Disposition"] == 'attachment; filename="the-salt-road.worldinfo.json"'
    assert [e["key"] for e in data["entries"].values()] == [["dune"]]


def test_a_bad_format_or_spec_is_a_400(client, alice, world):
    login(client, alice)

    assert client.get(card_url(world, format="gif")).status_code == 400
    assert client.get(card_url(world, spec="v9")).status_code == 400


def test_an_invalid_draft_says_why_instead_of_downloading(client, alice, world):
    world.entries.filter(key="narrator").update(
        conditions=[{"variableId": "gone", "operator": "eq", "value": 1}]
    )

    response = login(client, alice).get(card_url(world), follow=True)

    assert response.redirect_chain == [(reverse("studio:world", args=[world.pk]), 302)]
    assert "The draft is invalid: entries[0].conditions[0].variableId: unknown variable" in (
        response.content.decode()
    )


def test_the_export_checklist(client, alice, bob, charlie, world):
    urls = [card_url(world), reverse("studio:export_worldinfo", args=[world.pk])]
    assert [client.get(url).status_code for url in urls] == [302, 302]
    login(client, charlie)
    assert [client.get(url).status_code for url in urls] == [404, 404]
    login(client, alice)
    assert [client.post(url).status_code for url in urls] == [405, 405]
    publish(world)
    login(client, bob)
    assert [client.get(url).status_code for url in urls] == [403, 403]
