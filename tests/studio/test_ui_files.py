"""The custom-UI editor's file tree and preview (issue 15, "Studio"): views, paths, limits."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.urls import reverse

from play.csp import sandbox_url_prefix
from studio.uifiles import MAX_FILE_CHARS
from studio.worlds import save_root_file
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db

APP = "export default function App(): JSX.Element { return <Chat />; }"


def paths(world) -> list[str]:
    return sorted(world.root_files.values_list("path", flat=True))


def url(name: str, world, *args) -> str:
    return reverse(f"studio:{name}", args=[world.pk, *args])


def page_data(response, element_id: str):
    """The JSON the page keeps in ``<div id=… data-json=…>`` for static/js/studio_ui.js."""
    html = response.content.decode()
    match = re.search(rf'<div id="{element_id}" hidden data-json="([^"]*)">', html)
    assert match, f"no {element_id} in the page"
    return json.loads(unescape(match.group(1)))


def json_script(response, element_id: str):
    html = response.content.decode()
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html)
    assert match, f"no {element_id} in the page"
    return json.loads(match.group(1))


def test_the_page_lists_the_tree_and_opens_the_entry_file_in_a_plain_textarea(client, alice, world):
    save_root_file(world, "index.tsx", APP)
    save_root_file(world, "parts/bubble.tsx", "export default () => null;")
    response = login(client, alice).get(url("ui", world))
    html = response.content.decode()
    assert 'data-path="parts/bubble.tsx"' in html
    assert '<li class="ui-dir depth-0"><span aria-hidden="true">▾</span> parts/</li>' in html
    assert re.search(r"<textarea[^>]*data-code-editor[^>]*>\s*export default function App", html)
    assert page_data(response, "ui-sources") == {
        "index.tsx": APP,
        "parts/bubble.tsx": "export default () => null;",
    }
    assert reverse("studio_ui_preview", args=[world.pk]) in html


def test_the_preview_gets_the_variables_defaults_and_a_sample_chat(client, alice, world):
    save_root_file(world, "index.tsx", APP)
    sample = page_data(login(client, alice).get(url("ui", world)), "ui-sample-state")
    assert sample["variables"] == {"health": 100}
    assert [m["role"] for m in sample["messages"]] == ["user", "assistant"]
    assert sample["capabilities"]["canSendMessage"] is False


def test_what_the_sandbox_would_leave_out_is_shown_next_to_the_file(
    client, alice, world, monkeypatch
):
    monkeypatch.setattr("play.customui.MAX_FILE_CHARS", 10)
    save_root_file(world, "index.tsx", APP)
    html = login(client, alice).get(url("ui", world)).content.decode()
    assert re.search(
        r'data-error-for="index.tsx" role="status">index.tsx: larger than 10 characters', html
    )


def test_add_creates_a_file_and_opens_it(client, alice, world):
    response = login(client, alice).post(url("ui_file_new", world), {"path": "index.tsx"}, **hx())
    file = world.root_files.get()
    assert is_partial(response)
    assert response["HX-Push-Url"] == url("ui_file", world, file.pk)
    assert "worldChanged" in response["HX-Trigger"]
    world.refresh_from_db()
    assert (file.path, world.root_component_entry_file) == ("index.tsx", "index.tsx")


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../evil.tsx", "'../evil.tsx' is not a relative file path"),
        ("parts/../../evil.tsx", "'parts/../../evil.tsx' is not a relative file path"),
        ("/etc/app.tsx", "'/etc/app.tsx' is not a relative file path"),
        ("parts//app.tsx", "'parts//app.tsx' is not a relative file path"),
        ("parts\\app.tsx", "'parts\\app.tsx' is not a relative file path"),
        ("notes.md", "'notes.md' must end in .tsx, .ts, .jsx, .js or .css"),
        ("data.json", "'data.json' must end in .tsx, .ts, .jsx, .js or .css"),
        ("index", "'index' must end in .tsx, .ts, .jsx, .js or .css"),
    ],
)
def test_bad_paths_are_refused_by_name(client, alice, world, path, message):
    response = login(client, alice).post(url("ui_file_new", world), {"path": path})
    assert errors_of(response) == [message]
    assert paths(world) == []


def test_rename_moves_the_file_and_the_entry_follows(client, alice, world):
    file = save_root_file(world, "index.tsx", APP)
    response = login(client, alice).post(
        url("ui_file_rename", world, file.pk), {"path": "app/main.tsx"}, **hx()
    )
    assert "File renamed." in response.content.decode()
    world.refresh_from_db()
    assert paths(world) == ["app/main.tsx"]
    assert world.root_component_entry_file == "app/main.tsx"


def test_rename_refuses_a_bad_path_or_a_taken_one_by_name(client, alice, world):
    file = save_root_file(world, "index.tsx", APP)
    save_root_file(world, "other.tsx", "")
    login(client, alice)
    bad = client.post(url("ui_file_rename", world, file.pk), {"path": "../up.tsx"}, **hx())
    assert "&#x27;../up.tsx&#x27; is not a relative file path" in bad.content.decode()
    taken = client.post(url("ui_file_rename", world, file.pk), {"path": "other.tsx"}, **hx())
    assert "&#x27;other.tsx&#x27; already exists" in taken.content.decode()
    kind = client.post(url("ui_file_rename", world, file.pk), {"path": "index.py"})
    assert kind.status_code == 302
    assert paths(world) == ["index.tsx", "other.tsx"]


def test_save_rewrites_the_open_file(client, alice, world):
    file = save_root_file(world, "index.tsx", "old")
    response = login(client, alice).post(
        url("ui_file", world, file.pk), {"path": "index.tsx", "source": APP}, **hx()
    )
    file.refresh_from_db()
    assert is_partial(response)
    assert file.source == APP
    assert "worldChanged" in response["HX-Trigger"]
    html = response.content.decode()
    assert re.search(r"<textarea[^>]*>\s*export default function App\(\): JSX", html)


def test_delete_removes_a_file(client, alice, world):
    save_root_file(world, "index.tsx", APP)
    other = save_root_file(world, "style.css", ".x { color: red }")
    login(client, alice).post(url("ui_file_delete", world, other.pk), **hx())
    assert paths(world) == ["index.tsx"]


def test_choose_the_entry_file(client, alice, world):
    save_root_file(world, "index.tsx", APP)
    main = save_root_file(world, "main.tsx", APP)
    response = login(client, alice).post(url("ui_file_entry", world, main.pk))
    world.refresh_from_db()
    assert response["Location"] == url("ui_file", world, main.pk)
    assert world.root_component_entry_file == "main.tsx"


def test_a_file_past_the_size_limit_is_refused(client, alice, world):
    file = save_root_file(world, "index.tsx", APP)
    big = "x" * (MAX_FILE_CHARS + 1)
    login(client, alice)
    response = client.post(url("ui_file", world, file.pk), {"path": "index.tsx", "source": big})
    assert errors_of(response) == [f"A file may hold at most {MAX_FILE_CHARS} characters."]
    file.refresh_from_db()
    assert file.source == APP


def test_no_file_past_the_file_limit(client, alice, world, monkeypatch):
    monkeypatch.setattr("studio.uifiles.MAX_FILES", 2)
    save_root_file(world, "index.tsx", APP)
    save_root_file(world, "b.tsx", "")
    response = login(client, alice).post(url("ui_file_new", world), {"path": "c.tsx"})
    assert errors_of(response) == ["A custom UI may have at most 2 files."]
    assert paths(world) == ["b.tsx", "index.tsx"]


def test_the_preview_is_the_sandbox_document_of_the_draft(client, alice, world):
    save_root_file(world, "index.tsx", APP)
    preview = reverse("studio_ui_preview", args=[world.pk])
    assert preview.startswith(sandbox_url_prefix())  # the only frames a play page allows
    response = login(client, alice).get(preview)
    policy = response["Content-Security-Policy"]
    for directive in ("default-src 'none'", "connect-src 'none'", "sandbox allow-scripts"):
        assert directive in policy
    assert "'unsafe-eval'" not in policy
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    data = json_script(response, "fabula-ui-files")
    assert data["files"] == {"index.tsx": APP}
    assert data["entry"] == "index.tsx"


def test_the_live_preview_shows_unsaved_files_and_saves_nothing(client, alice, world):
    save_root_file(world, "index.tsx", APP)
    typed = {"index.tsx": "export default () => <b>typed</b>;", "x.css": "b { color: red }"}
    preview = reverse("studio_ui_preview", args=[world.pk])
    response = login(client, alice).post(
        preview, {"files": json.dumps(typed), "entry": "index.tsx"}
    )
    assert "sandbox allow-scripts" in response["Content-Security-Policy"]
    assert json_script(response, "fabula-ui-files")["files"] == typed
    assert paths(world) == ["index.tsx"]
    assert world.root_files.get().source == APP


@pytest.mark.parametrize(
    "files",
    [
        "not json",
        json.dumps(["index.tsx"]),
        json.dumps({"../index.tsx": ""}),
        json.dumps({"index.tsx": "x" * (MAX_FILE_CHARS + 1)}),
        json.dumps({"other.tsx": ""}),  # the entry file is missing
    ],
)
def test_the_live_preview_refuses_what_the_editor_would(client, alice, world, files):
    preview = reverse("studio_ui_preview", args=[world.pk])
    response = login(client, alice).post(preview, {"files": files, "entry": "index.tsx"})
    assert response.status_code == 400


def test_no_preview_without_files(client, alice, world):
    login(client, alice)
    assert client.get(reverse("studio_ui_preview", args=[world.pk])).status_code == 404


def test_another_user_gets_404_on_every_view(client, alice, charlie, world):
    file = save_root_file(world, "index.tsx", APP)
    login(client, charlie)
    gets = [url("ui", world), url("ui_file", world, file.pk)]
    gets.append(reverse("studio_ui_preview", args=[world.pk]))
    live = {"files": json.dumps({"index.tsx": APP}), "entry": "index.tsx"}
    assert client.post(reverse("studio_ui_preview", args=[world.pk]), live).status_code == 404
    for address in gets:
        assert client.get(address).status_code == 404, address
    posts = {
        url("ui_file_new", world): {"path": "x.tsx"},
        url("ui_file", world, file.pk): {"path": "index.tsx", "source": "stolen"},
        url("ui_file_rename", world, file.pk): {"path": "x.tsx"},
        url("ui_file_entry", world, file.pk): {},
        url("ui_file_delete", world, file.pk): {},
    }
    for address, data in posts.items():
        assert client.post(address, data).status_code == 404, address
    file.refresh_from_db()
    assert (paths(world), file.source) == (["index.tsx"], APP)


def test_others_cannot_change_or_preview_a_published_worlds_draft(client, alice, bob, world):
    file = save_root_file(world, "index.tsx", APP)
    publish(world)
    login(client, bob)
    assert client.get(reverse("studio_ui_preview", args=[world.pk])).status_code == 403
    rename = client.post(url("ui_file_rename", world, file.pk), {"path": "x.tsx"})
    assert rename.status_code == 403
    assert paths(world) == ["index.tsx"]


def test_file_views_take_post_only(client, alice, world):
    file = save_root_file(world, "index.tsx", APP)
    login(client, alice)
    assert client.get(url("ui_file_rename", world, file.pk)).status_code == 405
    assert client.get(url("ui_file_entry", world, file.pk)).status_code == 405
    assert client.put(reverse("studio_ui_preview", args=[world.pk])).status_code == 405
