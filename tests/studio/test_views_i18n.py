"""The studio speaks English, Spanish and Chinese; the world's own language stays separate."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.studio.view_helpers import hx, login

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("code", "heading", "nav"),
    [
        ("en", "Worlds to play", "Gallery"),
        ("es", "Mundos para jugar", "Galería"),
        ("zh-hans", "可游玩的世界", "画廊"),
    ],
)
def test_the_language_switcher_translates_the_gallery(client, code, heading, nav):
    response = client.post(reverse("set_language"), {"language": code, "next": "/"})
    assert response["Location"] == "/"
    html = client.get("/").content.decode()
    assert f"<h1>{heading}</h1>" in html
    assert f">{nav}</a>" in html
    assert f'<html lang="{code}">' in html


def test_editor_labels_and_engine_errors_in_spanish(client, alice, world):
    login(client, alice)
    client.post(reverse("set_language"), {"language": "es", "next": "/"})
    html = client.get(reverse("studio:entries", args=[world.pk])).content.decode()
    assert ">Entradas</a>" in html
    assert "Vista previa del prompt" in html
    response = client.post(
        reverse("studio:entries_new", args=[world.pk]),
        {
            "id": "",
            "name": "",
            "section": "nowhere",
            "position": "0",
            "role": "lore",
            "api_role": "system",
            "secondary_keyword_logic": "AND_ANY",
            "condition_logic": "all",
        },
    )
    assert "Escoja una opción válida. nowhere no es una de las opciones disponibles." in (
        response.content.decode()
    )


def test_preview_step_names_in_chinese(client, alice, world):
    login(client, alice)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    response = client.post(
        reverse("studio:preview", args=[world.pk]),
        {"preview-chat": "user: hi", "preview-state": ""},
        **hx(),
    )
    html = response.content.decode()
    assert "第 1 步 · 系统预设" in html
    assert "缓存断点 · 上方" in html


def test_the_worlds_language_field_is_not_the_studio_language(client, alice, world):
    login(client, alice)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    html = client.get(reverse("studio:world", args=[world.pk])).content.decode()
    assert 'name="language" value="en"' in html
    assert "世界语言" in html
