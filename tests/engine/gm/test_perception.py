"""engine.gm.perception: the scene context holds what the character perceives, never a secret."""

from __future__ import annotations

import dataclasses

import pytest

from engine.gm.perception import perceive, scene_context
from engine.gm.play import ensure_gm_state
from engine.gm.state import GMState, log_event
from engine.gm.trust import START_SCORES
from engine.gm.views import NpcView, SceneView
from engine.gm.world import TRUST_LEVELS, GameMaster
from engine.tokens import estimate_tokens
from engine.world import WorldDefinition, load_world
from tests.engine.gm.worlds import demo_world, new_state, play_all, tiny_gm, tiny_world


def setup(world: WorldDefinition) -> tuple[GameMaster, GMState]:
    state = new_state(world)
    gm_state = ensure_gm_state(world, state, 1)
    assert world.game_master is not None
    return world.game_master, gm_state


def context_of(world: WorldDefinition, character: str = "kai", **kw: object) -> str:
    gm, state = setup(world)
    return scene_context(perceive(gm, state, character, **kw))  # type: ignore[arg-type]


def test_each_thing_carries_its_band():
    gm, state = setup(demo_world())
    view = perceive(gm, state, "ren")
    assert {p.band for p in view.points} == {"seen"}
    assert [t.name for t in view.things] == ["coil of rope", "pewter tankard"]
    assert [(s.text, s.band) for s in view.sounds] == [("Mugs clink and the fire pops.", "heard")]
    assert [(w.direction, w.to_name, w.locked, w.band) for w in view.ways] == [
        ("south", "Market Square", False, "nearby"),
        ("down", "The Wayfarer's Cellar", True, "nearby"),
    ]
    context = scene_context(view)
    assert "Seen here:\n- point the bar: Polished oak" in context
    assert "Heard:\n- Mugs clink and the fire pops." in context
    assert (
        "Nearby (ways on):\n- south: Market Square\n- down: The Wayfarer's Cellar (locked)"
        in context
    )


def test_an_npc_says_only_what_it_would_tell_at_the_current_trust():
    gm, state = setup(tiny_world())
    guard = perceive(gm, state, "kai").npcs[0]
    assert guard.trust == "stranger" and guard.tells == ("The vault is locked.",)
    assert [(w.secret, w.would_tell) for w in guard.withholds] == [
        (False, "someone it trusts as friend"),
        (True, "his captain"),
    ]
    state.trust["guard"] = {"kai": START_SCORES["friend"]}
    friend = perceive(gm, state, "kai").npcs[0]
    assert friend.tells == ("The vault is locked.", "FRIEND-ONLY")
    assert [w.secret for w in friend.withholds] == [True]


def test_the_context_says_that_an_npc_withholds_and_to_whom_never_what():
    context = context_of(tiny_world())
    assert "keeps back something more: would tell it to someone it trusts as friend" in context
    assert "keeps back a secret: would tell it to his captain" in context
    assert "FRIEND-ONLY" not in context and "SECRET-BORS" not in context


def test_an_npc_whose_name_is_unknown_goes_by_its_trade():
    context = context_of(tiny_world())
    assert "- the guard (name not known) [guard]" in context


def test_clues_he_can_get_are_listed_with_text_and_those_awaiting_a_check_without():
    gm = tiny_gm()
    gm["clues"] = [
        {"id": "ready", "name": "Ready", "text": "READY-TEXT", "anchor": {"location": "hall"}},
        {
            "id": "checked",
            "name": "Checked",
            "text": "CHECK-TEXT",
            "anchor": {"npc": "guard"},
            "requires": [{"type": "check", "check": "insight", "dc": 12}],
        },
        {
            "id": "locked",
            "name": "Locked",
            "text": "LOCKED-TEXT",
            "anchor": {"location": "hall"},
            "requires": [{"type": "trust", "npc": "guard", "atLeast": "ally"}],
        },
        {"id": "far", "name": "Far", "text": "FAR-TEXT", "anchor": {"location": "yard"}},
    ]
    context = context_of(load_world({"name": "T", "gameMaster": gm}))
    assert "- Ready: READY-TEXT" in context
    assert "- Checked: needs a check (insight DC 12); its content comes after it" in context
    assert "CHECK-TEXT" not in context and "LOCKED-TEXT" not in context
    assert "FAR-TEXT" not in context


def test_errands_come_one_line_each():
    world = demo_world()
    result = play_all(world, ["read the notices"], "ada")[-1]
    assert result.state.gm is not None
    view = perceive(world.game_master, result.state.gm, "ada")  # type: ignore[arg-type]
    assert view.errands[0] == (
        "Reward: the chapel's chalice: 20 silver for its return, no questions asked. "
        "Ask at the chapel."
    )
    assert len(view.errands) == 3


def test_only_the_last_six_events_he_perceived():
    gm, state = setup(tiny_world())
    for n in range(9):
        log_event(state, "x", "kai", "hall", f"seen {n}", seen_by=["kai"])
    log_event(state, "x", "lin", "yard", "unseen", seen_by=["lin"])
    log_event(state, "x", "lin", "yard", "a shout", seen_by=["lin"], heard_by=["kai"])
    events = perceive(gm, state, "kai").events
    assert [(e.text, e.band) for e in events] == [
        ("seen 4", "seen"),
        ("seen 5", "seen"),
        ("seen 6", "seen"),
        ("seen 7", "seen"),
        ("seen 8", "seen"),
        ("You hear noise nearby.", "heard"),  # a sound, not who shouted what (engine.gm.seen)
    ]


def test_a_warning_when_nobody_witnesses():
    assert "No witnesses" in context_of(tiny_world(), "lin")  # alone in the yard
    assert "No witnesses" not in context_of(tiny_world(), "kai")  # the guard is there
    gm = tiny_gm()
    gm["locations"][1]["witness"] = True
    assert "No witnesses" not in context_of(load_world({"name": "T", "gameMaster": gm}), "lin")


def test_hidden_points_appear_only_once_discovered():
    gm, state = setup(tiny_world())
    assert "panel" not in scene_context(perceive(gm, state, "kai")).lower()
    state.characters["kai"].discovered.append("hall:panel")
    view = perceive(gm, state, "kai")
    assert [p.name for p in view.points] == ["the long table", "a sliding panel"]
    assert "gold coin" in [t.name for t in view.things]


def test_another_player_character_shows_only_its_public_sheet():
    world = demo_world()
    context = context_of(world, "ren", location="square")
    assert "- player character Ada Thorne: A tall woman in a grey travelling cloak" in context
    assert "bishop" not in context  # Ada's secret and background


def test_the_studio_preview_can_place_the_character_anywhere():
    gm, state = setup(demo_world())
    view = perceive(gm, state, "ren", location="chapel")
    assert view.place.id == "chapel"
    assert state.characters["ren"].location == "the-wayfarer"
    with pytest.raises(KeyError):
        perceive(gm, state, "ren", location="moon")


def test_view_types_have_no_field_for_a_secret():
    names = {f.name for cls in (NpcView, SceneView) for f in dataclasses.fields(cls)}
    assert not names & {"secret", "secrets", "hidden_points", "gm_notes", "motivation"}


def _planted_world() -> WorldDefinition:
    gm = tiny_gm()
    gm["campaign"] = {"gmNotes": "SECRET-GMNOTES", "sessionPlan": "SECRET-PLAN"}
    gm["locations"][1]["hiddenPoints"] = [
        {
            "id": "well",
            "name": "SECRET-HIDDEN-NAME",
            "description": "SECRET-HIDDEN-DESC",
            "foundBy": {"check": "perception", "dc": 20},
        }
    ]
    gm["characters"][1]["full"] = {"background": "SECRET-BACKGROUND", "secrets": ["SECRET-LIN"]}
    gm["clues"] = [
        {
            "id": "c",
            "name": "SECRET-CLUE-NAME",
            "text": "SECRET-CLUE",
            "anchor": {"npc": "guard"},
            "requires": [{"type": "item", "item": "purse"}],
        }
    ]
    for npc in gm["npcs"]:
        npc["secret"]["text"] = "SECRET-NPC"
    gm["locations"][0]["hiddenPoints"][0]["name"] = "SECRET-PANEL"
    return load_world({"name": "T", "gameMaster": gm})


@pytest.mark.parametrize("level", TRUST_LEVELS)
def test_no_planted_secret_reaches_any_context(level):
    world = _planted_world()
    gm, state = setup(world)
    for npc in gm.npcs:
        state.trust[npc.id] = {c.id: START_SCORES[level] for c in gm.characters}
    for character in gm.characters:
        for location in gm.locations:
            context = scene_context(perceive(gm, state, character.id, location=location.id))
            assert "SECRET" not in context, (character.id, location.id)


def _demo_secrets(gm: GameMaster) -> list[str]:
    found = [gm.campaign.gm_notes, gm.campaign.session_plan]
    found += [n.secret.text for n in gm.npcs if n.secret]
    for place in gm.locations:
        found += [p.name for p in place.hidden_points] + [
            p.description for p in place.hidden_points
        ]
    for character in gm.characters:
        found += [*character.full.secrets, character.full.background]
    return [s for s in found if s]


@pytest.mark.parametrize("level", TRUST_LEVELS)
def test_no_secret_of_the_demo_reaches_any_context(level):
    world = demo_world()
    gm, state = setup(world)
    secrets = _demo_secrets(gm)
    assert len(secrets) > 15
    for npc in gm.npcs:
        state.trust[npc.id] = {c.id: START_SCORES[level] for c in gm.characters}
    for time in ("morning", "afternoon", "evening", "night"):
        state.clock.time_of_day = time  # type: ignore[assignment]
        for character in gm.characters:
            for location in gm.locations:
                context = scene_context(perceive(gm, state, character.id, location=location.id))
                leaked = [s for s in secrets if s in context]
                assert leaked == [], (character.id, location.id, time)


def test_the_demo_context_is_small():
    world = demo_world()
    gm, state = setup(world)
    sizes = [
        estimate_tokens(scene_context(perceive(gm, state, c.id, location=place.id)))
        for c in gm.characters
        for place in gm.locations
    ]
    assert max(sizes) < 2000


def test_his_words_and_the_answer_to_them_are_one_event_so_six_talks_fit():
    """Issue 33 §6: the last six events count what he perceived, and a player's words are part
    of his action's event (with the reply they got), not an event of their own."""
    world = demo_world()
    said = ["Hello, Hilda.", "Hilda, any news?", "Any work?", "Sorry.", "Hilda?", "Bye, Hilda."]
    result = play_all(world, said, "ren")[-1]
    assert result.state.gm is not None
    events = perceive(world.game_master, result.state.gm, "ren").events  # type: ignore[arg-type]
    assert len(events) == 6
    for words, event in zip(said, events, strict=True):
        assert event.text.startswith(f'Ren Ashby: "{words}"'), event.text
        assert "Hilda" in event.text[len(words) + 14 :]  # her answer, in the same event


def test_an_answer_to_words_he_did_not_perceive_is_an_event_of_its_own():
    gm, state = setup(tiny_world())
    log_event(state, "action", "kai", "hall", 'Kai: "hi"', seen_by=["kai"])
    log_event(state, "master", "kai", "hall", "The hall echoes.", seen_by=["kai"])
    log_event(state, "action", "lin", "yard", 'Lin: "psst"', seen_by=["lin"])
    log_event(state, "master", "lin", "yard", "A crow answers.", seen_by=["lin"], heard_by=["kai"])
    events = perceive(gm, state, "kai").events
    assert [e.text for e in events] == ['Kai: "hi" The hall echoes.', "You hear noise nearby."]
