"""The rule editor's structured form: a trigger picker, condition rows, action rows, raw JSON.

The generic list/edit checklist of rules lives in test_views_items.py; these are what the rows
add: the JSON they save, errors on the row field they name, the form ⇄ raw JSON switch.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from studio.models import Rule, Variable, World
from studio.worlds import create_item
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


def rows(prefix: str, *items: dict[str, str], initial: int = 0) -> dict[str, str]:
    """A formset's posted rows: its management form plus ``prefix-i-field`` for each item."""
    data = {f"{prefix}-TOTAL_FORMS": str(len(items)), f"{prefix}-INITIAL_FORMS": str(initial)}
    for index, item in enumerate(items):
        data.update({f"{prefix}-{index}-{name}": value for name, value in item.items()})
    return data


BLANK_ACTION = {"type": "modify-variable", "operation": "set", "position": "auto"}


def rule_post(**overrides: Any) -> dict[str, str]:
    """What the browser posts for a rule made with the form: a keyword trigger, 2+1 conditions
    (the last one blank), an action to keep, a blank one and a removed one."""
    data = {
        "editor": "form",
        "id": "dusk",
        "name": "Dusk falls",
        "description": "",
        "priority": "10",
        "enabled": "on",
        "cooldown_turns": "",
        "max_fire_count": "",
        "condition_logic": "any",
        "trigger_type": "keyword",
        "trigger_keywords": "tavern, inn",
        "trigger_match_whole_words": "on",
        "trigger_variable_id": "",  # the other types' boxes, posted empty as a browser does
        "trigger_direction": "drops-below",
        "trigger_threshold": "",
        "trigger_at_turn": "",
        "trigger_every_n_turns": "",
        "trigger_action_id": "",
        "trigger": '{"type": "manual"}',  # the raw JSON side, left as it was: not read
        "conditions": "[]",
        "actions": "[]",
        **rows(
            "cond",
            {"variable_id": "health", "operator": "gt", "value": "20"},
            {"variable_id": "mood", "operator": "eq", "value": "grim"},
            {"variable_id": "", "operator": "eq", "value": ""},
        ),
        **rows(
            "act",
            {**BLANK_ACTION, "variable_id": "health", "operation": "subtract", "value": "5"},
            {
                **BLANK_ACTION,
                "type": "inject-directive",
                "directive_id": "dusk",
                "content": "The light fails.",
                "position": "after_char",
                "persistent": "on",
            },
            BLANK_ACTION,
            {**BLANK_ACTION, "type": "notify-player", "message": "Gone", "DELETE": "on"},
        ),
    }
    data.update(overrides)
    return data


@pytest.fixture
def mood(world: World) -> Variable:
    return create_item(world, Variable, {"id": "mood", "type": "string", "defaultValue": "calm"})


def new_url(world: World) -> str:
    return reverse("studio:rules_new", args=[world.pk])


def editor_url(world: World) -> str:
    return reverse("studio:rules_editor", args=[world.pk])


def field_html(response: Any, name: str) -> str:
    """The markup of one field's box (``id="field-<name>"``), for errors shown on it."""
    html = response.content.decode()
    match = re.search(rf'id="field-{re.escape(name)}".*?(?=id="field-|</fieldset>)', html, re.S)
    assert match, f"no field {name}"
    return unescape(match.group(0))


def cell_html(response: Any, name: str) -> str:
    """The table cell of a row field (condition rows are a table), errors included."""
    html = response.content.decode()
    match = re.search(
        rf'<td class="[^"]*">(?:(?!</td>).)*name="{re.escape(name)}".*?</td>', html, re.S
    )
    assert match, f"no cell {name}"
    return unescape(match.group(0))


# --- saving from the rows ---------------------------------------------------------------------


def test_rows_save_the_rule_json_they_show(client, alice, world, mood):
    response = login(client, alice).post(new_url(world), rule_post())

    rule = Rule.objects.get(world=world, key="dusk")
    assert response.status_code == 302
    assert rule.trigger == {
        "type": "keyword",
        "keywords": ["tavern", "inn"],
        "matchWholeWords": True,
    }
    assert rule.conditions == [
        {"variableId": "health", "operator": "gt", "value": 20},
        {"variableId": "mood", "operator": "eq", "value": "grim"},
    ]
    assert rule.condition_logic == "any"
    assert rule.actions == [
        {"type": "modify-variable", "variableId": "health", "operation": "subtract", "value": 5},
        {
            "type": "inject-directive",
            "directiveId": "dusk",
            "content": "The light fails.",
            "position": "after_char",
            "depth": None,
            "persistent": True,
            "duration": None,
        },
    ]


def test_each_trigger_type_saves_only_its_own_fields(client, alice, world, mood):
    post = rule_post(
        trigger_type="variable-crossed",
        trigger_variable_id="health",
        trigger_direction="rises-above",
        trigger_threshold="80",
        trigger_at_turn="3",  # a turn-count field: not this type's
    )
    login(client, alice).post(new_url(world), post)

    rule = Rule.objects.get(world=world, key="dusk")
    assert rule.trigger == {
        "type": "variable-crossed",
        "variableId": "health",
        "direction": "rises-above",
        "threshold": 80.0,
    }


def test_the_edit_page_shows_the_rule_as_rows(client, alice, world):
    rule = Rule.objects.get(world=world, key="low-health-warning")
    response = login(client, alice).get(reverse("studio:rules_edit", args=[world.pk, rule.pk]))
    html = response.content.decode()

    assert 'value="form" id="id_editor_0" checked' in html
    assert '<option value="variable-crossed" selected>' in html
    assert 'name="trigger_threshold" value="20"' in html
    assert '<option value="warning" selected>' in html
    assert 'name="act-0-message"' in html and "You reel.</textarea>" in html
    # One blank row to add an action without JavaScript, and the JS button to add more.
    assert 'name="act-TOTAL_FORMS" value="2"' in html
    assert re.search(r"<button[^>]*data-add-row hidden>\+ Add action", html)
    assert "act-__prefix__-type" in html  # the <template> row studio.js copies


# --- errors on the field they belong to -------------------------------------------------------


def test_a_box_that_does_not_fit_shows_its_path_on_the_box(client, alice, world, mood):
    post = rule_post(trigger_type="variable-crossed", trigger_variable_id="health")
    post |= {"trigger_threshold": "lots", "cond-0-value": "plenty"}
    response = login(client, alice).post(new_url(world), post, **hx())

    assert is_partial(response)
    assert errors_of(response) == [
        "trigger.threshold: enter a number",
        "conditions[0].value: enter a number",
    ]
    assert "trigger.threshold: enter a number" in field_html(response, "trigger_threshold")
    assert "conditions[0].value: enter a number" in cell_html(response, "cond-0-value")
    assert 'value="plenty"' in cell_html(response, "cond-0-value")  # kept as typed
    assert not Rule.objects.filter(world=world, key="dusk").exists()


def test_engine_errors_land_on_the_row_field_they_name(client, alice, world, mood):
    post = rule_post(trigger_type="variable-crossed", trigger_threshold="5")
    post |= {"cond-1-variable_id": "mana", "act-0-variable_id": ""}
    response = login(client, alice).post(new_url(world), post)

    assert errors_of(response) == [
        "trigger.variableId: is required",
        "actions[0].variableId: is required",
    ]
    assert "trigger.variableId: is required" in field_html(response, "trigger_variable_id")
    assert "actions[0].variableId: is required" in field_html(response, "act-0-variable_id")
    # The condition on an unknown variable is only checked once the rule itself is valid.
    fixed = rule_post(**{"cond-1-variable_id": "mana"})
    response = client.post(new_url(world), fixed)
    assert errors_of(response) == ["conditions[1].variableId: unknown variable 'mana'"]
    assert "conditions[1].variableId: unknown variable" in cell_html(response, "cond-1-variable_id")


def test_an_unknown_variable_stays_selected_in_its_picker(client, alice, world, mood):
    response = login(client, alice).post(
        new_url(world), rule_post(**{"cond-1-variable_id": "mana"})
    )
    assert '<option value="mana" selected>mana</option>' in cell_html(
        response, "cond-1-variable_id"
    )


# --- the raw JSON, behind the switch -----------------------------------------------------------


def test_the_raw_json_side_saves_when_picked(client, alice, world):
    post = rule_post(
        editor="json",
        trigger='{"type": "turn-count", "everyNTurns": 3}',
        conditions='[{"variableId": "health", "operator": "lt", "value": 50}]',
        actions='[{"type": "send-context", "message": "Night falls."}]',
    )
    login(client, alice).post(new_url(world), post)

    rule = Rule.objects.get(world=world, key="dusk")
    assert rule.trigger == {"type": "turn-count", "atTurn": None, "everyNTurns": 3}
    assert rule.conditions == [{"variableId": "health", "operator": "lt", "value": 50}]
    assert rule.actions == [{"type": "send-context", "message": "Night falls.", "role": "system"}]


def test_the_raw_json_side_reports_bad_json_on_its_box(client, alice, world):
    response = login(client, alice).post(new_url(world), rule_post(editor="json", actions="[{"))
    assert errors_of(response) == [
        "Not valid JSON: Expecting property name enclosed in double quotes at line 1 column 3"
    ]
    assert 'value="json" id="id_editor_1" checked' in response.content.decode()


def test_a_rule_the_form_cannot_show_in_full_opens_as_raw_json(client, alice, world):
    odd = {"id": "odd", "trigger": {"type": "every-turn", "note": "kept"}, "actions": []}
    rule = create_item(world, Rule, odd)
    response = login(client, alice).get(reverse("studio:rules_edit", args=[world.pk, rule.pk]))
    html = unescape(response.content.decode())

    assert 'value="json" id="id_editor_1" checked' in html
    assert '"note": "kept"' in html


def test_switching_to_raw_json_writes_the_rows_as_json(client, alice, world, mood):
    response = login(client, alice).post(editor_url(world), rule_post(editor="json"), **hx())
    html = unescape(response.content.decode())

    assert is_partial(response)
    assert html.lstrip().startswith('<div id="logic-editor"')
    assert 'value="json" id="id_editor_1" checked' in html
    trigger = '{\n  "type": "keyword",\n  "keywords": [\n    "tavern",\n    "inn"\n  ],'
    assert trigger in html
    assert '"variableId": "mood",\n    "operator": "eq",\n    "value": "grim"' in html
    assert not Rule.objects.filter(world=world, key="dusk").exists()  # nothing saved


def test_switching_to_the_form_draws_the_json_as_rows(client, alice, world, mood):
    post = rule_post(
        editor="form",
        trigger='{"type": "action", "actionId": "open-door"}',
        conditions='[{"variableId": "mood", "operator": "neq", "value": "calm"}]',
        actions='[{"type": "toggle-entry", "entryId": "narrator", "enabled": false}]',
    )
    html = login(client, alice).post(editor_url(world), post, **hx()).content.decode()

    assert 'value="form" id="id_editor_0" checked' in html
    assert '<option value="action" selected>' in html
    assert 'name="trigger_action_id" value="open-door"' in html
    assert '<option value="mood" selected>' in html and 'name="cond-0-value" value="calm"' in html
    assert '<option value="toggle-entry" selected>' in html
    assert 'name="act-0-entry_id" value="narrator"' in html
    assert '<option value="false" selected>' in html


def test_switching_keeps_the_side_in_use_when_it_has_an_error(client, alice, world):
    post = rule_post(editor="form", actions="[{")
    response = login(client, alice).post(editor_url(world), post, **hx())
    assert 'value="json" id="id_editor_1" checked' in response.content.decode()
    assert errors_of(response) == [
        "Not valid JSON: Expecting property name enclosed in double quotes at line 1 column 3"
    ]


def test_switching_to_the_form_refuses_json_it_cannot_show(client, alice, world):
    post = rule_post(editor="form", trigger='{"type": "every-turn", "note": "kept"}')
    response = login(client, alice).post(editor_url(world), post, **hx())
    html = unescape(response.content.decode())
    assert 'value="json" id="id_editor_1" checked' in html
    assert "The form cannot show every field of this JSON, so it stays raw JSON." in html
    assert '"note": "kept"' in html


def test_switching_without_js_draws_the_whole_page(client, alice, world):
    rule = Rule.objects.get(world=world, key="low-health-warning")
    post = rule_post(editor="json", draft_key=rule.key)
    response = login(client, alice).post(editor_url(world), post)
    html = response.content.decode()
    assert b"<html" in response.content
    assert f'action="{reverse("studio:rules_edit", args=[world.pk, rule.pk])}"' in html


def test_the_switch_checklist(client, alice, bob, charlie, world):
    url = editor_url(world)
    assert client.post(url, rule_post()).status_code == 302
    assert login(client, charlie).post(url, rule_post()).status_code == 404
    assert login(client, alice).get(url).status_code == 405
    publish(world)
    assert login(client, bob).post(url, rule_post()).status_code == 403


# --- world text in the pickers -----------------------------------------------------------------


def test_names_in_the_pickers_are_escaped(client, alice, world):
    create_item(world, Variable, {"id": "x", "name": "<b>bold</b>", "type": "number"})
    html = login(client, alice).get(new_url(world)).content.decode()
    assert "<b>bold</b>" not in html
    assert '<option value="x">&lt;b&gt;bold&lt;/b&gt; (x)</option>' in html
    assert '<option value="x">&lt;b&gt;bold&lt;/b&gt;</option>' in html  # the datalist
