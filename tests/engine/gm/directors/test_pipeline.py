"""One turn through the three directors (seed 003; issue 12 §1, §6): the route, the Story
Director skipped on plain talk, a malformed synopsis, revealed secrets reaching their witnesses
only, the line for the player, the Scene Director's fallback and the ``--trace`` labels."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engine.gm.memory import memories
from engine.gm.world import Place
from tests.engine.gm.directors.campaigns import ROOT, WORLDS
from tests.engine.gm.directors.support import (
    Directors,
    close,
    new_session,
    play,
    report,
    say,
    story,
    world,
)
from tests.engine.gm.worlds import demo_world

BAKERY = story("Greta serves bread.", "greta", "bakery")
MIRA = "Mira is a vampire who has not aged since 1702"


def test_a_plot_turn_runs_the_three_directors_in_order():
    vampire = world("vampire")
    provider = Directors(
        game=[close("Mira greets Greta.")], story=[BAKERY], scene=[say("greta", "Hi.")]
    )
    result = play(vampire, new_session(vampire), "mira", "Morning, Greta.", provider)
    assert provider.labels == ["game", "story", "scene"]
    assert result.model_calls == 3 and result.kind == "master"
    assert report(result)["route"] == "plot" and report(result)["story"] is True
    bubble = result.events[-1].data["bubbles"][0]
    assert (bubble["speaker"], bubble["text"]) == ("greta", "Hi.")


def test_plain_talk_skips_the_story_director():
    vampire = world("vampire")
    provider = Directors(
        game=[close("Mira greets Greta."), close("Mira chats.")],
        story=[BAKERY],
        scene=[say("greta", "Hi."), say("greta", "Warm rye today.")],
    )
    first = play(vampire, new_session(vampire), "mira", "Morning, Greta.", provider)
    second = play(vampire, first.state, "mira", "Is the rye warm?", provider)
    assert provider.labels[3:] == ["game", "scene"]
    assert report(second) | {"reasons": None} == report(second) | {
        "route": "continue",
        "story": False,
        "reasons": None,
    }
    assert second.model_calls == 2


def test_a_malformed_synopsis_never_breaks_the_turn():
    vampire = world("vampire")
    provider = Directors(
        game=[close("Mira greets Greta.")],
        story=[{"text": "<synopsis><npc_list>nobody, <<<"}],
        scene=[say("greta", "Hi.")],
    )
    result = play(vampire, new_session(vampire), "mira", "Morning, Greta.", provider)
    assert report(result)["problems"] == ["no-location", "npc-not-here:nobody"]
    assert report(result)["npcs"] == []  # the Scene Director voices nobody it was not given
    assert provider.labels == ["game", "story", "scene"]
    assert result.narration == "“Hi.”"  # words of someone not in the scene stay plain text


def test_without_any_synopsis_everyone_present_is_in_the_scene():
    vampire = world("vampire")
    provider = Directors(
        game=[close("Mira greets Greta.")], story=[{"text": "oops"}], scene=[say("greta", "Hi.")]
    )
    result = play(vampire, new_session(vampire), "mira", "Morning, Greta.", provider)
    assert report(result)["npcs"] == ["greta"] and "no-synopsis" in report(result)["problems"]


def test_a_revealed_secret_reaches_its_witnesses_and_nobody_else():
    vampire = world("vampire")
    state = new_session(vampire)
    state.gm.characters["mira"].location = "chapel"
    state.gm.npc_places["greta"] = Place(location="chapel")
    reveal = '<reveal secret="character:mira:1" to="anselm"/>'
    provider = Directors(
        game=[close("Mira kneels.", "plot"), close("Mira greets Hale."), close("Mira waves.")],
        story=[
            story("Anselm sees no reflection.", "anselm, greta", "chapel", more=reveal),
            story("Hale is bored.", "hale", "square"),
            story("Greta joins Hale.", "hale, greta", "square"),
        ],
        scene=[say("anselm", "What are you?"), say("hale", "Morning."), say("greta", "Hi!")],
    )
    result = play(vampire, state, "mira", "I kneel by the font.", provider)
    assert MIRA in provider.texts("scene")[0]  # Anselm knows it at once, in this scene
    result = play(vampire, result.state, "mira", "go to the square", provider)
    result = play(vampire, result.state, "mira", "Good day, constable.", provider)
    memo = result.state.gm.directors
    assert [k.ref for k in memo.known["anselm"]] == ["character:mira:1"]
    assert "greta" not in memo.known and "hale" not in memo.known
    remembered = memories(vampire.game_master, result.state.gm, "anselm")
    assert [m.importance for m in remembered if MIRA in m.text] == [3]
    assert not any(MIRA in m.text for m in memories(vampire.game_master, result.state.gm, "greta"))
    result.state.gm.npc_places["greta"] = Place(location="square")
    result = play(vampire, result.state, "mira", "Hello, Greta!", provider)
    assert report(result)["reasons"] == ["newcomer:greta"]
    assert all(MIRA not in text for text in provider.texts("scene")[1:])


def test_a_confidence_is_heard_only_by_its_witnesses():
    heist = world("heist")
    state = new_session(heist)
    state.gm.characters["tamsin"].location = "pawnshop"
    reveal = {
        "text": "<route>plot</route>",
        "tool_calls": [{"name": "reveal_secret", "arguments": {"npc": "orla"}}],
    }
    provider = Directors(
        game=[reveal, {"tool_calls": [close("Orla confides in Tamsin.")["tool_calls"][0]]}],
        story=[story("Orla whispers her secret.", "orla", "pawnshop")],
        scene=[say("orla", "I inform for the city watch, love.", "Orla leans close.")],
    )
    result = play(heist, state, "tamsin", "Orla, is your shop safe?", provider)
    master = next(e for e in result.events if e.kind == "master")
    assert "informs for the city watch" in provider.texts("scene")[0]
    assert master.text == "Orla leans close." and "bram" not in master.seen_by
    aside = next(e for e in result.events if e.kind == "aside")
    assert aside.seen_by == ["bram"] and "city watch" not in aside.text


def test_the_line_for_the_player_is_written_from_his_view_not_the_story_directors_words():
    vampire = world("vampire")
    ooc = "<ooc>pace</ooc>"
    provider = Directors(
        game=[close("Mira greets Greta.")],
        story=[story("Greta serves bread.", "greta", "bakery", more=ooc)],
        scene=[say("greta", "Hi.")],
        ooc=[{"text": "You can end this scene whenever you like."}],
    )
    result = play(vampire, new_session(vampire), "mira", "Morning, Greta.", provider)
    assert provider.labels == ["game", "story", "scene", "ooc"] and result.model_calls == 4
    assert report(result)["ooc"] == "You can end this scene whenever you like."
    request = provider.texts("ooc")[0]
    assert "the scene can end whenever he likes" in request and "Greta Holm: Hi." in request


def test_the_story_directors_notes_are_its_own():
    vampire = world("vampire")
    provider = Directors(
        game=[close("Mira greets Greta."), close("Mira waves.", "plot")],
        story=[
            story("Greta serves.", "greta", "bakery", more="<notes>NOTE-FOR-LATER</notes>"),
            story("Greta waves back.", "greta", "bakery", new=False),
        ],
        scene=[say("greta", "Hi."), say("greta", "Bye.")],
    )
    first = play(vampire, new_session(vampire), "mira", "Morning, Greta.", provider)
    play(vampire, first.state, "mira", "I wave.", provider)
    assert "NOTE-FOR-LATER" in provider.texts("story")[1]
    assert all("NOTE-FOR-LATER" not in t for t in provider.texts("scene"))


def test_after_two_rejections_the_game_directors_account_is_shown():
    vampire = world("vampire")
    late = {"text": "Hours later, night falls over the bakery."}
    provider = Directors(game=[close("Mira greets Greta.")], story=[BAKERY], scene=[late, late])
    result = play(vampire, new_session(vampire), "mira", "Morning, Greta.", provider)
    assert provider.labels == ["game", "story", "scene", "scene"]
    assert "rejected" in provider.requests[-1].messages[-1].content
    assert result.narration == "Mira greets Greta." and report(result)["scene_fallback"] is True


def test_a_world_without_directors_keeps_the_one_master():
    demo = demo_world()
    provider = Directors(master=[close("You hum.")])
    result = play(demo, new_session(demo), "ada", "I hum an old song", provider)
    assert provider.labels == ["master"] and "directors" not in result.changes


def _write(tmp: Path, name: str, data: object) -> str:
    path = tmp / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_the_trace_labels_every_request_with_its_director(tmp_path):
    script = {"character": "mira", "actions": ["Morning, Greta.", "Is the rye warm?"]}
    replies = [
        close("Mira greets Greta."),
        BAKERY,
        say("greta", "Hi."),
        close("Mira chats."),
        say("greta", "Warm."),
    ]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "gm",
            "--world",
            str(WORLDS / "vampire.json"),
            "--script",
            _write(tmp_path, "s.json", script),
            "--replies",
            _write(tmp_path, "r.json", replies),
            "--trace",
            "--seed",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    traced = [json.loads(line) for line in done.stderr.splitlines()]
    assert [t["director"] for t in traced] == ["game", "story", "scene", "game", "scene"]
    assert all({"call", "director", "messages", "tools", "tool_choice"} <= set(t) for t in traced)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["changes"]["directors"]["route"] for line in lines] == ["plot", "continue"]
