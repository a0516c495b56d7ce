"""Generation settings of seed 004 and the five official presets."""

from __future__ import annotations

from html import unescape

import pytest
from django.urls import reverse

from studio.presets import PRESETS
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


def settings_post(**overrides: str) -> dict[str, str]:
    data = {
        "max_tokens": "8000",
        "max_context": "100000",
        "temperature": "0.8",
        "top_p": "0.9",
        "top_k": "40",
        "min_p": "0.05",
        "frequency_penalty": "0.1",
        "presence_penalty": "0",
        "player_name": "Traveller",
        "lorebook_scan_depth": "4",
        "lorebook_recursion_depth": "1",
        "structured_output": "on",
    }
    data.update(overrides)
    return data


def test_settings_page_shows_every_setting_and_the_presets(
    client, alice, world, django_assert_num_queries
):
    login(client, alice)
    with django_assert_num_queries(5):
        response = client.get(reverse("studio:settings", args=[world.pk]))
    html = response.content.decode()
    for name in ("top_k", "min_p", "structured_output", "player_name", "lorebook_scan_depth"):
        assert f'name="{name}"' in html
    for preset in PRESETS:
        assert str(preset.title) in html


def test_the_lorebook_settings_state_the_defaults_sillytavern_users_know(client, alice, world):
    response = login(client, alice).get(reverse("studio:settings", args=[world.pk]))
    html = unescape(response.content.decode())
    assert 'name="lorebook_scan_depth" value="2"' in html
    assert "Default 2, as SillyTavern's “Scan Depth”: the last two messages" in html
    assert 'name="lorebook_recursion_depth" value="0"' in html
    assert (
        "Default 0: off. SillyTavern's “Recursive scan” is on by default with no step limit; "
        "3 is what an imported book with recursive scanning gets here."
    ) in html


def test_settings_save_all_fields_in_schema_json(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:settings", args=[world.pk]), settings_post()
    )
    world.refresh_from_db()
    assert response.status_code == 302
    assert world.settings == {
        "maxTokens": 8000,
        "maxContext": 100000,
        "temperature": 0.8,
        "topP": 0.9,
        "topK": 40,
        "minP": 0.05,
        "frequencyPenalty": 0.1,
        "presencePenalty": 0.0,
        "playerName": "Traveller",
        "lorebookScanDepth": 4,
        "lorebookRecursionDepth": 1,
        "structuredOutput": True,
    }


def test_optional_settings_left_empty_stay_absent(client, alice, world):
    login(client, alice).post(
        reverse("studio:settings", args=[world.pk]), settings_post(top_k="", min_p="")
    )
    world.refresh_from_db()
    assert "topK" not in world.settings
    assert "minP" not in world.settings


def test_settings_out_of_range_show_the_engine_error_on_the_field(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:settings", args=[world.pk]),
        settings_post(temperature="3", top_k="-1"),
        **hx(),
    )
    assert is_partial(response)
    assert errors_of(response) == [
        "input should be less than or equal to 2",
        "input should be greater than or equal to 0",
    ]
    html = response.content.decode()
    assert html.index("input should be less than or equal to 2") > html.index(
        'id="field-temperature"'
    )
    world.refresh_from_db()
    assert world.settings["temperature"] == 1.0


def test_settings_checklist(client, alice, bob, charlie, world):
    url = reverse("studio:settings", args=[world.pk])
    assert client.get(url).status_code == 302
    assert login(client, charlie).get(url).status_code == 404
    publish(world)
    assert login(client, bob).post(url, settings_post()).status_code == 403
    assert login(client, alice).put(url).status_code == 405
    response = client.post(url, settings_post(), **hx())
    assert is_partial(response)
    assert "Settings saved." in response.content.decode()


def test_each_preset_is_added_once_as_an_entry(client, alice, world):
    login(client, alice)
    for preset in PRESETS:
        response = client.post(reverse("studio:preset_add", args=[world.pk, preset.key]))
        assert response["Location"] == reverse("studio:settings", args=[world.pk])
    added = {e.key: e for e in world.entries.all()}
    assert added["preset-fiction-mode"].section == "system-presets"
    assert [added[f"preset-{k}"].section_position for k in ("task", "instructions", "style")] == [
        1,
        2,
        3,
    ]
    assert added["preset-cot-bypass"].section == "post-history"
    assert added["preset-cot-bypass"].api_role == "user"
    response = client.post(reverse("studio:preset_add", args=[world.pk, "task"]), **hx())
    assert "the preset &#x27;Task&#x27; is already in this world" in response.content.decode()
    assert world.entries.filter(key="preset-task").count() == 1


def test_preset_checklist(client, alice, bob, world):
    url = reverse("studio:preset_add", args=[world.pk, "style"])
    assert client.post(url).status_code == 302
    assert login(client, alice).get(url).status_code == 405
    assert client.post(reverse("studio:preset_add", args=[world.pk, "nope"])).status_code == 404
    publish(world)
    assert login(client, bob).post(url).status_code == 403
    assert not world.entries.filter(key="preset-style").exists()
