"""Engine texts on studio pages in Spanish and Chinese (issue 35 §4): the import report and the
game master's problems are shown in the page's language."""

from __future__ import annotations

import json
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation

from engine.interop import import_file, import_report
from studio.messages import translated_line
from studio.models import Variable
from studio.worlds import import_world
from studio.worldtests.suites import save_test
from tests.factories import world_data
from tests.studio.gm_helpers import small_block
from tests.studio.view_helpers import hx, login
from tests.support.corpus import fixture_bytes

pytestmark = pytest.mark.django_db


def in_language(client, user, language):
    login(client, user)
    client.post(reverse("set_language"), {"language": language, "next": "/"})
    return client


def imported_page(client, name: str, data: bytes) -> str:
    upload = SimpleUploadedFile(name, data, "application/octet-stream")
    response = client.post(reverse("studio:import"), {"file": upload}, follow=True)
    return unescape(response.content.decode())


def regex_lorebook() -> bytes:
    entries = {str(i): {"key": [f"/k{i}/"], "comment": f"E{i}", "content": "x"} for i in range(5)}
    entries["9"] = {"key": 3, "content": "y", "comment": "Odd"}
    return json.dumps({"entries": entries}).encode()


def test_every_line_of_an_import_report_has_chinese_text():
    lines = []
    for name, data in (
        ("ferryman_v2.png", fixture_bytes("ferryman_v2.png")),
        ("r.json", regex_lorebook()),
    ):
        definition, warnings = import_file(data, name)
        lines += import_report(definition, warnings, picture="unreadable image")
    with translation.override("zh-hans"):
        untranslated = [
            line.message for line in lines if translated_line(line.message) == line.message
        ]
    assert len(lines) > 6
    assert untranslated == []


def test_a_spanish_import_of_a_card_shows_the_report_in_spanish(client, alice):
    page = imported_page(
        in_language(client, alice, "es"), "ferryman_v2.png", fixture_bytes("ferryman_v2.png")
    )
    assert "lorebook → 3 entradas (2 activadas por palabras clave, 1 enviadas siempre)" in page
    assert "campos de la tarjeta → 6 entradas: description, personality" in page
    assert "la imagen de la tarjeta → el retrato del mundo" in page
    assert "notas del creador → descripción" in page
    assert "lorebook → 3 entries" not in page


def test_a_chinese_import_of_a_card_shows_the_report_in_chinese(client, alice):
    page = imported_page(
        in_language(client, alice, "zh-hans"), "ferryman_v2.png", fixture_bytes("ferryman_v2.png")
    )
    assert "世界书 → 3 个条目（2 条由关键词触发，1 条始终发送）" in page
    assert "角色卡图片 → 世界的头像" in page
    assert "the card's picture" not in page


def test_a_chinese_import_folds_and_translates_its_warnings(client, alice):
    page = imported_page(in_language(client, alice, "zh-hans"), "regex.json", regex_lorebook())
    assert "5 个条目使用正则关键词：Fabula 按纯文本匹配（'E0', 'E1', 'E2' …）" in page
    assert "entries[9].key: 应为词语列表，得到 number；已忽略" in page
    assert "use regex keys" not in page


def test_an_also_line_translates_each_count():
    with translation.override("es"):
        assert translated_line("also: 1 variable, 2 rules") == "además: 1 variable, 2 reglas"


def test_a_game_master_problem_is_shown_in_spanish(client, alice):
    block = small_block()
    need = {"type": "condition", "variableId": "health", "operator": "gt", "value": 1}
    block["clues"] = [{"id": "c", "name": "C", "anchor": {"npc": "mara"}, "requires": [need]}]
    world = import_world(alice, world_data(gameMaster=block))
    Variable.objects.filter(world=world, key="health").delete()
    response = in_language(client, alice, "es").get(reverse("studio:gm", args=[world.pk]))
    page = unescape(response.content.decode())
    assert "variable desconocida 'health'" in page
    assert "unknown variable 'health'" not in page


def test_a_failed_world_test_step_is_explained_in_spanish(client, alice, world):
    step = {
        "say": "I jump.",
        "reply": "You land badly. [health: -85]",
        "expect": {"state": {"health": 20}, "fired": ["ferry"], "text": "You land well."},
    }
    save_test(world, {"name": "A fall hurts", "steps": [step]})
    client = in_language(client, alice, "es")
    response = client.post(reverse("studio:world_test_run", args=[world.pk]), **hx())
    page = unescape(response.content.decode())
    assert "se esperaba 20, se obtuvo 15" in page
    assert "ferry no se activó; entradas que se activaron:" in page
    assert "el texto mostrado es distinto" in page
    assert "expected 20" not in page


def test_a_stopped_rule_chain_is_explained_in_chinese():
    warning = (
        "stopped a rule/reaction chain after 16 event generations: it would loop forever "
        "(still pending: variable-changed gold…)"
    )
    with translation.override("zh-hans"):
        shown = translated_line(warning)
    assert (
        shown
        == "在 16 代事件 后停止了一条规则/反应链：它会无限循环（仍待处理：variable-changed gold…）"
    )
