"""The talk flow's free checks (issue 12 §3) read the Scene Director's bubble too: a known
character is never asked who he is, and a bubble past four sentences is rewritten once, the
player then reading the rewrite in the NPC's own bubble."""

from __future__ import annotations

from tests.engine.gm.directors.support import Directors, close, new_session, play, say, story, world

BAKERY = story("Greta serves bread.", "greta", "bakery")
RAMBLE = (
    "Who are you, stranger? What brings you here? The rye is warm. The oven is hot. "
    "Come back later."
)


def test_the_scene_directors_bubble_that_fails_a_check_is_rewritten_once():
    vampire = world("vampire")
    provider = Directors(
        game=[close("Mira greets Greta."), close("Mira asks about the rye.")],
        story=[BAKERY],
        scene=[say("greta", "Hi."), say("greta", RAMBLE)],
        master=[{"text": "Warm rye today, Mira."}],
    )
    first = play(vampire, new_session(vampire), "mira", "Morning, Greta.", provider)
    second = play(vampire, first.state, "mira", "Is the rye warm?", provider)
    assert provider.labels[3:] == ["game", "scene", "master"]  # the one rewrite request
    [bubble] = second.events[-1].data["bubbles"]
    assert (bubble["speaker"], bubble["text"]) == ("greta", "Warm rye today, Mira.")
    assert "Who are you" not in second.narration


def test_a_bubble_that_passes_is_kept_without_another_call():
    vampire = world("vampire")
    provider = Directors(
        game=[close("Mira greets Greta."), close("Mira asks about the rye.")],
        story=[BAKERY],
        scene=[say("greta", "Hi."), say("greta", "Warm enough, Mira.")],
    )
    first = play(vampire, new_session(vampire), "mira", "Morning, Greta.", provider)
    second = play(vampire, first.state, "mira", "Is the rye warm?", provider)
    assert provider.labels[3:] == ["game", "scene"]
    assert second.events[-1].data["bubbles"][0]["text"] == "Warm enough, Mira."
