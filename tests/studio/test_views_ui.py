"""The custom UI's files (rootComponent): create, edit, rename, delete, order, entry file."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studio.worlds import save_root_file
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db

APP = "export default function App() { return <Chat />; }"


def paths(world) -> list[str]:
    return list(world.root_files.values_list("path", flat=True))


def test_first_file_turns_the_custom_ui_on(client, alice, world):
    login(client, alice)
    assert b"No custom UI" in client.get(reverse("studio:ui", args=[world.pk])).content
    response = client.post(
        reverse("studio:ui_file_new", args=[world.pk]), {"path": "index.tsx", "source": APP}
    )
    world.refresh_from_db()
    file = world.root_files.get()
    assert response["Location"] == reverse("studio:ui_file", args=[world.pk, file.pk])
    assert world.has_root_component
    assert file.source == APP


def test_edit_renames_and_rewrites_a_file(client, alice, world):
    save_root_file(world, "index.tsx", APP)
    file = save_root_file(world, "bubble.tsx", "old")
    response = login(client, alice).post(
        reverse("studio:ui_file", args=[world.pk, file.pk]),
        {"path": "parts/bubble.tsx", "source": "new"},
        **hx(),
    )
    file.refresh_from_db()
    assert is_partial(response)
    assert (file.path, file.source) == ("parts/bubble.tsx", "new")


def test_bad_path_is_refused_on_the_path_field(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:ui_file_new", args=[world.pk]), {"path": "../evil.tsx", "source": ""}
    )
    assert errors_of(response) == ["'../evil.tsx' is not a relative file path"]
    assert paths(world) == []


def test_duplicate_path_is_refused(client, alice, world):
    save_root_file(world, "index.tsx", APP)
    response = login(client, alice).post(
        reverse("studio:ui_file_new", args=[world.pk]), {"path": "index.tsx", "source": ""}
    )
    assert errors_of(response) == ["A file with this path already exists."]


def test_entry_file_cannot_be_deleted_while_others_remain(client, alice, world):
    index = save_root_file(world, "index.tsx", APP)
    other = save_root_file(world, "b.tsx", "")
    login(client, alice)
    response = client.post(reverse("studio:ui_file_delete", args=[world.pk, index.pk]), **hx())
    assert "is the entry file; choose another entry file first" in response.content.decode()
    client.post(reverse("studio:ui_file_delete", args=[world.pk, other.pk]))
    assert paths(world) == ["index.tsx"]


def test_meta_sets_the_entry_file_and_reports_engine_errors(client, alice, world):
    save_root_file(world, "index.tsx", APP)
    login(client, alice)
    url = reverse("studio:ui_meta", args=[world.pk])
    response = client.post(url, {"name": "Deck", "entry_file": "missing.tsx"})
    assert errors_of(response) == ["$: entryFile 'missing.tsx' is not among files"]
    client.post(url, {"name": "Deck", "entry_file": "index.tsx"})
    world.refresh_from_db()
    assert world.root_component_name == "Deck"


def test_move_and_reorder_files(client, alice, world):
    a = save_root_file(world, "index.tsx", APP)
    b = save_root_file(world, "b.tsx", "")
    login(client, alice)
    client.post(reverse("studio:ui_file_move", args=[world.pk, b.pk]), {"direction": "up"})
    assert paths(world) == ["b.tsx", "index.tsx"]
    response = client.post(
        reverse("studio:ui_file_reorder", args=[world.pk]), {"order": [a.pk, b.pk]}, **hx()
    )
    assert is_partial(response)
    assert paths(world) == ["index.tsx", "b.tsx"]


def test_remove_ui_deletes_every_file(client, alice, world):
    save_root_file(world, "index.tsx", APP)
    login(client, alice).post(reverse("studio:ui_remove", args=[world.pk]))
    world.refresh_from_db()
    assert not world.has_root_component
    assert paths(world) == []


def test_ui_checklist(client, alice, bob, charlie, world):
    file = save_root_file(world, "index.tsx", APP)
    url = reverse("studio:ui", args=[world.pk])
    file_url = reverse("studio:ui_file", args=[world.pk, file.pk])
    assert client.get(url).status_code == 302
    assert login(client, charlie).get(file_url).status_code == 404
    login(client, alice)
    assert client.post(url).status_code == 405
    assert client.get(reverse("studio:ui_file_delete", args=[world.pk, file.pk])).status_code == 405
    assert is_partial(client.get(url, **hx()))
    publish(world)
    assert login(client, bob).post(file_url, {"path": "x.tsx"}).status_code == 403


def test_duplicate_copies_a_file_next_to_itself(client, alice, world):
    file = save_root_file(world, "index.tsx", APP)
    login(client, alice)
    url = reverse("studio:ui_file_duplicate", args=[world.pk, file.pk])
    response = client.post(url)
    copy = world.root_files.get(path="index-copy.tsx")
    assert response["Location"] == reverse("studio:ui_file", args=[world.pk, copy.pk])
    assert copy.source == APP
    client.post(url, **hx())
    assert paths(world) == ["index.tsx", "index-copy.tsx", "index-copy-2.tsx"]
    assert client.get(url).status_code == 405
