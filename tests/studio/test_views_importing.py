"""Import a Fabula world, a character card (PNG/JSON) or World Info as a new draft."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from studio.models import World
from tests.factories import world_data
from tests.studio.view_helpers import errors_of, hx, is_partial, login
from tests.support.corpus import corpus_dir, fixture_bytes, requires_corpus

pytestmark = pytest.mark.django_db


def upload(name: str, data: bytes, kind: str = "application/json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, kind)


def corpus(name: str) -> SimpleUploadedFile:
    return upload(name, (corpus_dir() / name).read_bytes(), "image/png")


@requires_corpus
def test_seraphinas_card_becomes_a_draft_with_her_lorebook(client, alice):
    response = login(client, alice).post(
        reverse("studio:import"), {"file": corpus("default_Seraphina.png")}
    )
    world = World.objects.get(owner=alice)
    assert response["Location"] == reverse("studio:import") + f"?world={world.pk}"
    assert world.name == "Seraphina"
    lore = world.entries.filter(section="chat-history").values_list("key", flat=True)
    assert sorted(lore) == ["eldoria", "glade", "power", "shadowfang"]
    page = client.get(response["Location"]).content.decode()
    assert "Imported “Seraphina”." in page
    assert "lorebook → 4 entries (4 keyword-triggered, 0 always sent)" in page  # the report
    assert "shadowfang" in client.get(reverse("studio:entries", args=[world.pk])).content.decode()


def test_our_v3_card_becomes_a_draft_with_its_lorebook(client, alice):
    card = upload("ferryman_v3.png", fixture_bytes("ferryman_v3.png"), "image/png")
    response = login(client, alice).post(reverse("studio:import"), {"file": card})
    world = World.objects.get(owner=alice)
    assert response["Location"] == reverse("studio:import") + f"?world={world.pk}"
    assert world.name == "Orrin the Ferryman"
    lore = world.entries.filter(key__startswith="the-").values_list("key", flat=True)
    assert sorted(lore) == ["the-ferry", "the-lantern", "the-toll"]


def test_our_world_info_file_imports_its_entries(client, alice):
    data = fixture_bytes("the_wend_worldinfo.json")
    login(client, alice).post(reverse("studio:import"), {"file": upload("wend.json", data)})
    world = World.objects.get(owner=alice)
    assert world.entries.count() == 3


@requires_corpus
def test_a_world_info_file_imports_its_entries(client, alice):
    login(client, alice).post(reverse("studio:import"), {"file": corpus("Eldoria.json")})
    world = World.objects.get(owner=alice)
    assert world.entries.count() == 4


def test_a_fabula_world_json_round_trips(client, alice):
    data = json.dumps(world_data(id="imported-id")).encode()
    login(client, alice).post(reverse("studio:import"), {"file": upload("salt.json", data)})
    world = World.objects.get(owner=alice)
    assert (world.uid, world.name) == ("imported-id", "The Salt Road")


def test_an_invalid_world_lists_its_field_paths_and_creates_nothing(client, alice):
    bad = world_data(entries=[{"id": "Bad Id", "section": "nowhere"}])
    response = login(client, alice).post(
        reverse("studio:import"), {"file": upload("bad.json", json.dumps(bad).encode())}
    )
    assert errors_of(response) == [
        "entries[0].id: must be kebab-case (lowercase letters, digits and single hyphens)",
        "entries[0].section: must be one of system-presets, examples, chat-history, post-history",
        "Fabula world is invalid: entries[0].id: must be kebab-case (lowercase letters, digits "
        "and single hyphens) (and 1 more)",
    ]
    assert not World.objects.exists()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("card.png", b"not a png at all", "not a PNG file"),
        ("notes.txt", b"\xff\xfe\x00garbage", "file is neither a PNG character card nor JSON text"),
        (
            "thing.json",
            b'{"hello": "world"}',
            "JSON is not a character card, a SillyTavern World Info file or a Fabula world",
        ),
    ],
)
def test_a_bad_file_gets_a_clear_message_and_nothing_is_created(client, alice, name, data, message):
    response = login(client, alice).post(reverse("studio:import"), {"file": upload(name, data)})
    assert response.status_code == 200
    assert errors_of(response) == [message]
    assert not World.objects.exists()


def test_import_checklist(client, alice):
    url = reverse("studio:import")
    assert client.get(url).status_code == 302
    login(client, alice)
    assert client.put(url).status_code == 405
    response = client.post(url, {}, **hx())
    assert is_partial(response)
    assert errors_of(response) == ["This field is required."]


def test_the_import_report_shows_once_with_a_link_to_the_world(client, alice):
    card = upload("ferryman_v2.png", fixture_bytes("ferryman_v2.png"), "image/png")
    response = login(client, alice).post(reverse("studio:import"), {"file": card})
    world = World.objects.get(owner=alice)

    page = client.get(response["Location"]).content.decode()
    again = client.get(response["Location"]).content.decode()

    assert "What the import of “Orrin the Ferryman” did" in page
    assert f'href="{reverse("studio:entries", args=[world.pk])}"' in page
    assert "lorebook → 3 entries (2 keyword-triggered, 1 always sent)" in page
    assert "the card&#x27;s picture → the world&#x27;s portrait" in page
    assert world.portrait
    assert "Nothing needs your attention." in page
    assert "What the import" not in again


def test_the_report_folds_a_problem_of_many_entries_into_one_line(client, alice):
    entries = {str(i): {"key": [f"/k{i}/"], "comment": f"E{i}", "content": "x"} for i in range(5)}
    data = json.dumps({"entries": entries}).encode()

    response = login(client, alice).post(
        reverse("studio:import"), {"file": upload("regex.json", data)}, follow=True
    )

    html = response.content.decode()
    assert "Needs your attention" in html
    assert html.count("use regex keys") == 1
    assert "5 entries use regex keys: Fabula matches them as plain text" in html
