"""Engine messages as a code, parameters and English (issue 35 §4)."""

from __future__ import annotations

import json
from pathlib import Path
from string import Formatter

import pytest

from engine.directives import extract_directives
from engine.interop import CardError, import_file
from engine.lint import lint_source
from engine.messages import TEMPLATES, coded, say
from engine.world import WorldValidationError, load_world

GM_DEMO = Path(__file__).resolve().parents[2] / "studio" / "fixtures" / "gm_demo_world.json"


def test_say_fills_the_english_template():
    message = say("unknown-variable", name="gold")
    assert (message.code, dict(message.params), str(message)) == (
        "unknown-variable",
        {"name": "gold"},
        "unknown variable 'gold'",
    )


@pytest.mark.parametrize("code", sorted(set(TEMPLATES) - {"text"}))
def test_every_template_reads_back_into_its_code_and_params(code):
    names = [part[1] for part in Formatter().parse(TEMPLATES[code]) if part[1]]
    params = {name: f"<{name}>" for name in names}
    english = TEMPLATES[code].format(**params)
    message = coded(english)
    assert message.english == english
    assert TEMPLATES[message.code].format(**message.params) == english


def test_a_text_no_template_matches_is_kept_whole():
    assert coded("something else").code == "text"


def test_a_wrapping_message_keeps_the_wrapped_one_as_its_reason():
    message = coded("hp gt 100 never holds: hp stays within 0..100: it never plays")
    assert (message.code, message.params["reason"]) == (
        "bgm-never",
        "hp gt 100 never holds: hp stays within 0..100",
    )
    assert coded(message.params["reason"]).code == "never-holds-range"


BROKEN = {
    "name": "Broken",
    "entries": [
        {"id": "hi", "role": "greeting", "content": ""},
        {"id": "lore", "section": "system-presets", "keywords": ["x"], "content": "{{gold}}"},
        {"id": "off", "enabled": False, "content": "x"},
        {"id": "deaf", "section": "chat-history", "content": "x"},
    ],
    "variables": [
        {"id": "hp", "type": "number", "defaultValue": 5, "min": 0, "max": 10},
        {"id": "flag", "type": "boolean", "defaultValue": False},
    ],
    "rules": [
        {
            "id": "r",
            "trigger": {"type": "keyword", "keywords": []},
            "conditions": [{"variableId": "hp", "operator": "gt", "value": 50}],
            "actions": [
                {"type": "modify-variable", "variableId": "gold", "operation": "set", "value": 1},
                {"type": "toggle-entry", "entryId": "nope", "enabled": True},
            ],
        },
        {"id": "never", "maxFireCount": 0, "trigger": {"type": "turn-count"}, "actions": []},
    ],
}


def test_every_linter_finding_has_a_code():
    findings = lint_source(BROKEN)
    assert len(findings) >= 8
    assert [f.message for f in findings if f.said.code == "text"] == []


def test_validation_messages_have_codes():
    bad = {
        "name": 5,
        "entries": [
            {"id": "a", "position": "x", "enabled": "maybe", "keywords": "k", "depth": -1},
            {"id": "b", "section": "x"},
            {"id": "c", "conditions": [{"variableId": "v", "operator": "zz"}]},
        ],
        "variables": [
            {"id": "v", "type": "number", "defaultValue": 500, "min": 0, "max": 100},
            {"id": "w", "type": "number", "defaultValue": "x"},
            {"id": "Bad Id"},
        ],
        "rules": [
            {"id": "r", "trigger": {"type": "nope"}, "actions": [{"type": "modify-variable"}]},
            {"id": "s", "trigger": {}, "priority": 1.5},
        ],
        "settings": {"temperature": "hot", "lorebookScanDepth": -3, "maxTokens": 10**30},
    }
    with pytest.raises(WorldValidationError) as caught:
        load_world(bad)
    messages = [line.partition(": ")[2] for line in caught.value.errors]
    assert len(messages) >= 15
    assert [m for m in messages if coded(m).code == "text"] == []


def test_a_directive_skip_reason_has_a_code():
    world = load_world(BROKEN, check_references=False)
    reply = "[gold: +5] [audio: bgm] [audio: bgm foo x] <UpdateVariable></UpdateVariable> [hp: +1"
    skipped = extract_directives(world, reply).skipped
    assert [(coded(s.reason).code, dict(coded(s.reason).params)) for s in skipped] == [
        ("skip-unknown-variable", {"name": "gold"}),
        ("audio-needs-track", {}),
        ("audio-unknown-action", {"action": "foo"}),
        ("skip-empty-update", {}),
        (coded(skipped[-1].reason).code, {}),
    ]
    assert coded(skipped[-1].reason).code in ("skip-unterminated", "skip-cut-off")


def test_an_import_error_has_a_code_and_its_json_error_too():
    with pytest.raises(CardError) as caught:
        import_file(b'{"name": "x" "entries": []}', "broken.json")
    message = coded(caught.value.message)
    assert message.code == "import-invalid"
    assert coded(message.params["error"]).code == "json-delimiter"


def test_game_master_findings_have_codes():
    data = json.loads(GM_DEMO.read_text(encoding="utf-8"))
    npc = data["gameMaster"]["npcs"][0]
    npc["location"] = npc["home"] = "atlantis"
    found = [coded(f.message) for f in lint_source(data) if f.path.startswith("gameMaster")]
    assert [(m.code, dict(m.params)) for m in found] == [
        ("gm-unknown-location", {"name": "atlantis"}),
        ("gm-unknown-location", {"name": "atlantis"}),
    ]
