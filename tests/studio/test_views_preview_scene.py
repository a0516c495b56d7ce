"""The prompt preview of a game-master world: pick a character and a location, see the scene
context the master would get for them, and never a secret."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from studio.worlds import import_world
from tests.studio.gm_helpers import demo_data
from tests.studio.view_helpers import hx, is_partial, login

pytestmark = pytest.mark.django_db


def post(**data: str) -> dict[str, str]:
    base = {"chat": "user: I look around.", "state": ""}
    return {f"preview-{k}": v for k, v in {**base, **data}.items()}


def text(response: Any) -> str:
    return unescape(re.sub(r"\s+", " ", response.content.decode()))


def scene_of(response: Any) -> str:
    found = re.search(
        r'<pre class="gm-scene" id="scene-context">(.*?)</pre>', response.content.decode(), re.S
    )
    assert found, "no scene context in the preview"
    return unescape(found.group(1))


def planted() -> tuple[dict[str, Any], list[str]]:
    """The demo world with a marked secret in every place one can hide, and the markers."""
    data = demo_data()
    gm = data["gameMaster"]
    marks: list[str] = []

    def mark(what: str) -> str:
        marks.append(f"SECRET-{len(marks)}-{what}")
        return marks[-1]

    gm["campaign"].update(gmNotes=mark("gm-notes"), sessionPlan=mark("plan"))
    for npc in gm["npcs"]:
        npc["secret"] = {"text": mark(npc["id"]), "tellsTo": "a true friend"}
        npc["motivation"] = mark("motivation")
        npc.setdefault("disclosures", {})["ally"] = mark("ally-tier")
    for location in gm["locations"]:
        hidden = location.setdefault("hiddenPoints", [])
        for point in hidden:
            point.update(name=mark("hidden-name"), description=mark("hidden-text"))
        secret = {"check": "investigation", "dc": 20}
        cache = {"id": "cache", "name": mark("cache"), "description": mark("cache-text")}
        hidden.append({**cache, "foundBy": secret})
    for character in gm["characters"]:
        character["full"]["secrets"] = [mark(f"{character['id']}-secret")]
        character["full"]["background"] = mark("background")
    return data, marks


@pytest.fixture
def demo(alice: Any) -> Any:
    return import_world(alice, demo_data())


def preview(client: Any, world: Any, data: dict[str, str], **headers: Any) -> Any:
    return client.post(reverse("studio:preview", args=[world.pk]), data, **headers)


def test_the_panel_offers_a_character_and_a_location(client, alice, demo):
    html = login(client, alice).get(reverse("studio:world", args=[demo.pk])).content.decode()
    assert '<select name="preview-scene_character" id="id_preview-scene_character">' in html
    assert '<option value="ren">Ren Ashby</option>' in html
    assert '<option value="" selected>where the character starts</option>' in html
    assert '<option value="chapel">Chapel of the Lantern</option>' in html


def test_a_plain_world_has_no_scene_pickers(client, alice, world):
    html = login(client, alice).get(reverse("studio:world", args=[world.pk])).content.decode()
    assert "scene_character" not in html
    page = text(preview(client, world, post(), **hx()))
    assert "Scene context" not in page


def test_the_scene_of_the_chosen_character_at_the_chosen_place(client, alice, demo):
    response = preview(
        login(client, alice), demo, post(scene_character="ada", scene_location="chapel"), **hx()
    )
    assert is_partial(response)
    scene = scene_of(response)
    assert scene.startswith("Scene for Ada Thorne (ada), day 1, morning.")
    assert "Place: Chapel of the Lantern (chapel)." in scene
    assert "What the master gets for ada at chapel" in text(response)


def test_blank_pickers_give_the_first_character_where_it_starts(client, alice, demo):
    scene = scene_of(preview(login(client, alice), demo, post(), **hx()))
    assert scene.startswith("Scene for Ren Ashby (ren)")
    assert "Place: The Wayfarer's Rest (the-wayfarer)." in scene


def test_an_unknown_choice_falls_back_instead_of_failing(client, alice, demo):
    data = post(scene_character="nobody", scene_location="moon")
    response = preview(login(client, alice), demo, data, **hx())
    assert response.status_code == 200
    assert scene_of(response).startswith("Scene for Ren Ashby (ren)")


def test_the_page_without_htmx_shows_the_scene_too(client, alice, demo):
    response = preview(login(client, alice), demo, post(scene_character="ada"))
    assert b"<html" in response.content
    assert scene_of(response).startswith("Scene for Ada Thorne (ada)")


def test_no_secret_ever_reaches_the_preview(client, alice):
    data, marks = planted()
    world = import_world(alice, data)
    login(client, alice)
    gm = data["gameMaster"]
    shown = 0
    for character in gm["characters"]:
        for location in ["", *(x["id"] for x in gm["locations"])]:
            choice = post(scene_character=character["id"], scene_location=location)
            response = preview(client, world, choice, **hx())
            html = response.content.decode()
            assert [m for m in marks if m in html] == [], (character["id"], location)
            shown += bool(scene_of(response))
    assert shown == len(gm["characters"]) * (len(gm["locations"]) + 1)
    hilda = scene_of(preview(client, world, post(scene_location="the-wayfarer"), **hx()))
    assert "keeps back a secret: would tell it to a true friend." in hilda


def test_the_api_preview_returns_the_scene_when_asked(client, alice, demo):
    client.force_login(alice)
    body = {"chat": [], "scene": {"character": "ada", "location": "square"}}
    response = client.post(f"/api/worlds/{demo.pk}/preview", json.dumps(body), "application/json")
    scene = response.json()["scene"]
    assert (scene["character"], scene["location"]) == ("ada", "square")
    assert scene["context"].startswith("Scene for Ada Thorne (ada)")
    plain = client.post(f"/api/worlds/{demo.pk}/preview", "{}", "application/json").json()
    assert "scene" not in plain
