"""The Status panel's projection of one character (engine.gm.status; issue 33 §4): his sheet,
what he carries with quantities, his journal, and people and places as he knows them, with no
room for anyone's secret."""

from __future__ import annotations

import copy
from dataclasses import asdict

from engine.gm.state import GMState, initial_gm_state
from engine.gm.status import character_status
from engine.gm.world import GameMaster, Holder, JournalEntry, Resource
from engine.world import load_world
from tests.engine.gm.worlds import demo_data


def brackenford(**extra_items: str) -> GameMaster:
    """The demo block, with extra items (id → name) in Ren's hands."""
    data = copy.deepcopy(demo_data())
    for ident, name in extra_items.items():
        data["gameMaster"]["items"].append({"id": ident, "name": name, "at": {"character": "ren"}})
    gm = load_world(data).game_master
    assert gm is not None
    return gm


def start(gm: GameMaster) -> GMState:
    return initial_gm_state(gm, seed=424242)


def test_the_sheet_has_hp_conditions_money_and_what_is_in_hand():
    gm = brackenford()
    state = start(gm)
    ren = state.characters["ren"]
    ren.hp, ren.conditions = 4, ["poisoned"]
    status = character_status(state, gm, "ren")
    assert status is not None
    assert (status.name, status.hp, status.max_hp, status.money) == ("Ren Ashby", 4, 9, 3)
    assert status.conditions == ("poisoned",)
    assert status.equipped == ("dagger",)
    assert status.place == "The Wayfarer's Rest" and status.time_of_day == "morning"
    assert status.low_hp == 3


def test_items_are_counted_by_name_with_their_stacks_and_what_is_in_hand_comes_first():
    gm = brackenford(**{"loaf-1": "loaf of bread", "loaf-2": "loaf of bread"})
    state = start(gm)
    state.counts["loaf-2"] = 3  # a stack of three loaves (engine.gm.market), and one more
    ren = state.characters["ren"]
    ren.resources["arrows"] = Resource(current=7, max=20)  # a pool rest refills
    ren.resources["herbs"] = Resource(current=5, max=0)  # a stock he gathered
    status = character_status(state, gm, "ren")
    assert status is not None
    assert [(i.name, i.quantity, i.equipped) for i in status.items] == [
        ("dagger", 1, True),
        ("loaf of bread", 4, False),
        ("herbs", 5, False),
    ]
    assert [(r.name, r.current, r.max) for r in status.resources] == [("arrows", 7, 20)]


def test_quests_read_or_taken_are_active_until_done_and_debts_pawns_are_listed():
    gm = brackenford()
    state = start(gm)
    ren = state.characters["ren"]
    ren.journal.append(
        JournalEntry(kind="notice", ref="carters-wanted", title="Escort", text="Carters need…")
    )
    ren.journal.append(JournalEntry(kind="notice", ref="lost-cat", title="Lost cat", text="Grey."))
    ren.journal.append(JournalEntry(kind="quest", ref="stray-dog", title="Whose dog?"))
    ren.completed.append("stray-dog")
    ren.clues.append("wet-footprints")
    status = character_status(state, gm, "ren")
    assert status is not None
    assert [(q.title, q.status) for q in status.quests] == [
        ("Escort for the carts", "active"),
        ("Whose dog?", "done"),
    ]
    # a notice offering an errand is listed by title: its text is the quest's line above
    assert [(n.title, n.text) for n in status.notices] == [("Escort", ""), ("Lost cat", "Grey.")]
    assert [c.title for c in status.clues] == ["Wet footprints"]
    assert [(d.mine, d.other, d.amount, d.due_day) for d in status.debts] == [
        (True, "Greta Vell", 12, 3)
    ]
    assert [(p.item, p.held_by, p.redeem_price) for p in status.pawns] == [
        ("silver signet ring", "Greta Vell", 12)
    ]


def test_people_go_by_the_name_he_learnt_else_by_their_trade():
    gm = brackenford()
    state = start(gm)
    state.trust["osric"] = {"ren": 10}  # he dealt with the shopkeeper, never learnt his name
    status = character_status(state, gm, "ren")
    assert status is not None
    assert [(p.name, p.trade, p.here) for p in status.people] == [
        ("Hilda Brant", "innkeeper", True),
        ("Greta Vell", "moneylender", False),
        ("shopkeeper", "", False),
    ]
    state.characters["ren"].met.append("ada")  # they met in play (engine.gm.acquaintance)
    again = character_status(state, gm, "ren")
    assert again is not None and again.people[-1].name == "Ada Thorne"


def test_nothing_secret_or_unknown_is_in_the_projection():
    gm = brackenford()
    state = start(gm)
    state.items["chalice"] = Holder(location="old-mill")
    status = character_status(state, gm, "ren")
    assert status is not None
    text = repr(asdict(status))
    assert [p.name for p in status.places] == ["The Wayfarer's Rest", "Market Square"]
    greta = gm.npcs_by_id["greta"]
    secrets = [greta.secret.text if greta.secret else "", *gm.characters_by_id["ada"].full.secrets]
    for leak in ["Father Aldric", "Osric Pell", "Old Mill", "Cellar", "424242", *secrets]:
        assert leak not in text, leak
    for leak in gm.characters_by_id["ren"].full.secrets:  # his own full sheet is not the panel's
        assert leak not in text


def test_the_engine_words_follow_the_language_and_unknown_characters_have_no_status():
    gm = brackenford()
    state = start(gm)
    state.characters["ren"].conditions = ["poisoned"]
    status = character_status(state, gm, "ren", "es")
    assert status is not None and status.time_of_day == "la mañana"
    assert status.conditions == ("envenenado",)
    assert status.equipped == ("daga",) and status.equipped == (status.items[0].name,)
    assert character_status(state, gm, "nobody") is None
    del state.characters["ada"]
    assert character_status(state, gm, "ada") is None
