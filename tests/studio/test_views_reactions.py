"""The reaction editor's structured form: an event pattern, condition rows, effect rows, raw JSON.

The generic list/edit checklist of reactions lives in test_views_items.py.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from studio.models import Reaction, Variable, World
from studio.worlds import create_item
from tests.studio.test_views_rules import rows
from tests.studio.view_helpers import errors_of, hx, is_partial, login

pytestmark = pytest.mark.django_db

BLANK = {"type": "set", "operation": "set"}


def reaction_post(**overrides: Any) -> dict[str, str]:
    data = {
        "editor": "form",
        "id": "enter-forest",
        "name": "Enter the forest",
        "enabled": "on",
        "condition_logic": "all",
        "when_event_type": "spatial:zone-enter",
        "when_fields": "zone = forest\nlevel = 2",
        "when": '{"eventType": "turn:complete"}',  # the raw side, not read
        "conditions": "[]",
        "then": "[]",
        **rows("cond", {"variable_id": "health", "operator": "lt", "value": "30"}),
        **rows(
            "eff",
            {**BLANK, "path": "weather", "value": "foggy"},
            {**BLANK, "path": "@audio.ambient", "value": "wind"},
            {
                **BLANK,
                "type": "emit",
                "event_type": "ambience:changed",
                "event_fields": "loud = true",
            },
            BLANK,
            {**BLANK, "path": "health", "value": "1", "DELETE": "on"},
        ),
    }
    data.update(overrides)
    return data


@pytest.fixture
def weather(world: World) -> Variable:
    return create_item(
        world, Variable, {"id": "weather", "type": "string", "defaultValue": "clear"}
    )


def new_url(world: World) -> str:
    return reverse("studio:reactions_new", args=[world.pk])


def test_rows_save_the_reaction_json_they_show(client, alice, world, weather):
    response = login(client, alice).post(new_url(world), reaction_post())

    reaction = Reaction.objects.get(world=world, key="enter-forest")
    assert response.status_code == 302
    assert reaction.when == {"eventType": "spatial:zone-enter", "zone": "forest", "level": 2}
    assert reaction.conditions == [{"variableId": "health", "operator": "lt", "value": 30}]
    assert reaction.then == [
        {"type": "set", "path": "weather", "value": "foggy", "operation": "set"},
        {"type": "set", "path": "@audio.ambient", "value": "wind", "operation": "set"},
        {"type": "emit", "event": {"type": "ambience:changed", "loud": True}},
    ]


def test_the_edit_page_shows_the_reaction_as_rows(client, alice, world, weather):
    reaction = create_item(
        world,
        Reaction,
        {
            "id": "fog",
            "when": {"eventType": "state:changed", "variableId": "weather"},
            "then": [{"type": "emit", "event": {"type": "fog:rolls-in", "thick": True}}],
        },
    )
    url = reverse("studio:reactions_edit", args=[world.pk, reaction.pk])
    html = unescape(login(client, alice).get(url).content.decode())

    assert 'value="form" id="id_editor_0" checked' in html
    assert 'name="when_event_type" value="state:changed"' in html
    assert "variableId = weather</textarea>" in html
    assert '<option value="emit" selected>' in html
    assert 'name="eff-0-event_type" value="fog:rolls-in"' in html
    assert "thick = true</textarea>" in html
    assert '<option value="@prompt.entry.narrator">' in html  # paths the world offers


def test_bad_rows_show_their_errors_on_their_fields(client, alice, world, weather):
    post = reaction_post(when_fields="zone forest")
    post |= {"eff-0-path": "health", "eff-0-value": "lots", "eff-2-event_type": ""}
    response = login(client, alice).post(new_url(world), post, **hx())

    assert is_partial(response)
    assert errors_of(response) == [
        "Line 1: write it as name = value.",
        "then[0].value: enter a number",
    ]
    assert not Reaction.objects.filter(world=world, key="enter-forest").exists()
    response = client.post(new_url(world), reaction_post(**{"eff-2-event_type": ""}))
    assert errors_of(response) == ["then[2]: event.type must be a non-empty string"]
    row = re.search(r'<li class="logic-row typed".*?</li>', _third_row(response), re.S)
    assert row and "then[2]: event.type must be a non-empty string" in row.group(0)


def _third_row(response: Any) -> str:
    html = response.content.decode()
    return html[html.index('name="eff-1-type"') :]


def test_the_raw_json_side_saves_when_picked(client, alice, world):
    post = reaction_post(
        editor="json",
        when='{"eventType": "action", "actionId": "ring-bell"}',
        then='[{"type": "set", "path": "@ui.notification", "value": "Dong."}]',
    )
    login(client, alice).post(new_url(world), post)

    reaction = Reaction.objects.get(world=world, key="enter-forest")
    assert reaction.when == {"eventType": "action", "actionId": "ring-bell"}
    assert reaction.conditions == []
    assert reaction.then == [
        {"type": "set", "path": "@ui.notification", "value": "Dong.", "operation": "set"}
    ]


def test_switching_sides_carries_what_was_typed(client, alice, world, weather):
    url = reverse("studio:reactions_editor", args=[world.pk])
    login(client, alice)
    html = unescape(client.post(url, reaction_post(editor="json"), **hx()).content.decode())
    assert '"eventType": "spatial:zone-enter",\n  "zone": "forest",\n  "level": 2' in html

    back = reaction_post(editor="form", then='[{"type": "set", "path": "weather", "value": "dry"}]')
    html = client.post(url, back, **hx()).content.decode()
    assert 'name="eff-0-path" value="weather"' in html and 'name="eff-0-value" value="dry"' in html
    assert 'name="when_event_type" value="turn:complete"' in html
