"""The model a world's creator recommends (issue 16 §5): ``settings.recommendedModel`` round-trips
through the schema, the studio's settings form, export and import; in play it answers on the
site's key only where FABULA_SITE_MODELS offers it, and the play page says which model answers."""

from __future__ import annotations

import json
from html import unescape
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from engine.world import WorldValidationError, export_world, load_world
from play.models import ProviderSetting, Session
from play.sessions import start_session
from studio.models import World
from studio.publishing import publish_world
from studio.worlds import export_world_json, import_world, world_to_definition
from tests.factories import make_world, world_data
from tests.play.conftest import (
    PLAY_WORLD_ENTRIES,
    PLAY_WORLD_RULES,
    PLAY_WORLD_VARIABLES,
    connect,
)
from tests.studio.test_views_settings import settings_post

RECOMMENDED = "test-model-large"


# --- the schema ------------------------------------------------------------------------------


def test_the_recommended_model_round_trips_through_the_schema():
    world = load_world({"name": "X", "settings": {"recommendedModel": RECOMMENDED}})
    assert world.settings.recommended_model == RECOMMENDED
    assert world.warnings == []  # a known field, not "unknown field kept"
    exported = export_world(world)
    assert exported["settings"]["recommendedModel"] == RECOMMENDED
    assert load_world(exported).settings.recommended_model == RECOMMENDED


def test_no_recommendation_stays_absent_from_the_export():
    assert "recommendedModel" not in export_world(load_world({"name": "X"}))["settings"]
    blank = load_world({"name": "X", "settings": {"recommendedModel": ""}})
    assert "recommendedModel" not in export_world(blank)["settings"]


def test_a_recommended_model_name_has_a_length_limit():
    with pytest.raises(WorldValidationError) as caught:
        load_world({"name": "X", "settings": {"recommendedModel": "m" * 201}})
    assert caught.value.errors == [
        "settings.recommendedModel: string should have at most 200 characters"
    ]


# --- the studio ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_settings_form_saves_and_shows_the_recommended_model(client, alice, world):
    client.force_login(alice)
    url = reverse("studio:settings", args=[world.pk])
    response = client.post(url, settings_post(recommended_model=f"  {RECOMMENDED} "))
    assert response.status_code == 302
    world.refresh_from_db()
    assert world.settings["recommendedModel"] == RECOMMENDED
    html = unescape(client.get(url).content.decode())
    assert f'name="recommended_model" value="{RECOMMENDED}"' in html
    assert "The model you wrote this world for" in html


@pytest.mark.django_db
def test_clearing_the_recommended_model_removes_it(client, alice):
    world = make_world(alice, settings={"recommendedModel": RECOMMENDED})
    client.force_login(alice)
    client.post(reverse("studio:settings", args=[world.pk]), settings_post(recommended_model=""))
    world.refresh_from_db()
    assert "recommendedModel" not in world.settings


@pytest.mark.django_db
def test_the_recommended_model_survives_export_and_import(client, alice):
    world = make_world(alice, settings={"recommendedModel": RECOMMENDED})
    client.force_login(alice)
    exported = json.loads(client.get(reverse("studio:export", args=[world.pk])).content)
    assert exported["settings"]["recommendedModel"] == RECOMMENDED
    exported["id"] = ""
    upload = SimpleUploadedFile("w.json", json.dumps(exported).encode(), "application/json")
    client.post(reverse("studio:import"), {"file": upload})
    imported = World.objects.exclude(pk=world.pk).get()
    assert imported.settings["recommendedModel"] == RECOMMENDED
    assert world_to_definition(imported).settings.recommended_model == RECOMMENDED
    assert export_world_json(imported)["settings"]["recommendedModel"] == RECOMMENDED


# --- play ------------------------------------------------------------------------------------


def recommending(owner: Any, model: str = RECOMMENDED) -> Any:
    world = make_world(
        owner,
        entries=PLAY_WORLD_ENTRIES,
        variables=PLAY_WORLD_VARIABLES,
        rules=PLAY_WORLD_RULES,
        settings={"recommendedModel": model},
    )
    return publish_world(world)


async def one_turn(user: Any, version: Any, model: str = "") -> dict[str, Any]:
    session = await sync_to_async(start_session)(user, version, mode="live", model=model)
    client, _ = await connect(session.pk, user)
    await client.send(type="send", text="I wait")
    end = await client.settle(timeout=20)
    await client.close()
    return end


@pytest.mark.django_db(transaction=True)
async def test_on_the_site_key_an_offered_recommendation_answers(alice, live_openai, settings):
    settings.FABULA_SITE_MODELS = [RECOMMENDED]
    version = await sync_to_async(recommending)(alice)
    end = await one_turn(alice, version)
    assert live_openai.requests[-1].body["model"] == RECOMMENDED
    assert end["message"]["model"] == RECOMMENDED


@pytest.mark.django_db(transaction=True)
async def test_on_the_site_key_a_recommendation_not_offered_falls_back(
    alice, live_openai, settings
):
    settings.FABULA_SITE_MODELS = ["some-other-model"]
    version = await sync_to_async(recommending)(alice)
    end = await one_turn(alice, version)
    assert live_openai.requests[-1].body["model"] == "test-model"
    assert end["message"]["model"] == "test-model"


@pytest.mark.django_db(transaction=True)
async def test_an_empty_allow_list_offers_only_the_site_default(alice, live_openai, settings):
    settings.FABULA_SITE_MODELS = []
    version = await sync_to_async(recommending)(alice)
    await one_turn(alice, version)
    assert live_openai.requests[-1].body["model"] == "test-model"


@pytest.mark.django_db(transaction=True)
async def test_a_session_pick_not_offered_gives_way_to_an_offered_recommendation(
    alice, live_openai, settings
):
    settings.FABULA_SITE_MODELS = [RECOMMENDED]
    version = await sync_to_async(recommending)(alice)
    await one_turn(alice, version, model="gpt-very-expensive")
    assert live_openai.requests[-1].body["model"] == RECOMMENDED


@pytest.mark.django_db(transaction=True)
async def test_on_their_own_key_the_players_model_comes_before_the_recommendation(
    alice, live_openai, settings
):
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True
    version = await sync_to_async(recommending)(alice)
    setting = await sync_to_async(ProviderSetting.objects.create)(
        user=alice, provider="openai", base_url=live_openai.openai_url, model="alice-model"
    )
    await one_turn(alice, version)
    assert live_openai.requests[-1].body["model"] == "alice-model"
    setting.model = ""
    await sync_to_async(setting.save)()
    await one_turn(alice, version)
    assert live_openai.requests[-1].body["model"] == RECOMMENDED


def page_of(client: Any, user: Any, version: Any, **kwargs: Any) -> str:
    session: Session = start_session(user, version, mode="live", **kwargs)
    client.force_login(user)
    return unescape(client.get(reverse("play:session", args=[session.pk])).content.decode())


@pytest.mark.django_db
def test_the_play_page_names_the_model_that_answers(client, alice, live_openai, settings):
    settings.FABULA_SITE_MODELS = []
    html = page_of(client, alice, recommending(alice))
    assert "Live — test-model</span>" in html
    assert f"· The creator recommends {RECOMMENDED}." in html
    settings.FABULA_SITE_MODELS = [RECOMMENDED]
    html = page_of(client, alice, recommending(alice))
    assert f"Live — {RECOMMENDED}</span>" in html
    assert "The creator recommends" not in html


@pytest.mark.django_db
def test_the_play_page_does_not_name_a_pick_the_site_key_refuses(client, alice, live_openai):
    version = publish_world(import_world(alice, world_data(entries=PLAY_WORLD_ENTRIES)))
    html = page_of(client, alice, version, model="gpt-very-expensive")
    assert "Live — test-model</span>" in html
    assert "gpt-very-expensive" not in html
