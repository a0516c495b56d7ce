"""``python -m engine gm`` with two characters in one place (issue 32 §10): what one player
types never reaches the other seat, in ``delivered_to`` or in the other's own context; the
other reads what his character perceived, words only when they are said aloud, and NPCs by
the names he knows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.engine.gm.test_cli import run_cli, write
from tests.engine.gm.worlds import DEMO_PATH

# Ren walks into the square, where Ada stands beside Greta the moneylender, whose name Ada
# has never heard.
TYPED = [
    "I whisper to myself: the chalice is in my coat",
    "steal from Greta",
    {"roll": True},
    "tell Greta she owes me",
    "search my coat",
    "I think to myself: Greta suspects nothing",
]
ALOUD = 'I tell Ada: "meet me at the mill"'
SECRET_WORDS = ("chalice", "coat", "Greta", "suspects", "whisper", "owes")
REN_LOOKS = "A lean young man in a patched green coat"  # his public appearance (issue 33 §5)


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    actions: list[Any] = [{"character": "ren", "input": "go south"}]
    actions += [{"character": "ren", "input": typed} for typed in TYPED]
    actions += [{"character": "ren", "input": ALOUD}, {"character": "ada", "input": "look"}]
    path = write(
        tmp_path_factory.mktemp("seen"), "s.json", {"character": "ren", "actions": actions}
    )
    done = run_cli("--world", str(DEMO_PATH), "--script", path, "--seed", "5")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_json_contract_keeps_its_field_names(lines):
    assert all("delivered_to" in line and "context" in line for line in lines)
    # a stranger to her until someone names him (issue 33 §5)
    assert lines[0]["delivered_to"]["ada"] == f"{REN_LOOKS} arrives from The Wayfarer's Rest."


def test_the_other_seat_never_receives_what_the_actor_typed(lines):
    for line in lines[1 : 1 + len(TYPED)]:
        assert line["character"] == "ren"
        # how she sees him before she learns his name: his coat is not the one he typed of
        told = line["delivered_to"].get("ada", "").replace(REN_LOOKS, "He")
        if isinstance(line["input"], str):
            assert line["input"] not in told
        for word in SECRET_WORDS:
            assert word.casefold() not in told.casefold(), (line["input"], told)


def test_the_other_seat_reads_what_it_perceived_and_names_as_it_knows_them(lines):
    talk = lines[4]  # "tell Greta she owes me": Ada sees him talk with someone she cannot name
    # and hears the moneylender call him Ren: from then on she knows his name (issue 33 §5)
    told = talk["delivered_to"]["ada"].splitlines()
    assert told[0] == "Ren Ashby talks with the moneylender."
    assert all(t.startswith(("Ren Ashby", "The moneylender")) for t in told)
    assert "Greta" in talk["delivered_to"]["ren"]  # Ren knows her name


def test_words_said_aloud_reach_the_one_who_hears_them(lines):
    aloud = lines[-2]
    assert aloud["input"] == ALOUD
    assert aloud["delivered_to"]["ada"].splitlines()[0] == "Ren Ashby: “meet me at the mill”"
    assert "I tell Ada" not in aloud["delivered_to"]["ada"]


def test_the_other_seats_own_context_holds_none_of_it(lines):
    look = lines[-1]
    assert look["character"] == "ada"
    context = look["context"]
    assert "Ren Ashby: “meet me at the mill”" in context  # what she heard
    for typed in [*TYPED, ALOUD]:
        if isinstance(typed, str):
            assert typed not in context
    assert "Greta" not in context and "the moneylender" in context
