"""The engine's messages in Spanish and Chinese (issue 35 §4): every code has its text."""

from __future__ import annotations

from string import Formatter

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation
from django.utils.translation import trans_real

from engine.messages import TEMPLATES
from studio.messages import translated, translated_line
from studio.models import Rule
from studio.worlds import create_item
from tests.studio.view_helpers import errors_of, hx, login

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["es", "zh-hans"])
def test_every_engine_message_code_has_a_translation(language):
    catalog = trans_real.translation(language)._catalog
    missing = [
        code for code, english in TEMPLATES.items() if code != "text" and not catalog.get(english)
    ]
    assert missing == []


@pytest.mark.parametrize("language", ["es", "zh-hans"])
def test_every_translation_takes_the_same_parameters(language):
    with translation.override(language):
        for code, english in TEMPLATES.items():
            names = {p[1] for p in Formatter().parse(english) if p[1]}
            assert translated(english.format(**dict.fromkeys(names, "x"))), code


def test_a_path_line_keeps_its_path_and_translates_its_message():
    with translation.override("es"):
        line = translated_line("variables[0].defaultValue: must be between 0 and 100, got 500")
    assert line == "variables[0].defaultValue: debe estar entre 0 y 100, se recibió 500"


def test_an_unknown_text_is_shown_as_written():
    with translation.override("zh-hans"):
        assert translated_line("rules[0]: something new") == "rules[0]: something new"


def spanish(client, user):
    login(client, user)
    client.post(reverse("set_language"), {"language": "es", "next": "/"})
    return client


def test_the_checks_panel_names_the_object_says_what_to_do_in_spanish(client, alice, world):
    action = {"type": "modify-variable", "variableId": "gold", "operation": "add", "value": 1}
    rule = {"id": "pay", "name": "Pay", "trigger": {"type": "every-turn"}, "actions": [action]}
    create_item(world, Rule, rule)
    response = spanish(client, alice).get(reverse("studio:lint", args=[world.pk]), **hx())
    html = response.content.decode()
    assert "Regla «Pay» (pay)" in html
    assert "variable desconocida &#x27;gold&#x27;" in html
    assert "Elige una de las variables del mundo o crea la variable &#x27;gold&#x27;." in html
    assert 'data-path="rules[1].actions[0].variableId"' in html


def test_an_import_error_is_translated(client, alice):
    login(client, alice)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    upload = SimpleUploadedFile("broken.json", b'{"name": "x" "entries": []}')
    response = client.post(reverse("studio:import"), {"file": upload}, **hx())
    assert "JSON 无效：第 1 行第 14 列 缺少分隔符“,”" in errors_of(response)


def test_a_validation_error_on_a_form_is_translated(client, alice, world):
    data = {
        "id": "gold",
        "name": "Gold",
        "type": "number",
        "default_value": "500",
        "min": "0",
        "max": "100",
    }
    response = spanish(client, alice).post(
        reverse("studio:variables_new", args=[world.pk]), data, **hx()
    )
    assert any("debe estar entre 0 y 100, se recibió 500" in e for e in errors_of(response))


def test_a_directive_tester_skip_is_translated(client, alice, world):
    response = spanish(client, alice).post(
        reverse("studio:tester", args=[world.pk]), {"tester-reply": "Hi [nobody: +1]"}, **hx()
    )
    assert (
        "variable desconocida &#x27;nobody&#x27;; se deja en el texto" in response.content.decode()
    )
