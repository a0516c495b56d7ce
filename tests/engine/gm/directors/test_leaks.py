"""The leak detector (issue 12 §5; seed 001 "no soltar el secreto")."""

from __future__ import annotations

from engine.gm.directors.knowledge import distinctive_words, secret_detector
from engine.gm.directors.leaks import Detector, fingerprint, leaks, sentences
from tests.engine.gm.directors.support import world

VAMPIRE = "Mira is a vampire who has not aged since 1702 and drinks blood from the pens."


def test_a_key_phrase_is_found_whatever_its_surface():
    secret = fingerprint("pc", VAMPIRE, ["vampire", "Sunstone of Varn"])
    for line in [
        "You're a VAMPIRE!",
        "Vampires walk here.",
        "the sun-stone of varn",
        "«Sunstone» of old Varn",
    ]:
        assert leaks(line, secret), line


def test_three_words_of_the_secret_in_a_row_give_it_away():
    secret = fingerprint("pc", VAMPIRE)
    assert leaks("They say she drinks blood from pens.", secret)
    assert not leaks("The pens are empty and she drinks tea.", secret)


def test_most_of_the_secrets_words_give_it_away():
    secret = fingerprint("pc", "Hale pockets bribes from the eel smugglers")
    assert leaks("Smugglers, bribes, pockets: that's Hale.", secret)


def test_a_short_secret_is_its_own_key():
    assert leaks("Well, SECRET-BORS indeed.", fingerprint("x", "SECRET-BORS"))
    assert not leaks("Bors is a secret keeper.", fingerprint("x", "SECRET BORS ONLY-HERE"))


def test_redact_drops_only_the_sentences_that_leak():
    detector = Detector.of({"pc": VAMPIRE}, {"pc": ["vampire"]})
    text, found = detector.redact("Hale waits. Mira is a vampire, of course! He yawns.")
    assert (text, found) == ("Hale waits. He yawns.", ["pc"])


def test_an_allowed_secret_is_no_leak_nor_are_the_words_it_shares():
    detector = Detector.of(
        {"gm": "Orla will sell her out for a pardon.", "orla": "Orla wants a pardon."},
        {"gm": ["pardon"], "orla": ["pardon"]},
    )
    assert detector.scan("A pardon for my brother.") == ["gm", "orla"]
    assert detector.scan("A pardon for my brother.", allowed=["orla"]) == []


def test_sentences_join_back_to_the_text():
    text = "...Hi. There! ok\nyes? «Quote.» end"
    assert "".join(sentences(text)) == text


def test_distinctive_words_are_those_no_public_text_uses():
    assert distinctive_words(VAMPIRE, {"mira", "blood"}) == ["vampire", "1702", "drinks"]


def test_the_world_detector_knows_each_secret_by_its_own_words():
    detector = secret_detector(world("vampire").game_master)
    assert detector.scan("Foxglove, dear, for the first husband.") == ["npc:greta"]
    assert detector.scan("Good morning, apothecary! The rye is warm.") == []
