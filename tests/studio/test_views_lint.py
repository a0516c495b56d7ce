"""The linter in the studio: the checks panel, its links, and publishing blocked by errors."""

from __future__ import annotations

import pytest
from django.urls import reverse

from engine.lint import Finding
from studio.linting import lint_draft, lint_items
from studio.models import Entry, Rule, WorldVersion
from studio.worlds import create_item
from tests.factories import make_world
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


def broken_world(owner):
    """Alice's draft with an empty greeting and a rule that toggles a missing entry."""
    world = make_world(owner)
    create_item(world, Entry, {"id": "hello", "role": "greeting", "content": ""})
    create_item(
        world,
        Rule,
        {
            "id": "reveal",
            "trigger": {"type": "every-turn"},
            "actions": [{"type": "toggle-entry", "entryId": "secret"}],
        },
    )
    return world


def test_the_panel_lists_each_finding_linked_to_its_field(client, alice):
    world = broken_world(alice)
    greeting = world.entries.get(key="hello")
    rule = world.rules.get(key="reveal")

    response = login(client, alice).get(reverse("studio:lint", args=[world.pk]), **hx())

    html = response.content.decode()
    assert is_partial(response)
    assert "2 errors · 0 warnings" in html
    assert "Publishing is blocked until the errors are fixed." in html
    entry_url = reverse("studio:entries_edit", args=[world.pk, greeting.pk])
    rule_url = reverse("studio:rules_edit", args=[world.pk, rule.pk])
    assert f'<a href="{entry_url}#id_content"><code>entries[1].content</code></a>' in html
    assert f'<a href="{rule_url}#id_actions"><code>rules[1].actions[0].entryId</code></a>' in html
    assert "the greeting is empty" in html
    assert "unknown entry &#x27;secret&#x27;" in html


def test_a_clean_world_says_so(client, alice, world):
    response = login(client, alice).get(reverse("studio:lint", args=[world.pk]), **hx())

    assert "No problems found." in response.content.decode()


def test_without_htmx_the_checks_are_a_page_of_the_editor(client, alice):
    world = broken_world(alice)

    response = login(client, alice).get(reverse("studio:lint", args=[world.pk]))

    assert not is_partial(response)
    assert response.content.decode().count('id="lint-panel"') == 1
    assert "the greeting is empty" in response.content.decode()


def test_every_editor_page_loads_the_panel_and_refreshes_it_on_save(client, alice, world):
    response = login(client, alice).get(reverse("studio:entries", args=[world.pk]))

    html = response.content.decode()
    url = reverse("studio:lint", args=[world.pk])
    assert f'hx-get="{url}" hx-trigger="load, worldChanged from:body"' in html


def test_the_panel_checklist(client, alice, bob, charlie, world):
    url = reverse("studio:lint", args=[world.pk])
    assert client.get(url).status_code == 302
    assert login(client, charlie).get(url).status_code == 404
    publish(world)
    assert login(client, bob).get(url).status_code == 403
    assert login(client, alice).post(url).status_code == 405


def test_the_panel_queries_are_bounded(client, alice, django_assert_max_num_queries):
    world = broken_world(alice)
    login(client, alice)

    with django_assert_max_num_queries(20):
        client.get(reverse("studio:lint", args=[world.pk]), **hx())


def test_links_of_world_level_fields(world):
    findings = [
        Finding("warning", "settings.lorebookScanDepth", "entry-never-fires", "x"),
        Finding("warning", "name", "invalid", "x"),
        Finding("error", "gameMaster.locations[0].exits[0].to", "game-master", "y"),
        Finding("error", "entries[9].content", "empty-greeting", "gone since"),
    ]

    items = lint_items(world, findings)

    assert [(item.url, item.item) for item in items] == [
        (reverse("studio:settings", args=[world.pk]) + "#id_lorebook_scan_depth", ""),
        (reverse("studio:world", args=[world.pk]) + "#id_name", ""),
        (None, ""),
        (None, ""),
    ]


# --- publishing ----------------------------------------------------------------------------


def test_publishing_is_refused_with_the_errors_listed(client, alice):
    world = broken_world(alice)

    response = login(client, alice).post(reverse("studio:publish", args=[world.pk]), {})

    assert errors_of(response) == [
        "entries[1].content: the greeting is empty",
        "rules[1].actions[0].entryId: unknown entry 'secret'",
    ]
    assert not WorldVersion.objects.exists()


def test_warnings_do_not_block_publishing(client, alice, world):
    create_item(world, Entry, {"id": "old", "content": "x", "enabled": False})
    assert [f.code for f in lint_draft(world)] == ["entry-never-fires"]

    response = login(client, alice).post(reverse("studio:publish", args=[world.pk]), {})

    assert response.status_code == 302
    assert world.versions.count() == 1


def test_the_api_refuses_to_publish_with_422_and_the_errors(client, alice):
    world = broken_world(alice)

    response = login(client, alice).post(f"/api/worlds/{world.pk}/publish")

    assert response.status_code == 422
    assert response.json() == {
        "detail": "invalid world",
        "errors": [
            "entries[1].content: the greeting is empty",
            "rules[1].actions[0].entryId: unknown entry 'secret'",
        ],
    }
    assert not WorldVersion.objects.exists()
