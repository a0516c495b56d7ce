"""The variable editor: a json variable's default value as rows (an object or a list) or raw JSON.

The generic list/edit checklist of variables lives in test_views_items.py.
"""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from studio.models import Variable
from studio.worlds import create_item
from tests.studio.test_views_rules import rows
from tests.studio.view_helpers import errors_of, hx, login

pytestmark = pytest.mark.django_db


def variable_post(**overrides: Any) -> dict[str, str]:
    data = {
        "editor": "form",
        "id": "bag",
        "name": "Bag",
        "type": "json",
        "default_value": "{}",  # the raw side, not read while the form is in use
        "default_shape": "object",
        "min": "",
        "max": "",
        "description": "",
        "behavior_rules": "",
        **rows(
            "dv",
            {"key": "gold", "value": "12"},
            {"key": "items", "value": '["rope", "lamp"]'},
            {"key": "note", "value": "found by the well"},
            {"key": "", "value": ""},
            {"key": "old", "value": "1", "DELETE": "on"},
        ),
    }
    data.update(overrides)
    return data


def post(client: Any, world: Any, data: dict[str, str]) -> Any:
    return client.post(reverse("studio:variables_new", args=[world.pk]), data)


def test_object_rows_save_the_default_object(client, alice, world):
    response = post(login(client, alice), world, variable_post())
    assert response.status_code == 302
    bag = Variable.objects.get(world=world, key="bag")
    assert bag.default_value == {"gold": 12, "items": ["rope", "lamp"], "note": "found by the well"}


def test_list_rows_save_a_list_and_ignore_the_names(client, alice, world):
    post(login(client, alice), world, variable_post(default_shape="list"))
    bag = Variable.objects.get(world=world, key="bag")
    assert bag.default_value == [12, ["rope", "lamp"], "found by the well"]


def test_a_name_used_twice_is_refused_on_its_row(client, alice, world):
    response = post(login(client, alice), world, variable_post(**{"dv-2-key": "gold"}))
    assert errors_of(response) == ["defaultValue[2].key: this name is used twice"]
    assert not Variable.objects.filter(world=world, key="bag").exists()


def test_the_raw_json_side_still_saves(client, alice, world):
    post(login(client, alice), world, variable_post(editor="json", default_value='{"a": [1]}'))
    assert Variable.objects.get(world=world, key="bag").default_value == {"a": [1]}


def test_other_types_keep_their_one_box(client, alice, world):
    data = variable_post(type="number", default_value="7", min="0", max="10")
    post(login(client, alice), world, data)
    assert Variable.objects.get(world=world, key="bag").default_value == 7


def test_the_edit_page_shows_a_json_default_as_rows(client, alice, world):
    bag = create_item(world, Variable, {"id": "bag", "type": "json", "defaultValue": {"n": "42"}})
    url = reverse("studio:variables_edit", args=[world.pk, bag.pk])
    html = unescape(login(client, alice).get(url).content.decode())
    assert 'value="form" id="id_editor_0" checked' in html
    assert 'name="dv-0-key" value="n"' in html
    assert 'name="dv-0-value" value=""42""' in html  # a string that reads as JSON is quoted


def test_a_default_that_is_not_an_object_or_list_opens_as_raw_json(client, alice, world):
    bag = create_item(world, Variable, {"id": "bag", "type": "json", "defaultValue": 5})
    url = reverse("studio:variables_edit", args=[world.pk, bag.pk])
    html = login(client, alice).get(url).content.decode()
    assert 'value="json" id="id_editor_1" checked' in html


def test_switching_sides_turns_rows_into_json_and_back(client, alice, world):
    url = reverse("studio:variables_editor", args=[world.pk])
    login(client, alice)
    html = unescape(client.post(url, variable_post(editor="json"), **hx()).content.decode())
    assert 'value="json" id="id_editor_1" checked' in html
    assert '{"gold": 12, "items": ["rope", "lamp"], "note": "found by the well"}</textarea>' in html

    back = variable_post(editor="form", default_value='["a", 2]')
    html = client.post(url, back, **hx()).content.decode()
    assert '<option value="list" selected>' in html
    assert 'name="dv-0-value" value="a"' in html and 'name="dv-1-value" value="2"' in html
    assert not Variable.objects.filter(world=world, key="bag").exists()
