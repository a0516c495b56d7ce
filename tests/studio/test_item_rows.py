"""The item list's rows, rendered in Python (studio.item_rows) for lists of thousands."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from studio import item_rows
from studio.labels import label_text
from studio.models import Entry, World
from studio.worlds import create_item
from tests.studio.view_helpers import hx, login

pytestmark = pytest.mark.django_db


def add(world: World, key: str, **data: object) -> Entry:
    return create_item(world, Entry, {"id": key, "section": "chat-history", **data})


def rows_of(html: str) -> list[str]:
    return re.findall(r"<li data-id=.*?</li>", html, re.S)


def test_each_row_links_to_its_own_edit_and_move_urls(client, alice, world):
    added = [add(world, f"place-{n}", name=f"Place {n}") for n in range(3)]
    login(client, alice)
    edited = added[1]
    html = client.get(reverse("studio:entries_edit", args=[world.pk, edited.pk])).content.decode()
    rows = {int(re.search(r'data-id="(\d+)"', r)[1]): r for r in rows_of(html)}  # type: ignore[index]
    assert set(rows) == set(world.entries.values_list("pk", flat=True))
    for entry in added:
        row = rows[entry.pk]
        edit = reverse("studio:entries_edit", args=[world.pk, entry.pk])
        move = reverse("studio:entries_move", args=[world.pk, entry.pk])
        assert f'href="{edit}" hx-get="{edit}"' in row
        assert row.count(f'formaction="{move}" hx-post="{move}"') == 2
        assert f'aria-label="Move {entry.name} up"' in row
        assert f"li[data-id='{entry.pk}'] button[value=down]" in row
    assert 'class="current" aria-current="true"' in rows[edited.pk]
    assert sum('aria-current="true"' in row for row in rows.values()) == 1


def test_only_the_first_row_cannot_move_up_and_only_the_last_down(client, alice, world):
    for n in range(3):
        add(world, f"place-{n}")
    login(client, alice)
    rows = rows_of(client.get(reverse("studio:entries", args=[world.pk])).content.decode())
    ups = ["disabled>↑" in row for row in rows]
    downs = ["disabled>↓" in row for row in rows]
    assert ups == [True] + [False] * (len(rows) - 1)
    assert downs == [False] * (len(rows) - 1) + [True]


def test_a_row_without_a_name_shows_its_key_and_tags_as_coloured_badges(client, alice, world):
    World.objects.filter(pk=world.pk).update(custom_tag_colors={"npc": "bg-red-500"})
    add(world, "old-mill", tags=["npc", "place"], keywords=["mill", "wheel"])
    login(client, alice)
    html = client.get(reverse("studio:entries", args=[world.pk])).content.decode()
    row = next(r for r in rows_of(html) if "old-mill" in r)
    assert 'hx-push-url="true">old-mill</a>' in row
    assert '<span class="meta">chat-history · mill, wheel</span>' in row
    assert '<span class="badge tag-color-red">npc</span>' in row
    assert '<span class="badge tag-color-gray">place</span>' in row


def test_creator_text_in_a_row_is_escaped(client, alice, world):
    add(world, "trap", name='<img src=x onerror="alert(1)">', tags=["<b>t</b>"])
    login(client, alice)
    html = client.get(reverse("studio:entries", args=[world.pk])).content.decode()
    row = next(r for r in rows_of(html) if "trap" in r)
    assert "<img" not in row and "<b>" not in row
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in row


def test_a_list_reverses_its_urls_once_not_once_per_row(client, alice, world, monkeypatch):
    for n in range(40):
        add(world, f"place-{n}")
    calls: list[str] = []
    real = item_rows.reverse

    def counting(name: str, *args: object, **kwargs: object) -> str:
        calls.append(name)
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(item_rows, "reverse", counting)
    login(client, alice)
    response = client.get(reverse("studio:entries", args=[world.pk]), **hx("item-list"))
    assert len(rows_of(response.content.decode())) == world.entries.count()
    assert sorted(calls) == ["studio:entries_edit", "studio:entries_move"]


def test_section_labels_follow_the_language():
    with translation.override("es"):
        spanish = label_text("chat-history")
    with translation.override("en"):
        english = label_text("chat-history")
    assert english == "chat-history"  # English shows the engine's own ids
    assert spanish == "historial del chat"
    assert label_text("not-an-engine-id") == "not-an-engine-id"
