"""The unregistered-deal rule reads a new obligation or exchange between the character and
someone else (issue 34 §1): borrowing, a tab, a sum said aloud, a thing that passes to a new
owner for money; a debt the state already holds told again, a wish and a debt between two
other people are no deal. The sentences are written for these tests, not taken from the
corpus."""

from __future__ import annotations

from engine.gm.closure import TurnFacts, read
from engine.gm.closure_rules.deal import unregistered_deal
from tests.engine.gm.closure_corpus import Case, scene_of, turn_of

SETUPS = {
    "en": {"scenario": {"world": "demo", "character": "ren"}},
    "es": {"scenario": {"world": "valdehierro", "character": "lia"}},
    "zh": {"scenario": {"world": "qingshi", "character": "ache"}},
}


def fires(language: str, narration: str) -> bool:
    case = Case("unregistered-deal", language, "x", narration, True, SETUPS[language])
    return unregistered_deal(read(narration, TurnFacts(**turn_of(case)), scene_of(case)))


def test_borrowing_money_is_a_debt_to_register():
    assert fires("en", "You borrow two silver from Greta and promise to pay it back by Sunday.")
    assert fires("zh", "小梅把两文钱记在你的账上。")


def test_a_new_sum_owed_said_aloud_is_a_debt_to_register():
    assert fires("en", '"Fine," Greta says. "You owe me four more by Sunday."')


def test_a_debt_the_state_already_holds_told_again_is_no_new_deal():
    # the demo state: Ren owes Greta twelve silver, due on the third day
    assert not fires("en", "Greta taps the ledger: you still owe her the twelve silver.")
    assert fires("en", "Greta taps the ledger: you owe her three more silver now.")


def test_a_debt_recalled_where_the_state_has_none_is_still_a_deal():
    # a guard for the recall reading: passes before and after it
    assert fires("es", "Inés apunta en su libro que ahora le debes tres monedas.")


def test_a_debt_between_two_other_people_is_not_the_characters_deal():
    assert not fires("en", "Jory owes Greta three silver, and everyone in the room knows it.")


def test_a_wished_or_weighed_deal_is_no_deal():
    assert not fires("en", "You think about paying Hilda the three coppers for a bed.")
    assert not fires("zh", "你真想付钱买下那把伞。")


def test_a_thing_passing_to_someone_for_money_is_a_sale():
    assert fires("en", "For six coins the lantern now belongs to Greta.")


def test_a_bargain_closed_in_one_word_with_the_terms_said_is_a_deal():
    assert fires("en", '"Deal," Greta says. "Three silver now, two more at the full moon."')
    assert fires("es", "—Trato —dice Inés—. Cuatro monedas ahora y dos el domingo.")
    assert not fires("en", '"Done," says Hilda. "Two more tables to wipe and I can sit."')


def test_a_phrase_of_credit_is_a_debt_without_a_sum_beside_it():
    assert fires("en", "Hilda lets you have the room on tick until Sunday.")
    assert fires("zh", "小梅让你先赊着，月底一起算。")
    assert not fires("es", "Le debes una disculpa a Marta.")  # owing an apology is no debt


# --- round 6: refusals, coins put down, bargains sealed (sentences written for these tests)


def test_an_offer_turned_down_or_a_refused_pledge_is_no_deal():
    assert not fires("en", "You offer the smith two coins for the knife, but he shakes his head.")
    assert not fires("en", "The moneylender refuses to accept your ring as collateral.")
    assert not fires("en", "You slide a coin across the bar, but Hilda pushes it back.")
    assert not fires("es", "Le ofreces dos monedas, pero el herrero niega con la cabeza.")
    assert not fires("es", "Marta se niega a aceptar tu anillo como prenda.")
    assert not fires("zh", "你把铜钱递给老板娘想换那盏灯笼，她却摆了摆手。")


def test_coins_put_down_before_someone_are_a_payment_whatever_the_verb():
    assert fires(
        "en", "You slap two coins on the counter and Hilda slides a bowl of stew your way."
    )
    assert fires("zh", "你把几枚铜钱拍在柜台上，小梅给你端来一碗酒。")
    assert not fires("en", "You set your coins on the table and count them twice.")


def test_a_bargain_sealed_on_a_condition_is_closed_but_one_under_a_condition_is_not():
    assert fires(
        "en", "She will lend you the mule if you bring it back by dusk; the bargain is sealed."
    )
    assert fires("en", "You and the smith clinch the deal over a mug of ale.")
    assert fires("es", "Marta y tú selláis el acuerdo con un apretón de manos.")
    assert fires(
        "es", "Os perdona la mitad de la deuda si le traes el cáliz; el trato queda cerrado."
    )
    assert not fires("en", "If Hilda agrees, the deal is struck.")
    assert not fires("es", "Si Marta acepta, el trato queda cerrado.")
    assert not fires("zh", "要是小梅答应，这笔买卖就成了。")


def test_the_character_named_in_the_third_person_is_still_a_party_to_the_deal():
    assert fires("en", "Ren pays Hilda two coins for the stew.")
    assert not fires("en", "The rogue pockets the coin.")
