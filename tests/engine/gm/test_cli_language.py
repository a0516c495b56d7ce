"""``python -m engine gm`` in a Spanish or Chinese session of the English demo world (issue 33
§3): no English word of the world's names in what the player reads, the world's nouns taken
from its translations; the script's ``language`` is the session's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.gm.language import grammar
from tests.engine.gm.test_cli import run_cli, write
from tests.engine.gm.worlds import DEMO_PATH, demo_data

SCRIPTS = {
    "es": [
        "miro",
        "voy al sur",
        "leo el tablón",
        {"click": {"point": "well"}},
        "vuelvo al norte",
        "voy a la chimenea",
        "cojo la cuerda",
        "miro la barra",
        "hablo con la posadera",
        "pregunto a Hilda por el cáliz",
        "inventario",
        "diario",
    ],
    "zh": [
        "看看",
        "往南走",
        "看告示",
        {"click": {"point": "well"}},
        "往北走",
        "走到壁炉",
        "拿绳子",
        "看看吧台",
        "和老板娘说话",
        "问希尔达圣杯的事",
        "背包",
        "日志",
    ],
}
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


def english_names(language: str) -> set[str]:
    """The words of the world's English names (places, points, items, people and trades,
    clues, errands, the board and its notices) that its names in ``language`` do not share
    (a proper name like "Hilda" stays: a translation that leaves a name out keeps it), without
    the function words. An entity with no translation at all gives every word."""
    gm = demo_data()["gameMaster"]
    own: list[str] = []
    translated: list[str] = []

    def add(entity: dict[str, Any], *keys: str) -> None:
        own.extend(str(entity.get(k) or "") for k in keys)
        words = entity.get("translations", {}).get(language, {})
        translated.extend(str(words.get(k) or (entity.get(k) if words else "")) for k in keys)

    for place in gm["locations"]:
        add(place, "name")
        for point in place.get("points", []) + place.get("hiddenPoints", []):
            add(point, "name")
    for item in gm["items"]:
        add(item, "name")
    for npc in gm["npcs"]:
        add(npc, "name", "trade")
    for clue in gm["clues"]:
        add(clue, "name")
    for quest in gm["quests"]:
        add(quest, "title")
    for board in gm["boards"]:
        add(board, "name")
        for notice in board["notices"]:
            add(notice, "title")
    kept = {w.casefold() for w in _WORD.findall(" ".join(translated))}
    function = grammar("en").words("function")
    words = {w.casefold() for w in _WORD.findall(" ".join(own))}
    return {w for w in words if w not in kept and w not in function and len(w) > 2}


@pytest.fixture(scope="module", params=["es", "zh"])
def session(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    language = request.param
    tmp = tmp_path_factory.mktemp(f"gm-{language}")
    script = {"character": "ren", "language": language, "actions": SCRIPTS[language]}
    done = run_cli("--world", str(DEMO_PATH), "--script", write(tmp, "s.json", script))
    assert done.returncode == 0, done.stderr
    return language, [json.loads(line) for line in done.stdout.splitlines()]


def test_the_check_is_built_from_the_worlds_names():
    names = english_names("es")
    assert {"square", "tankard", "innkeeper", "chalice", "notice", "father"} <= names
    assert not {"hilda", "brant", "the", "of"} & names  # her name is hers in Spanish too
    assert {"hilda", "brant", "greta"} <= english_names("zh")  # 希尔达·布兰特


def test_no_english_word_of_the_worlds_names_in_what_the_player_reads(session):
    language, lines = session
    forbidden = english_names(language)
    for line in lines:
        read = [line["narration"], line["delivered_to"].get("ren", ""), *line["suggestions"]]
        said = {w.casefold() for w in _WORD.findall(" ".join(read))}
        assert not said & forbidden, (line["input"], sorted(said & forbidden), read)


def test_the_session_plays_the_script_in_its_language_at_no_cost(session):
    language, lines = session
    kinds = [line["kind"] for line in lines]
    assert kinds.count("engine") >= 9 and set(kinds) <= {"engine", "master"}
    assert all(line["model_calls"] <= 1 for line in lines)
    moved = {"es": "Vas hacia el sur, a Plaza del Mercado.", "zh": "你往南走，来到集市广场。"}
    assert lines[1]["narration"].startswith(moved[language])
    exits = {"es": "norte (La Posada del Caminante)", "zh": "北（旅人客栈）"}
    assert exits[language] in lines[1]["narration"]
    read = {"es": "Lees el tablón de anuncios:", "zh": "你读了告示板："}
    assert lines[2]["narration"].startswith(read[language])
    took = {"es": "Coges el rollo de cuerda.", "zh": "你拿起了麻绳。"}
    assert lines[6]["narration"] == took[language]


def test_the_event_log_stays_in_the_worlds_language(session):
    _, lines = session
    assert lines[6]["events"][0]["text"] == "Ren Ashby takes coil of rope."


def test_a_bad_language_exits_1_naming_it(tmp_path: Path):
    script = write(tmp_path, "s.json", {"language": 3, "actions": ["look"]})
    done = run_cli("--world", str(DEMO_PATH), "--script", script)
    assert done.returncode == 1 and "language must be a language code" in done.stderr
