"""engine.gm.sheet and engine.gm.readmoves: inventory, character sheet, journal and reading one
notice are engine moves at zero model calls, in every mode and in en, es and zh (issue 33 §1)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.gm.play import ensure_gm_state
from engine.gm.readmoves import read_ask, readbook
from engine.gm.words import LEXICON_DIR
from engine.gm.world import JournalEntry, Resource
from engine.session import SessionState
from tests.engine.gm.test_cli import run_cli, write
from tests.engine.gm.test_play import CountingProvider
from tests.engine.gm.worlds import DEMO_PATH, demo_world, new_state, play, tiny_world

LANGS = ["en", "es", "zh"]
ENGLISH_WORDS = ("You ", "Purse", "coins", "In hand", "Hit points", "Quests", "Debts", "notice")


def ren_state(**changes: Any) -> SessionState:
    """The demo's session with Ren's sheet changed (``changes``: CharacterState fields)."""
    world = demo_world()
    state = new_state(world)
    gm = ensure_gm_state(world, state, 1)
    for key, value in changes.items():
        setattr(gm.characters["ren"], key, value)
    return state


def read(text: str, state: SessionState | None = None, language: str = "en", **options: Any):
    world = demo_world()
    return play(world, state or new_state(world), text, "ren", language=language, **options)


# --- the moves ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("what am I carrying?", "en", "You carry: dagger. In hand: dagger. Purse: 3 coins."),
        ("¿qué llevo?", "es", "Llevas: daga. En la mano: daga. Bolsa: 3 monedas."),
        ("我身上有什么", "zh", "你带着：匕首。手里拿着：匕首。钱袋：3枚钱币。"),
    ],
)
def test_inventory_lists_what_he_carries_holds_and_his_purse_at_no_cost(text, language, expected):
    result = read(text, language=language)
    assert (result.kind, result.model_calls, result.narration) == ("engine", 0, expected)


def test_inventory_counts_the_same_thing_twice_and_a_gathered_stock():
    world = tiny_world(
        items=[
            {"id": "arrow-1", "name": "arrow", "at": {"character": "kai"}},
            {"id": "arrow-2", "name": "arrow", "at": {"character": "kai"}},
            {"id": "sword", "name": "sword", "at": {"character": "kai"}},
        ]
    )
    state = new_state(world)
    ensure_gm_state(world, state, 1).characters["kai"].resources["herbs"] = Resource(current=3)
    result = play(world, state, "inventory", "kai")
    assert result.narration.startswith("You carry: arrow ×2, sword, herbs ×3. In hand: sword.")


def test_the_sheet_shows_hit_points_and_conditions_as_play_left_them():
    state = ren_state(hp=4, conditions=["poisoned"])
    en = read("my stats", state).narration
    assert "Hit points 4/9, armour class 14." in en and "Conditions: poisoned." in en
    assert "Dexterity 16 (+3)" in en and "Stealth +5" in en and "Purse: 3 coins." in en
    es = read("mi ficha", state, "es").narration
    assert "Puntos de golpe 4/9" in es and "Estados: envenenado." in es
    assert "Destreza 16 (+3)" in es and "Sigilo +5" in es
    zh = read("看看属性", state, "zh").narration
    assert "生命值 4/9" in zh and "状态：中毒。" in zh and "敏捷 16（+3）" in zh


def test_the_journal_holds_quests_with_their_status_clues_notices_and_debts():
    state = ren_state(
        clues=["wet-footprints"],
        completed=["stray-dog"],
        journal=[
            JournalEntry(kind="quest", ref="find-chalice", title="The missing chalice"),
            JournalEntry(kind="quest", ref="stray-dog", title="Whose dog?"),
            JournalEntry(kind="notice", ref="carters-wanted", title="Escort for the carts"),
        ],
    )
    text = read("journal", state).narration
    assert text.splitlines() == [
        "Quests:",
        "- The missing chalice (in progress): Father Aldric offers 20 silver for the "
        "chapel's chalice.",
        "- Whose dog? (done): A stray dog haunts the east road; someone should find its owner.",
        "- Trouble on the East Road (in progress): Hilda wants the east road safe for the carts "
        "again.",
        "Notices read:",
        "- Escort for the carts",
        "Clues:",
        "- Wet footprints: Damp footprints lead from the back door to the rug before the hearth.",
        "Debts:",
        "- You owe Greta Vell 12 coins, due on day 3.",
        "- Pawned with Greta Vell: silver signet ring (12 coins to redeem it).",
    ]


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("who do I owe?", "en", "Debts:\n- You owe Greta Vell 12 coins, due on day 3."),
        ("¿qué pistas tengo?", "es", "Aún no has encontrado ninguna pista."),
        ("我的任务", "zh", "你还没有接下任何任务。"),
    ],
)
def test_asking_for_one_part_of_the_journal_shows_that_part(text, language, expected):
    assert read(text, language=language).narration.startswith(expected)


@pytest.mark.parametrize(
    ("text", "language"),
    [("inventory", "es"), ("journal", "es"), ("my stats", "es")]
    + [(t, "zh") for t in ("inventory", "journal", "my stats")],
)
def test_a_spanish_or_chinese_session_reads_no_english_engine_word(text, language):
    """World nouns come from the world in the session's language (daga, 匕首, Greta Vell,
    格蕾塔·维尔; issue 33 §3, engine.gm.localize); the engine's words are the language's own.
    The English text is read in the session's language first: "inventory" typed in a Spanish
    session is still answered in English, so the moves are typed in it."""
    typed = {"inventory": ("inventario", "背包"), "journal": ("diario", "日志")}
    typed["my stats"] = ("mis estadísticas", "我的属性")
    said = typed[text][0 if language == "es" else 1]
    result = read(said, language=language)
    assert (result.kind, result.model_calls) == ("engine", 0)
    nouns = ("daga", "匕首", "Greta Vell", "格蕾塔·维尔", "Ren Ashby")
    assert any(noun in result.narration for noun in nouns)
    assert not any(word in result.narration for word in ENGLISH_WORDS), result.narration


# --- reads change nothing ------------------------------------------------------------------


@pytest.mark.parametrize("text", ["i", "check my bag", "my stats", "journal", "my debts"])
def test_a_read_changes_nothing_logs_nothing_and_nobody_else_perceives_it(text):
    world = demo_world()
    state = new_state(world)
    ensure_gm_state(world, state, 1).characters["ada"].location = "the-wayfarer"  # at his side
    before = state.gm.model_dump(mode="json") if state.gm else None
    result = play(world, state, text, "ren")
    assert (result.kind, result.events, result.changes) == ("engine", [], {})
    assert result.state.gm is not None and result.state.gm.model_dump(mode="json") == before
    assert set(result.delivered_to) == {"ren"}


def test_a_read_leaves_a_roll_waiting():
    world = demo_world()
    pending = play(world, new_state(world), "climb the hearth", "ren")
    assert pending.pending is not None
    result = play(world, pending.state, "inventory", "ren")
    assert result.state.gm is not None and "ren" in result.state.gm.pending
    assert "pending" not in result.changes


# --- one notice ----------------------------------------------------------------------------


def at_the_square() -> SessionState:
    return read("go south").state


def test_reading_one_notice_puts_that_notice_alone_in_the_journal():
    result = read("read the notice about the stray dog", at_the_square())
    assert (result.kind, result.model_calls) == ("engine", 0)
    assert result.narration == (
        "You read a notice on the board: “Stray dog”. Grey dog, rope collar, seen on the East "
        "Road. Owner please collect. It goes into your journal."
    )
    assert result.changes == {"journal": {"added": ["stray-dog"]}}
    assert result.state.gm is not None
    assert [j.ref for j in result.state.gm.characters["ren"].journal] == ["stray-dog"]
    [event] = result.events
    assert event.text == "Ren Ashby reads a notice on the notice board."
    assert "greta" in event.seen_by  # reading a board is done in public
    again = read("read the dog notice", result.state)
    assert again.narration.endswith("It is already in your journal.") and again.changes == {}


@pytest.mark.parametrize(
    ("text", "language", "notice"),
    [
        ("leo el aviso del cáliz", "es", "reward-chalice"),
        ("读一下关于圣杯的告示", "zh", "reward-chalice"),
        ("read Hilda's notice", "en", "carters-wanted"),
        ("read the notice from the priest", "en", "reward-chalice"),
    ],
)
def test_a_notice_is_found_through_the_worlds_own_names(text, language, notice):
    """ "cáliz" and "圣杯" are aliases of the chalice: the notice naming it is the one read."""
    result = read(text, at_the_square(), language)
    assert result.changes == {"journal": {"added": [notice]}}, result.narration


def test_a_notice_that_is_not_on_the_board_is_refused_with_the_notices():
    result = read("read the notice about dragons", at_the_square())
    assert (result.kind, result.changes) == ("refused", {})
    assert result.narration == (
        'No notice on the board matches "dragons". The notices: Reward: the chapel\'s chalice, '
        "Escort for the carts, Stray dog."
    )


def test_a_notice_where_there_is_no_board_is_refused():
    result = read("read the notice about the dog")
    assert (result.kind, result.narration) == ("refused", "There is no notice board here.")


def test_the_notices_without_a_name_are_the_whole_board():
    assert read_ask("read the notice", "en") is not None
    result = read("read the notice", at_the_square())
    assert result.changes == {
        "journal": {"added": ["reward-chalice", "carters-wanted", "stray-dog"]}
    }


# --- live: still the engine's, and the master knows the facts ------------------------------------


def test_live_the_reads_make_no_model_call_and_the_master_gets_the_journal_as_facts():
    provider = CountingProvider()
    state = ren_state(clues=["wet-footprints"])
    for text in ("inventory", "my stats", "journal", "¿qué llevo?", "我的日志"):
        result = read(text, state, provider=provider)
        assert (result.kind, result.model_calls) == ("engine", 0)
    assert provider.requests == []
    master = read("I hum an old song", state, provider=provider)
    assert master.model_calls == 1
    context = provider.requests[0].messages[1].content
    assert "carrying: dagger" in context and "money 3" in context and "HP 9/9" in context
    assert "- clue known: Wet footprints" in context
    assert "- owes Greta Vell 12 coins, due on day 3" in context


def test_the_cli_plays_the_reads_at_zero_model_calls_even_with_a_scripted_master(tmp_path):
    """``--replies []``: any model call would exhaust the replies and exit 1."""
    actions = ["inventory", "my stats", "journal", "go south", "read the notice about the dog"]
    script = write(tmp_path, "s.json", {"character": "ren", "actions": actions})
    for extra in ([], ["--replies", write(tmp_path, "r.json", [])]):
        done = run_cli("--world", str(DEMO_PATH), "--script", script, "--seed", "7", *extra)
        assert done.returncode == 0, done.stderr
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        assert [(line["kind"], line["model_calls"]) for line in lines] == [("engine", 0)] * 5
        assert lines[0]["narration"] == "You carry: dagger. In hand: dagger. Purse: 3 coins."
        assert lines[-1]["changes"] == {"journal": {"added": ["stray-dog"]}}


def test_every_read_template_is_written_in_each_language():
    """A missing key would fall back to English in a Spanish or Chinese session."""
    books = {code: readbook(code) for code in LANGS}
    english = set(books["en"].templates)
    for code in ("es", "zh"):
        own = json.loads((LEXICON_DIR / f"reads.{code}.json").read_text(encoding="utf-8"))
        assert set(own["templates"]) == english, code
