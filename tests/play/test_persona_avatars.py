"""Persona avatars (upload, crop, refusals, owner only) and the faces of the play page: the
world's portrait beside the narrator, the persona's avatar beside the player, initials without."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from play.faces import session_faces
from play.gm import set_character
from play.models import Persona, Session
from play.personas import create_persona, delete_persona, set_persona_avatar, set_session_persona
from play.sessions import start_session, world_of
from studio.portraits import set_character_portrait, set_world_portrait
from studio.publishing import publish_world
from studio.worlds import import_world
from tests.studio.gm_helpers import demo_data
from tests.studio.view_helpers import errors_of
from tests.support.images import BLUE, bomb_png, decoded, halves, image_bytes, image_upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings: Any, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


@pytest.fixture
def mira(alice: Any) -> Persona:
    return create_persona(alice, {"name": "Mira Vell"})


def stored_files(media: Path) -> list[str]:
    return sorted(p.name for p in media.rglob("*") if p.is_file())


def avatar_url(persona: Persona, size: int = 64) -> str:
    return "/media/" + (persona.avatar.name or "").removesuffix("portrait.png") + f"{size}.webp"


def post_avatar(client: Client, persona: Persona, **data: Any) -> Any:
    data.setdefault("image", image_upload())
    return client.post(reverse("play:persona_avatar", args=[persona.pk]), data)


# --- uploading -------------------------------------------------------------------------------


def test_the_owner_uploads_an_avatar_cropped_square(client: Client, alice: Any, mira: Persona):
    client.force_login(alice)
    response = post_avatar(client, mira, crop_x="0", crop_y="0", crop_size="50")
    assert response.status_code == 302
    assert response["Location"] == reverse("play:persona_edit", args=[mira.pk])
    mira.refresh_from_db()
    assert mira.avatar.name.startswith("portraits/")
    with mira.avatar.open("rb") as stored:
        avatar = decoded(stored.read())
    assert (avatar.format, avatar.size, avatar.getpixel((25, 25))[:3]) == ("PNG", (50, 50), BLUE)
    page = client.get(response["Location"]).content.decode()
    assert "Avatar saved." in page
    assert f'src="{avatar_url(mira, 256)}"' in page


def test_a_non_image_is_refused_on_the_image_field(
    client: Client, alice: Any, mira: Persona, media: Path
):
    client.force_login(alice)
    response = post_avatar(client, mira, image=image_upload(b"%PDF-1.7", "me.png"))
    assert response.status_code == 400
    assert errors_of(response) == ["not an image (PNG, JPEG, WebP or GIF expected)"]
    assert 'id="field-image"' in response.content.decode()
    mira.refresh_from_db()
    assert not mira.avatar
    assert stored_files(media) == []


def test_a_bomb_and_an_oversize_file_are_refused(
    client: Client, alice: Any, mira: Persona, settings: Any, media: Path
):
    client.force_login(alice)
    bomb = post_avatar(client, mira, image=image_upload(bomb_png()))
    assert errors_of(bomb) == ["the image has too many pixels (at most 25 megapixels)"]
    settings.MAX_PORTRAIT_BYTES = 100
    big = post_avatar(client, mira)
    assert errors_of(big) == ["is larger than the 100 bytes limit"]
    assert stored_files(media) == []


def test_another_users_persona_is_not_found(
    client: Client, alice: Any, bob: Any, mira: Persona
) -> None:
    for name in ("play:persona_avatar", "play:persona_avatar_remove"):
        url = reverse(name, args=[mira.pk])
        assert client.post(url).status_code == 302  # log in first
        client.force_login(bob)
        assert client.post(url, {"image": image_upload()}).status_code == 404
        client.logout()
        client.force_login(alice)
        assert client.get(url).status_code == 405
        client.logout()
    mira.refresh_from_db()
    assert not mira.avatar


def test_removing_and_deleting_let_the_files_go(
    client: Client,
    alice: Any,
    mira: Persona,
    media: Path,
    django_capture_on_commit_callbacks: Any,
):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        set_persona_avatar(mira, image_upload())
        assert stored_files(media) == ["256.webp", "64.webp", "portrait.png"]
        client.post(reverse("play:persona_avatar_remove", args=[mira.pk]))
    mira.refresh_from_db()
    assert not mira.avatar
    assert stored_files(media) == []
    with django_capture_on_commit_callbacks(execute=True):
        set_persona_avatar(mira, image_upload())
        delete_persona(mira)
    assert stored_files(media) == []


def test_the_persona_list_and_the_api_show_the_avatar(client: Client, alice: Any, mira: Persona):
    set_persona_avatar(mira, image_upload())
    create_persona(alice, {"name": "Tomas"})
    client.force_login(alice)
    html = client.get(reverse("play:personas")).content.decode()
    assert f'src="{avatar_url(mira, 256)}"' in html
    assert ">T</span>" in html  # Tomas has none: his initial
    listed = client.get("/api/play/personas").json()
    assert [p["avatar"] for p in listed] == [avatar_url(mira, 256), None]


# --- the play page ---------------------------------------------------------------------------


def config_of(html: str) -> dict[str, Any]:
    match = re.search(
        r'<script id="play-config-[^"]+" type="application/json">(.*?)</script>', html
    )
    assert match
    return json.loads(match.group(1))


def test_bubbles_show_the_world_portrait_and_the_persona_avatar(
    client: Client, alice: Any, mira: Persona, version: Any
):
    set_world_portrait(version.world, image_upload())
    set_persona_avatar(mira, image_upload(image_bytes(halves(90, 90))))
    session = start_session(alice, version, persona=mira, mode="offline")
    session.messages.create(position=5, role="user", content="I walk on.")
    client.force_login(alice)
    html = client.get(reverse("play:session", args=[session.pk])).content.decode()
    world_icon = "/media/" + version.world.portrait.name.removesuffix("portrait.png") + "64.webp"
    faces = config_of(html)["faces"]
    assert (faces["assistant"]["icon"], faces["user"]["icon"]) == (world_icon, avatar_url(mira))
    assert (faces["assistant"]["name"], faces["user"]["name"]) == ("The Salt Road", "Mira Vell")
    bubbles = re.findall(
        r'<li class="msg msg--(\w+).*?<div class="msg-who">(.*?)</div>', html, re.S
    )
    assert [(role, world_icon in who, avatar_url(mira) in who) for role, who in bubbles] == [
        ("assistant", True, False),
        ("user", False, True),
    ]
    header = html.split('class="play-bar"', 1)[1].split("</header>", 1)[0]
    thumb = world_icon.replace("64.webp", "256.webp")
    assert f'<img class="face face--md" src="{thumb}"' in header


def test_without_pictures_the_bubbles_show_initials_and_no_image(
    client: Client, alice: Any, play_session: Session
):
    play_session.messages.create(position=5, role="user", content="Hello.")
    client.force_login(alice)
    html = client.get(reverse("play:session", args=[play_session.pk])).content.decode()
    chat = html.split('class="play-bar"', 1)[1]
    assert "<img" not in chat.split("</ol>", 1)[0]
    assert re.search(r'face face--sm face--initials face--hue-\d" aria-hidden="true">TS<', chat)
    assert re.search(r'face face--sm face--initials face--hue-\d" aria-hidden="true">Y<', chat)
    faces = config_of(html)["faces"]
    assert (faces["assistant"]["icon"], faces["user"]["icon"]) == ("", "")


def test_a_persona_chosen_later_gives_its_avatar(alice: Any, mira: Persona, play_session: Session):
    set_persona_avatar(mira, image_upload())
    set_session_persona(play_session, mira)
    faces = session_faces(play_session, world_of(play_session), "Mira Vell")
    assert faces["user"]["icon"] == avatar_url(mira)


def test_in_a_game_master_world_the_played_character_stands_in_for_no_avatar(alice: Any):
    world = import_world(alice, demo_data())
    set_character_portrait(world, "ren", image_upload())
    session = set_character(start_session(alice, publish_world(world), mode="offline"), "ren")
    faces = session_faces(session, world_of(session), "You")
    assert faces["user"]["icon"].endswith("/64.webp")
    assert faces["assistant"]["icon"] == ""  # Brackenford itself has no portrait
    mira = create_persona(alice, {"name": "Mira"})
    set_persona_avatar(mira, image_upload())
    set_session_persona(session, mira)
    assert session_faces(session, world_of(session), "Mira")["user"]["icon"] == avatar_url(mira)


# --- My stories --------------------------------------------------------------------------------


def test_my_stories_lists_each_session_with_a_resume_link_and_a_local_date(
    client: Client, alice: Any, play_session: Session
):
    Session.objects.filter(pk=play_session.pk).update(
        updated_at="2026-05-13T22:30:00+00:00"  # 00:30 the next day in Madrid
    )
    client.force_login(alice)
    client.cookies["fabula_tz"] = "Europe%2FMadrid"
    html = client.get(reverse("play:session_list")).content.decode()
    resume = reverse("play:session", args=[play_session.pk])
    assert f'<a class="button small" href="{resume}" data-resume>Resume</a>' in html
    assert '<time datetime="2026-05-14T00:30+02:00"' in html
    assert "(Europe/Madrid)" in html
    assert ">05/14/2026 12:30 a.m.</time>" in html
