"""Every way a Scene Director request gets built, searched for secrets (issue 12 §1: "a test
walks every code path that builds a Scene Director request"; seed 003: the Scene Director
"genuinamente no conoce los secretos").

Each branch plays a few actions on a campaign world with scripted directors, then every Scene
Director request is searched for every secret's full text and every planted string, except the
secrets the branch let the people of the scene know. A branch also asserts that it took the path
it names, so none of them is vacuous.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine.gm.directors.knowledge import secret_inventory
from engine.gm.mentions import fold
from engine.gm.world import Memory, Place
from engine.session import SessionState
from tests.engine.gm.directors.campaigns import load_campaign
from tests.engine.gm.directors.support import (
    Directors,
    close,
    new_session,
    play,
    report,
    say,
    story,
)

TOLD = {"disclosure:greta:stranger"}  # Greta tells anyone she knows this much
LATE = {"text": "Hours later, night falls."}
ASKS_PERSUASION = {  # only the master decides a check (issue 33 §2): the Game Director asks
    "text": "<route>plot</route>",
    "tool_calls": [
        {
            "name": "request_skill_check",
            "arguments": {"check": "persuasion", "target": "greta", "purpose": "persuade"},
        }
    ],
}
SEARCHES = {
    "text": "<route>plot</route>",
    "tool_calls": [
        {
            "name": "request_skill_check",
            "arguments": {"check": "investigation", "dc": 10, "purpose": "search"},
        }
    ],
}
ORLA_REVEALS = {
    "text": "<route>plot</route>",
    "tool_calls": [{"name": "reveal_secret", "arguments": {"npc": "orla"}}],
}


@dataclass
class Turn:
    action: Any
    game: list[dict[str, Any]] = field(default_factory=list)
    story: list[dict[str, Any]] = field(default_factory=list)
    scene: list[dict[str, Any]] = field(default_factory=list)
    before: Callable[[SessionState], None] | None = None


def greet(game: str = "continue") -> Turn:
    return Turn(
        "Morning, Greta.",
        game=[close("Mira greets Greta.", game)],
        story=[story("Greta serves bread.", "greta", "bakery")],
        scene=[say("greta", "Morning!")],
    )


def chat(npc: str = "greta", words: str = "Lovely day.") -> Turn:
    return Turn(words, game=[close("Mira chats.")], scene=[say(npc, "Indeed.")])


def at(place: str, who: str = "mira") -> Callable[[SessionState], None]:
    def move(state: SessionState) -> None:
        assert state.gm is not None
        state.gm.characters[who].location = place

    return move


def npc_to(npc: str, place: str) -> Callable[[SessionState], None]:
    def move(state: SessionState) -> None:
        assert state.gm is not None
        state.gm.npc_places[npc] = Place(location=place)

    return move


def with_memories(state: SessionState) -> None:
    assert state.gm is not None
    older = [
        Memory(about="mira", text=f"Mira bought rye, day {n}.", importance=3) for n in range(9)
    ]
    state.gm.memories["greta"] = older


def story_every_turn(state: SessionState) -> None:
    assert state.gm is not None
    state.gm.directors.story_every_turn = True


def ally(state: SessionState) -> None:
    assert state.gm is not None
    state.gm.trust["greta"] = {"mira": 90}


LEAKY = (
    "Mira is a vampire who has not aged since 1702 and drinks blood from the river pens at "
    "night. Greta poisoned her first husband with foxglove and was never caught. GM ONLY: the "
    "silver reliquary under the altar scorches the undead. Behind the altar, steps down to a "
    "coffin with freshly turned earth. Greta serves bread."
)

# name: (world, turns, secrets the scene may know, what the branch must have done)
BRANCHES: dict[str, tuple[str, list[Turn], set[str], Callable[[list[dict[str, Any]]], bool]]] = {
    "first-turn-plot": ("vampire", [greet()], TOLD, lambda r: r[0]["route"] == "plot"),
    "plain-talk-continues": (
        "vampire",
        [greet(), chat()],
        TOLD,
        lambda r: r[1]["route"] == "continue" and not r[1]["story"],
    ),
    "same-scene-new-synopsis": (
        "vampire",
        [
            greet(),
            Turn(
                "I wave.",
                game=[close("Mira waves.", "plot")],
                story=[story("Greta waves.", "greta", "bakery", new=False)],
                scene=[say("greta", "Bye!")],
            ),
        ],
        TOLD,
        lambda r: r[1]["story"] and not r[1]["new_scene"],
    ),
    "new-scene-after-a-move": (
        "vampire",
        [
            greet(),
            Turn("go to the square"),
            Turn(
                "Good day, constable.",
                game=[close("Mira greets Hale.")],
                story=[story("Hale is bored.", "hale", "square")],
                scene=[say("hale", "Morning.")],
            ),
        ],
        TOLD,
        lambda r: r[2]["reasons"] == ["new-scene"] and r[2]["new_scene"],
    ),
    "a-newcomer-opens-a-scene": (
        "vampire",
        [
            greet(),
            Turn(
                "Oh, constable!",
                game=[close("Hale comes in.")],
                story=[story("Hale buys bread.", "greta, hale", "bakery", new=False)],
                scene=[say("hale", "Morning.")],
                before=npc_to("hale", "bakery"),
            ),
        ],
        TOLD,
        lambda r: r[1]["reasons"] == ["newcomer:hale"] and r[1]["new_scene"],
    ),
    "malformed-synopsis": (
        "vampire",
        [
            Turn(
                "Hi.",
                game=[close("Mira greets.")],
                story=[{"text": "<<<npc_list>"}],
                scene=[say("greta", "Hi.")],
            )
        ],
        TOLD,
        lambda r: "no-synopsis" in r[0]["problems"],
    ),
    "leaky-synopsis-is-redacted": (
        "vampire",
        [
            Turn(
                "Hi.",
                game=[close("Mira greets.")],
                story=[story(LEAKY, "greta", "bakery")],
                scene=[say("greta", "Hi.")],
            )
        ],
        TOLD,
        lambda r: len(r[0]["redacted"]) >= 4,
    ),
    "closure-retry": (
        "vampire",
        [
            Turn(
                "Hi.",
                game=[close("Mira greets.")],
                story=[story("Calm.", "greta", "bakery")],
                scene=[LATE, say("greta", "Hi.")],
            )
        ],
        TOLD,
        lambda r: not r[0]["scene_fallback"],
    ),
    "scene-fallback": (
        "vampire",
        [
            Turn(
                "Hi.",
                game=[close("Mira greets.")],
                story=[story("Calm.", "greta", "bakery")],
                scene=[LATE, LATE],
            )
        ],
        TOLD,
        lambda r: r[0]["scene_fallback"],
    ),
    "a-pending-roll": (
        "vampire",
        [
            greet(),
            Turn(
                "I persuade Greta to lower her price",
                game=[ASKS_PERSUASION, close("Mira makes her case.")],
                story=[story("Greta listens.", "greta", "bakery", new=False)],
                scene=[say("greta", "Go on, then.")],
            ),
            Turn(
                {"roll": True},
                game=[close("The roll is made.")],
                story=[story("Greta weighs it.", "greta", "bakery", new=False)],
                scene=[say("greta", "We'll see.")],
            ),
        ],
        TOLD,
        lambda r: "roll" in r[2]["reasons"],
    ),
    "a-hidden-roll": (
        "vampire",
        [
            Turn(
                "I search the chapel",
                game=[SEARCHES, close("Mira searches.")],
                story=[story("Anselm watches.", "anselm", "chapel")],
                scene=[say("anselm", "Looking for something?")],
                before=at("chapel"),
            )
        ],
        TOLD | {"hidden:chapel:crypt-stair"},
        lambda r: "roll" in r[0]["reasons"],
    ),
    "reveal-secret-tool": (
        "heist",
        [
            Turn(
                "Orla, is your shop safe?",
                game=[ORLA_REVEALS, close("Orla confides.")],
                story=[story("Orla whispers.", "orla", "pawnshop")],
                scene=[say("orla", "I inform for the city watch.")],
                before=at("pawnshop", "tamsin"),
            ),
            chat("orla", "Thank you."),
        ],
        {"npc:orla"},
        lambda r: "tool:reveal_secret" in r[0]["reasons"],
    ),
    "story-reveals-a-characters-secret": (
        "vampire",
        [
            Turn(
                "I kneel by the font.",
                game=[close("Mira kneels.", "plot")],
                story=[
                    story(
                        "Anselm sees no reflection.",
                        "anselm",
                        "chapel",
                        more='<reveal secret="character:mira:1" to="anselm"/>',
                    )
                ],
                scene=[say("anselm", "What are you?")],
                before=at("chapel"),
            ),
            chat("anselm", "Please, Father."),
        ],
        TOLD | {"character:mira:1"},
        lambda r: r[0]["problems"] == [],
    ),
    "alone": (
        "vampire",
        [
            Turn(
                "I hum a tune.",
                game=[close("Mira hums.")],
                story=[story("The bakery is empty.", "", "bakery")],
                scene=[{"text": "The ovens tick as they cool."}],
                before=npc_to("greta", "square"),
            )
        ],
        set(),
        lambda r: r[0]["reasons"] == ["no-scene", "nobody-to-talk-to"] and r[0]["npcs"] == [],
    ),
    "another-player-is-there": (
        "heist",
        [
            Turn(
                "Morning, Orla.",
                game=[close("Tamsin greets Orla.")],
                story=[story("Orla counts coins; Bram waits.", "orla", "pawnshop")],
                scene=[say("orla", "Morning.")],
                before=at("pawnshop", "tamsin"),
            )
        ],
        set(),
        lambda r: r[0]["npcs"] == ["orla"],
    ),
    "memory-search": ("vampire", [greet(), chat(words="Any rye left?")], TOLD, lambda r: True),
    "story-every-turn": (
        "vampire",
        [
            greet(),
            Turn(
                "Lovely day.",
                game=[close("Mira chats.")],
                story=[story("Greta agrees.", "greta", "bakery", new=False)],
                scene=[say("greta", "Indeed.")],
            ),
        ],
        TOLD,
        lambda r: r[1]["reasons"] == ["story-every-turn"],
    ),
    "an-ally": ("vampire", [greet()], TOLD | {"disclosure:greta:ally"}, lambda r: True),
}
BEFORE_ALL = {"memory-search": with_memories, "story-every-turn": story_every_turn, "an-ally": ally}


def _secrets(name: str) -> dict[str, list[str]]:
    campaign = load_campaign(name)
    out = {ref: list(strings) for ref, strings in campaign.planted.items()}
    for record in secret_inventory(campaign.world.game_master):  # type: ignore[arg-type]
        out.setdefault(record.ref, []).append(record.text)
    return out


@pytest.mark.parametrize("branch", list(BRANCHES))
def test_no_scene_director_request_holds_a_secret_the_scene_may_not_know(branch):
    name, turns, allowed, took_path = BRANCHES[branch]
    campaign = load_campaign(name)
    character = campaign.character
    state = new_session(campaign.world)
    if branch in BEFORE_ALL:
        BEFORE_ALL[branch](state)
    provider = Directors()
    reports = []
    for turn in turns:
        if turn.before is not None:
            turn.before(state)
        provider.add(game=turn.game, story=turn.story, scene=turn.scene)
        result = play(campaign.world, state, character, turn.action, provider)
        state = result.state
        reports.append(report(result))
    if (
        state.gm is not None
        and "chapel:crypt-stair" not in state.gm.characters[character].discovered
    ):
        allowed = allowed - {"hidden:chapel:crypt-stair"}
    scene_texts = provider.texts("scene")
    assert scene_texts, "the branch built no Scene Director request"
    assert took_path(reports), reports
    secrets = _secrets(name)
    found = [
        (ref, s)
        for text in scene_texts
        for ref, strings in secrets.items()
        if ref not in allowed
        for s in strings
        if fold(s) in fold(text)
    ]
    assert found == []


def test_the_search_would_find_a_secret_if_one_were_there():
    """The walk is not vacuous: the Story Director's requests of the same branches hold them."""
    provider = Directors()
    campaign = load_campaign("vampire")
    state = new_session(campaign.world)
    turn = greet()
    provider.add(game=turn.game, story=turn.story, scene=turn.scene)
    play(campaign.world, state, "mira", turn.action, provider)
    story_text = fold(provider.texts("story")[0])
    secrets = _secrets("vampire")
    assert all(fold(strings[-1]) in story_text for strings in secrets.values())
