"""The checklist of CONVENTIONS.md for every other world list (folders, variables, rules,
reactions, audio tracks, conditional BGM, components): one table, the same generic views."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from django.urls import reverse

from studio.models import (
    AudioTrack,
    Component,
    ConditionalBGM,
    EntryFolder,
    Reaction,
    Rule,
    Variable,
    World,
    WorldItem,
)
from studio.worlds import create_item
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


@dataclass
class Case:
    slug: str
    model: type[WorldItem]
    seed: dict[str, Any]  # JSON of an existing item, created through the service
    post: dict[str, str]  # a valid form post (creates key ``post["id"]``)
    bad: dict[str, str]  # overrides that make the post invalid
    errors: list[str]  # exactly the messages the form then shows
    queries: int  # queries of the list page, whatever the number of items
    extra: dict[str, Any] = field(default_factory=dict)  # checked on the created row

    def __str__(self) -> str:
        return self.slug


CASES = [
    Case(
        "folders",
        EntryFolder,
        {"id": "places", "name": "Places"},
        {"id": "rooms", "name": "Rooms", "parent_id": "places"},
        {"name": ""},
        ["Name is required."],
        queries=6,
        extra={"parent_id": "places"},
    ),
    Case(
        "variables",
        Variable,
        {"id": "gold", "name": "Gold", "type": "number", "defaultValue": 5},
        {
            "id": "mana",
            "name": "Mana",
            "type": "number",
            "default_value": "10",
            "min": "0",
            "max": "50",
            "description": "",
            "behavior_rules": "Spent on spells.",
        },
        {"id": "audio"},
        ["'audio' is a reserved word (audio, char, date, time, user)"],
        queries=5,
        extra={"default_value": 10, "max": 50.0},
    ),
    Case(
        "rules",
        Rule,
        {"id": "tick", "trigger": {"type": "every-turn"}},
        {
            "id": "greet",
            "name": "Greet",
            "description": "",
            "priority": "5",
            "enabled": "on",
            "cooldown_turns": "",
            "max_fire_count": "1",
            "condition_logic": "all",
            "trigger": '{"type": "session-start"}',
            "conditions": "",
            "actions": '[{"type": "notify-player", "message": "Hi"}]',
        },
        {
            "trigger": '{"type": "variable-crossed", "direction": "drops-below", "threshold": 5}',
            "actions": '[{"type": "modify-variable"}]',
        },
        ["trigger.variableId: is required", "actions[0].variableId: is required"],
        queries=6,  # + the pickers' one UNION query (studio.forms.rows.load_pickers)
        extra={"trigger": {"type": "session-start"}, "max_fire_count": 1, "priority": 5},
    ),
    Case(
        "reactions",
        Reaction,
        {"id": "fog", "when": {"eventType": "turn:complete"}},
        {
            "id": "storm",
            "name": "Storm",
            "enabled": "on",
            "condition_logic": "all",
            "when": '{"eventType": "message:user"}',
            "conditions": "",
            "then": '[{"type": "set", "path": "@audio.ambient", "value": "rain"}]',
        },
        {"when": '{"zone": "forest"}', "then": '[{"type": "emit", "event": {}}]'},
        ["when.eventType: is required", "then[0]: event.type must be a non-empty string"],
        queries=6,  # + the pickers' one UNION query (studio.forms.rows.load_pickers)
        extra={"when": {"eventType": "message:user"}},
    ),
    Case(
        "audio",
        AudioTrack,
        {"id": "theme", "name": "Theme", "url": "https://example.com/theme.ogg"},
        {
            "id": "rain",
            "name": "Rain",
            "type": "ambient",
            "url": "https://example.com/rain.ogg",
            "volume": "0.5",
            "loop": "on",
            "fade_in": "2",
            "fade_out": "",
            "max_duration": "",
        },
        {"volume": "2"},
        ["input should be less than or equal to 1"],
        queries=5,
        extra={"volume": 0.5, "loop": True, "fade_in": 2.0},
    ),
    Case(
        "bgm",
        ConditionalBGM,
        {"id": "calm", "targetTrackId": "theme"},
        {
            "id": "combat",
            "name": "Combat",
            "target_track_id": "theme",
            "trigger_type": "variable",
            "conditions": '[{"variableId": "health", "operator": "lt", "value": 20}]',
            "condition_logic": "all",
            "keywords": "",
            "at_turn": "",
            "every_n_turns": "",
            "priority": "10",
            "fade_in_duration": "1",
            "fade_out_duration": "",
            "stop_previous_bgm": "on",
            "fallback": "previous",
        },
        {"fade_in_duration": "-1"},
        ["input should be greater than or equal to 0"],
        queries=6,
        extra={"target_track_id": "theme", "fallback": "previous", "stop_previous_bgm": True},
    ),
    Case(
        "components",
        Component,
        {"id": "clock", "type": "text"},
        {
            "id": "hp-bar",
            "type": "status-bar",
            "name": "HP",
            "variable_id": "health",
            "props": '{"color": "red"}',
        },
        {"props": "[1, 2]"},
        ["Must be a JSON object."],
        queries=5,
        extra={"variable_id": "health", "extra": {"color": "red"}},
    ),
]


@pytest.fixture(params=CASES, ids=str)
def case(request: Any) -> Case:
    return request.param


@pytest.fixture
def row(world: World, case: Case) -> WorldItem:
    create_item(world, AudioTrack, {"id": "theme", "name": "Theme"}) if case.slug == "bgm" else None
    return create_item(world, case.model, case.seed)


def url(case: Case, action: str, world: World, row: WorldItem | None = None) -> str:
    name = f"studio:{case.slug}_{action}" if action else f"studio:{case.slug}"
    return reverse(name, args=[world.pk] + ([row.pk] if row else []))


def test_list_works_with_constant_queries(
    client, alice, world, case, row, django_assert_num_queries
):
    login(client, alice)
    with django_assert_num_queries(case.queries):
        response = client.get(url(case, "", world))
    assert response.status_code == 200
    shown = response.content.count(b'draggable="true"')
    for n in range(3):
        create_item(world, case.model, {**case.seed, "id": f"{case.seed['id']}-{n}"})
    with django_assert_num_queries(case.queries):
        response = client.get(url(case, "", world))
    assert response.content.count(b'draggable="true"') == shown + 3


def test_list_checklist(client, alice, bob, charlie, world, case, row):
    list_url = url(case, "", world)
    assert client.get(list_url).status_code == 302
    assert login(client, charlie).get(list_url).status_code == 404
    publish(world)
    assert login(client, bob).get(list_url).status_code == 403
    login(client, alice)
    assert client.post(list_url).status_code == 405
    partial = client.get(list_url, **hx())
    assert is_partial(partial)
    assert b'id="item-list"' in partial.content


def test_create_saves_every_field(client, alice, world, case, row):
    response = login(client, alice).post(url(case, "new", world), case.post)
    created = case.model.objects.get(world=world, key=case.post["id"])
    assert response.status_code == 302
    assert response["Location"] == url(case, "edit", world, created)
    for column, value in case.extra.items():
        assert getattr(created, column) == value


def test_create_bad_input_shows_the_errors_and_saves_nothing(client, alice, world, case, row):
    before = case.model.objects.filter(world=world).count()
    response = login(client, alice).post(url(case, "new", world), {**case.post, **case.bad}, **hx())
    assert response.status_code == 200
    assert is_partial(response)
    assert errors_of(response) == case.errors
    assert case.model.objects.filter(world=world).count() == before


def test_create_is_403_read_only_404_stranger_405_put(client, bob, charlie, world, case, row):
    new_url = url(case, "new", world)
    assert login(client, charlie).post(new_url, case.post).status_code == 404
    publish(world)
    assert login(client, bob).post(new_url, case.post).status_code == 403
    assert not case.model.objects.filter(world=world, key=case.post["id"]).exists()
    assert client.put(new_url).status_code == 405


def test_edit_updates_the_row(client, alice, world, case, row):
    edit_url = url(case, "edit", world, row)
    assert login(client, alice).get(edit_url).status_code == 200
    response = client.post(edit_url, case.post, **hx())
    row.refresh_from_db()
    assert response["HX-Trigger"] == '{"worldChanged": {}}'
    assert is_partial(response)
    assert row.key == case.post["id"]


def test_edit_bad_input_keeps_the_row(client, alice, world, case, row):
    before = (row.key, row.extra)
    response = login(client, alice).post(url(case, "edit", world, row), {**case.post, **case.bad})
    row.refresh_from_db()
    assert errors_of(response) == case.errors
    assert (row.key, row.extra) == before


def test_edit_checklist(client, alice, bob, charlie, world, case, row):
    edit_url = url(case, "edit", world, row)
    assert client.get(edit_url).status_code == 302
    assert login(client, charlie).get(edit_url).status_code == 404
    publish(world)
    assert login(client, bob).post(edit_url, case.post).status_code == 403
    assert login(client, alice).delete(edit_url).status_code == 405


def test_duplicate_delete_and_move(client, alice, world, case, row):
    login(client, alice)
    response = client.post(url(case, "duplicate", world, row))
    copy = case.model.objects.get(world=world, key=f"{row.key}-copy")
    assert response["Location"] == url(case, "edit", world, copy)
    keys = lambda: list(case.model.objects.filter(world=world).values_list("key", flat=True))  # noqa: E731
    before = keys()
    client.post(url(case, "move", world, copy), {"direction": "up"})
    moved = keys()
    assert moved.index(copy.key) == before.index(copy.key) - 1
    response = client.post(url(case, "delete", world, copy), **hx())
    assert is_partial(response)
    assert copy.key not in keys()


def test_writes_refuse_get_and_strangers(client, charlie, alice, world, case, row):
    login(client, alice)
    for action in ("delete", "duplicate", "move"):
        assert client.get(url(case, action, world, row)).status_code == 405
    assert client.get(url(case, "reorder", world)).status_code == 405
    login(client, charlie)
    for action in ("delete", "duplicate", "move"):
        assert client.post(url(case, action, world, row)).status_code == 404
