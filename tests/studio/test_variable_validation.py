"""Variables a world can trust (issue 9 §1): a default outside [min, max], a default of the
wrong type and a rule or entry condition naming an unknown variable are refused with the field
path, at import (engine.world.load_world), at save (studio services and forms) and in the API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from engine.world import WorldValidationError, load_world
from studio.demo import GM_DEMO_WORLD_PATH
from studio.models import Entry, Rule, Variable, World
from studio.worlds import create_item, delete_item, import_world, update_item
from tests.factories import world_data
from tests.studio.view_helpers import errors_of, login

pytestmark = pytest.mark.django_db

HEALTH = {"id": "health", "type": "number", "defaultValue": 100, "min": 0, "max": 100}
TICK = {"type": "every-turn"}


def refused(action: Any) -> list[str]:
    with pytest.raises(WorldValidationError) as caught:
        action()
    return caught.value.errors


# --- at import ---------------------------------------------------------------------------


def test_import_refuses_a_default_outside_min_max_with_its_path(alice):
    data = world_data(
        variables=[
            HEALTH,
            {"id": "gold", "type": "number", "defaultValue": -3, "min": 0},
            {"id": "hp", "type": "number", "defaultValue": 150, "min": 0, "max": 100},
        ]
    )
    assert refused(lambda: import_world(alice, data)) == [
        "variables[1].defaultValue: must be between 0 and ∞, got -3",
        "variables[2].defaultValue: must be between 0 and 100, got 150",
    ]
    assert World.objects.count() == 0


@pytest.mark.parametrize(
    ("variable", "message"),
    [
        ({"type": "number", "defaultValue": "100"}, 'must be a number, got "100"'),
        ({"type": "number", "defaultValue": True}, "must be a number, got true"),
        ({"type": "string", "defaultValue": 3}, "must be a string, got 3"),
        ({"type": "boolean", "defaultValue": "yes"}, 'must be a boolean, got "yes"'),
    ],
)
def test_import_refuses_a_wrong_typed_default_with_its_path(alice, variable, message):
    data = world_data(variables=[HEALTH, {"id": "odd", **variable}])
    assert refused(lambda: import_world(alice, data)) == [f"variables[1].defaultValue: {message}"]


def test_import_refuses_conditions_naming_unknown_variables_with_their_paths(alice):
    data = world_data(
        entries=[
            {"id": "calm"},
            {"id": "hurt", "conditions": [{"variableId": "hp", "operator": "lt", "value": 3}]},
        ],
        rules=[
            {
                "id": "tick",
                "trigger": TICK,
                "conditions": [
                    {"variableId": "health", "operator": "gt", "value": 0},
                    {"variableId": "mana", "operator": "gt", "value": 0},
                ],
            }
        ],
    )
    assert refused(lambda: load_world(data)) == [
        "entries[1].conditions[0].variableId: unknown variable 'hp'",
        "rules[0].conditions[1].variableId: unknown variable 'mana'",
    ]
    assert refused(lambda: import_world(alice, data))
    assert World.objects.count() == 0


def test_defaults_at_the_bounds_and_conditions_on_declared_variables_load():
    data = world_data(
        variables=[HEALTH, {"id": "low", "type": "number", "defaultValue": 0, "min": 0, "max": 5}],
        rules=[
            {"id": "r", "trigger": TICK, "conditions": [{"variableId": "low", "operator": "eq"}]}
        ],
    )
    assert [v.default_value for v in load_world(data).variables] == [100, 0]


# --- at save -----------------------------------------------------------------------------


def test_saving_a_variable_refuses_a_default_outside_its_range(world):
    bad = {"id": "mana", "type": "number", "defaultValue": 60, "min": 0, "max": 50}
    assert refused(lambda: create_item(world, Variable, bad)) == [
        "defaultValue: must be between 0 and 50, got 60"
    ]
    health = Variable.objects.get(world=world, key="health")
    assert refused(lambda: update_item(health, {"max": 50})) == [
        "defaultValue: must be between 0 and 50, got 100"
    ]
    assert not Variable.objects.filter(world=world, key="mana").exists()


@pytest.mark.parametrize(("model", "base"), [(Rule, {"trigger": TICK}), (Entry, {})])
def test_saving_a_rule_or_entry_refuses_a_condition_on_an_unknown_variable(world, model, base):
    conditions = [
        {"variableId": "health", "operator": "gt", "value": 0},
        {"variableId": "helth", "operator": "lt", "value": 5},
    ]
    data = {"id": "watch", **base, "conditions": conditions}
    assert refused(lambda: create_item(world, model, data)) == [
        "conditions[1].variableId: unknown variable 'helth'"
    ]
    row = create_item(world, model, {**data, "conditions": conditions[:1]})
    assert refused(lambda: update_item(row, {"conditions": conditions})) == [
        "conditions[1].variableId: unknown variable 'helth'"
    ]


def test_a_variable_named_by_a_condition_cannot_be_deleted_or_renamed(world):
    create_item(
        world,
        Rule,
        {
            "id": "watch",
            "trigger": TICK,
            "conditions": [{"variableId": "health", "operator": "gt"}],
        },
    )
    health = Variable.objects.get(world=world, key="health")
    message = "id: 'health' is used by rules[1].conditions[0]; change those conditions first"

    assert refused(lambda: delete_item(health)) == [message]
    assert refused(lambda: update_item(health, {"id": "hp"})) == [message]
    update_item(health, {"name": "Vigour"})  # other changes are fine
    assert Variable.objects.filter(world=world, key="health").exists()


# --- the studio forms ----------------------------------------------------------------------


def test_the_variable_form_shows_the_range_error_on_the_default_field(client, alice, world):
    login(client, alice)
    post = {"id": "mana", "name": "Mana", "type": "number", "default_value": "80"}
    post |= {"min": "0", "max": "50", "description": "", "behavior_rules": ""}
    response = client.post(reverse("studio:variables_new", args=[world.pk]), post)

    assert "must be between 0 and 50, got 80" in errors_of(response)
    assert 'id="id_default_value"' in response.content.decode()
    assert not Variable.objects.filter(world=world, key="mana").exists()


def test_the_rule_form_shows_an_unknown_condition_variable(client, alice, world):
    login(client, alice)
    post = {"id": "greet", "name": "", "description": "", "priority": "0"}
    post |= {"condition_logic": "all", "trigger": '{"type": "every-turn"}'}
    post |= {"actions": '[{"type": "notify-player", "message": "Hi"}]'}
    post |= {"conditions": '[{"variableId": "mana", "operator": "gt", "value": 1}]'}
    response = client.post(reverse("studio:rules_new", args=[world.pk]), post)

    assert "conditions[0].variableId: unknown variable 'mana'" in errors_of(response)
    assert not Rule.objects.filter(world=world, key="greet").exists()


def test_deleting_a_variable_in_use_shows_why_and_keeps_it(client, alice, world):
    create_item(
        world, Entry, {"id": "hurt", "conditions": [{"variableId": "health", "operator": "lt"}]}
    )
    health = Variable.objects.get(world=world, key="health")
    login(client, alice)
    response = client.post(reverse("studio:variables_delete", args=[world.pk, health.pk]))

    assert response.status_code == 409
    assert "is used by entries[1].conditions[0]" in response.content.decode()
    assert Variable.objects.filter(pk=health.pk).exists()


# --- the API -----------------------------------------------------------------------------


def test_the_api_refuses_bad_variables_and_conditions_with_their_paths(client, alice, world):
    client.force_login(alice)
    base = f"/api/worlds/{world.pk}"
    bad_default = {"id": "mana", "type": "number", "defaultValue": "ten"}
    unknown = {"id": "w", "trigger": TICK, "conditions": [{"variableId": "mana", "operator": "gt"}]}

    response = client.post(f"{base}/variables", bad_default, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ['defaultValue: must be a number, got "ten"']
    response = client.post(f"{base}/rules", unknown, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ["conditions[0].variableId: unknown variable 'mana'"]
    world_json = world_data(variables=[{**HEALTH, "defaultValue": 101}])
    response = client.put(f"{base}/content", world_json, "application/json")
    assert response.status_code == 422, response.content
    assert (
        "variables[0].defaultValue: must be between 0 and 100, got 101" in response.json()["errors"]
    )


def test_a_variable_named_by_a_game_master_clue_cannot_be_deleted(alice):
    data = json.loads(GM_DEMO_WORLD_PATH.read_text())
    data["id"] = ""
    data["variables"] = [*data.get("variables", []), world_data()["variables"][0]]
    key = data["variables"][-1]["id"]
    need = {"type": "condition", "variableId": key, "operator": "gt", "value": 0}
    data["gameMaster"]["clues"][0]["requires"] = [need]
    world = import_world(alice, data)
    variable = Variable.objects.get(world=world, key=key)

    assert refused(lambda: delete_item(variable)) == [
        f"id: '{key}' is used by gameMaster.clues[0].requires[0]; change those conditions first"
    ]
    assert Variable.objects.filter(world=world, key=key).exists()
