"""The actor of the five-layer talk flow (seed 001 "Director y actor (apagado)"; issue 33 §6): a
second request plays the NPC's lines when the world sets ``actorModel``, from a context without
its secret; two failed checks keep the master's lines; ``--trace`` lists its requests."""

from __future__ import annotations

import json
from typing import Any

from engine.gm.actor import EXCHANGES, actor_prompt, actor_view
from engine.gm.memory import remember
from engine.gm.state import log_event
from engine.gm.talk_turn import start_talk
from engine.world import WorldDefinition, load_world
from tests.engine.gm.test_cli import run_cli, write
from tests.engine.gm.test_talk_flow import Scripted, bubble_of, closing
from tests.engine.gm.worlds import demo_data, new_state, play, scene_for

PLANTED = "Zorblax the ninth buried the ledger under the quince tree"


def actor_world(on: bool = True, secret: str = PLANTED) -> WorldDefinition:
    data: dict[str, Any] = json.loads(json.dumps(demo_data()))
    data["gameMaster"].setdefault("settings", {})["actorModel"] = on
    hilda = next(n for n in data["gameMaster"]["npcs"] if n["id"] == "hilda")
    hilda["secret"]["text"] = secret
    return load_world(data)


def live(world: WorldDefinition, provider: Scripted, text: str = "Hello, Hilda."):
    return play(world, new_state(world), text, "ren", provider=provider)


def test_the_actor_plays_the_npcs_lines_when_the_world_turns_it_on():
    provider = Scripted(closing("Good to see you, Ren."), "Ren! Sit down, the stew is hot.")
    result = live(actor_world(), provider)
    assert [r.director for r in provider.requests] == [None, "actor"]
    actor = provider.requests[1]
    assert actor.tools is None and "Good to see you, Ren." in actor.messages[1].content
    assert result.model_calls == 2 and bubble_of(result) == "Ren! Sit down, the stew is hot."


def test_no_actor_request_when_the_setting_is_off():
    provider = Scripted(closing("Good to see you, Ren."))
    result = live(actor_world(on=False), provider)
    assert len(provider.requests) == 1 and result.model_calls == 1
    assert bubble_of(result) == "Good to see you, Ren."


def test_the_setting_is_off_by_default():
    world = load_world(json.loads(json.dumps(demo_data())))
    assert world.game_master is not None and world.game_master.settings.actor_model is False


def test_a_planted_secret_never_reaches_the_actor_request():
    provider = Scripted(closing("Good to see you, Ren."), "Ren! Sit down.")
    live(actor_world(), provider, "Hilda, what are you hiding?")
    sent = json.dumps([m.to_dict() for m in provider.requests[1].messages])
    assert provider.requests[1].director == "actor"
    assert "Zorblax" not in sent and "quince" not in sent


def test_two_failed_checks_keep_the_masters_lines():
    provider = Scripted(closing("Good to see you, Ren."), "Who are you?", "And who might you be?")
    result = live(actor_world(), provider)
    assert [r.director for r in provider.requests] == [None, "actor", "actor"]
    assert "it asks who he is, but it knows him" in provider.requests[2].messages[1].content
    assert result.model_calls == 3 and bubble_of(result) == "Good to see you, Ren."


def test_a_failed_first_try_then_a_good_one_is_kept():
    provider = Scripted(closing("Good to see you, Ren."), "Who are you?", "Ren. Sit, sit.")
    result = live(actor_world(), provider)
    assert result.model_calls == 3 and bubble_of(result) == "Ren. Sit, sit."


def test_lines_that_give_the_secret_away_are_rejected():
    tell = "Zorblax the ninth buried the ledger under the quince tree."
    provider = Scripted(closing("Good to see you, Ren."), tell, tell)
    result = live(actor_world(), provider)
    assert "gives away something it keeps secret" in provider.requests[2].messages[1].content
    assert bubble_of(result) == "Good to see you, Ren."


def test_a_promise_the_master_did_not_make_is_rejected():
    provider = Scripted(closing("Good to see you, Ren."), "Ren! I'll meet you at the mill.", "Ren.")
    result = live(actor_world(), provider)
    assert "promises to go somewhere" in provider.requests[2].messages[1].content
    assert bubble_of(result) == "Ren."


def test_the_actor_reads_its_memories_of_him_and_at_most_ten_exchanges():
    world = actor_world()
    state = new_state(world)
    scene = scene_for(world, state, "ren")
    remember(scene.gm, scene.state, "hilda", "ren", "Ren paid his tab in full.", 2)
    for n in range(8):
        log_event(
            scene.state,
            "action",
            "ren",
            scene.me.location,
            f'Ren Ashby: "line {n}"',
            seen_by=["ren"],
            data={"talk": "hilda"},
        )
        bubble = {"speaker": "hilda", "name": "Hilda", "text": f"answer {n}"}
        log_event(
            scene.state,
            "talk",
            "hilda",
            scene.me.location,
            "",
            seen_by=["ren"],
            data={"bubbles": [bubble]},
        )
    event = log_event(scene.state, "action", "ren", scene.me.location, "x", seen_by=["ren"])
    turn = start_talk(scene, "Hello, Hilda.", event)
    assert turn is not None
    view = actor_view(scene, turn.script, event, "Good to see you.")
    assert view is not None and len(view.exchanges) == EXCHANGES
    assert view.exchanges[0].text == "line 3" and view.exchanges[-1].text == "answer 7"
    assert view.memories == ("Ren paid his tab in full.",)
    assert "Ren paid his tab in full." in actor_prompt(view)


def test_master_lines_that_already_tell_the_secret_call_no_actor():
    provider = Scripted(closing("Zorblax the ninth buried the ledger under the quince tree."))
    result = live(actor_world(), provider)
    assert len(provider.requests) == 1 and result.model_calls == 1


def test_trace_lists_the_actor_request(tmp_path):
    world = write(tmp_path, "w.json", json.loads(actor_world().model_dump_json(by_alias=True)))
    master = {
        "text": "",
        "tool_calls": [
            {
                "name": "log_event",
                "arguments": {
                    "narration": "Hilda looks up.",
                    "bubbles": [{"speaker": "hilda", "text": "Ren. Sit."}],
                },
            }
        ],
    }
    replies = write(tmp_path, "r.json", [master, {"text": "Ren! The stew is hot."}])
    script = write(tmp_path, "s.json", {"character": "ren", "actions": ["Hello, Hilda."]})
    done = run_cli("--world", world, "--script", script, "--seed", "1",
                   "--replies", replies, "--trace")  # fmt: skip
    assert done.returncode == 0, done.stderr
    traced = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    assert [t["director"] for t in traced] == ["master", "actor"]
    assert "Zorblax" not in json.dumps(traced[1])
    [line] = [json.loads(x) for x in done.stdout.splitlines()]
    assert line["model_calls"] == 2
