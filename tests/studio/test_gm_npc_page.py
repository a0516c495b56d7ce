"""The studio's page of one NPC's mind (issue "Directors, NPC memory and trust…", Done when: "the
studio shows, for a chosen NPC, its memories, trust per character and what it would say at each
level"): read from one of the creator's play sessions, or from the world's starting state;
owner-only."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.conf import settings
from django.urls import reverse

from engine.gm.memory import remember
from engine.gm.play import ensure_gm_state
from engine.gm.world import GameClock
from engine.session import SessionState
from engine.world import load_world
from play.models import Session
from studio.worlds import import_world
from tests.studio.gm_helpers import demo_data
from tests.studio.view_helpers import hx, is_partial, login, publish

pytestmark = pytest.mark.django_db

SECRET = "smuggles church silver"


@pytest.fixture
def brackenford(alice: Any) -> Any:
    return import_world(alice, demo_data())


def url(world: Any, npc: str = "hilda", session: Any = None) -> str:
    address = reverse("studio:gm_npc_mind", args=[world.pk, npc])
    return f"{address}?session={session.pk}" if session is not None else address


def text(response: Any) -> str:
    return unescape(re.sub(r"\s+", " ", response.content.decode()))


def played(owner: Any, world: Any, title: str = "Evening at the Wayfarer") -> Session:
    """A play session of ``owner`` in which Hilda remembers Ren and has come to distrust him."""
    definition = demo_data()
    state = SessionState.initial(load_world(definition))
    gm = load_world(definition).game_master
    assert gm is not None
    gm_state = ensure_gm_state(load_world(definition), state, 1)
    gm_state.clock = GameClock(day=4, time_of_day="evening")
    remember(gm, gm_state, "hilda", "ren", "Ren called me an old hag.", 2)
    remember(gm, gm_state, "hilda", "ren", "Ren swore to clear the east road.", 3)
    gm_state.trust["hilda"] = {"ren": -45}
    return Session.objects.create(
        world=world,
        owner=owner,
        draft_definition=definition,
        title=title,
        state=state.model_dump(mode="json"),
    )


def test_from_a_chosen_session_it_shows_memories_and_trust_per_character(
    client, alice, brackenford
):
    session = played(alice, brackenford)
    response = login(client, alice).get(url(brackenford, session=session))
    assert response.status_code == 200
    page = text(response)
    assert "Ren called me an old hag." in page and "Ren swore to clear the east road." in page
    assert "never forgotten" in page and "day 34" in page  # importance 2: day 4 + 30
    trust = page[page.index('id="mind-trust"') :]
    assert re.search(r"Ren Ashby</td><td><span class=\"badge\">Wary</span></td><td>-45", trust)
    assert re.search(r"Ada Thorne</td><td><span class=\"badge\">Stranger</span></td><td>0", trust)
    assert "Evening at the Wayfarer" in page and "Game day 4." in page


def test_without_a_session_it_reads_the_worlds_starting_state(client, alice, brackenford):
    played(alice, brackenford)
    page = text(login(client, alice).get(url(brackenford)))
    assert "It remembers nothing yet." in page
    assert "No session chosen: the authored start." in page
    assert '<span class="badge">Acquaintance</span></td><td>30' in page  # authored for Ren


def test_it_shows_what_the_npc_would_say_at_each_of_the_six_levels(client, alice, brackenford):
    page = text(login(client, alice).get(url(brackenford)))
    voices = page[page.index('id="mind-voices"') :]
    for level in ("hostile", "wary", "stranger", "acquaintance", "friend", "ally"):
        assert f'data-level="{level}"' in voices
    assert "What." in voices and "Nothing for you." in voices  # hostile
    assert "The road east has been unsafe since the mill closed." in voices  # stranger tells
    assert "Her brother Jory has been out late every night this week." in voices  # friend tells
    assert "And watch your back out there." in voices  # ally warns
    assert SECRET not in page


def test_levels_manners_and_lines_speak_the_creators_language(client, alice, brackenford):
    login(client, alice).cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    page = text(client.get(url(brackenford)))
    assert "Receloso" in page and "Corto, frío o amenazante. No da nada gratis." in page
    assert "Nada para ti." in page  # hostile, asked a question
    assert "The road east has been unsafe since the mill closed." in page  # the world's words


def test_an_htmx_request_gets_the_workspace_only(client, alice, brackenford):
    response = login(client, alice).get(url(brackenford, "greta"), **hx("workspace"))
    assert response.status_code == 200 and is_partial(response)
    assert "What Greta Vell remembers and feels" in text(response)


def test_only_the_owner_sees_it(client, alice, bob, brackenford):
    session = played(alice, brackenford)
    assert login(client, bob).get(url(brackenford, session=session)).status_code == 404
    publish(brackenford)
    assert client.get(url(brackenford, session=session)).status_code == 403
    client.logout()
    assert client.get(url(brackenford)).status_code == 302  # to the login page


def test_only_the_owners_own_sessions_are_offered_and_read(client, alice, bob, brackenford):
    publish(brackenford)
    theirs = played(bob, brackenford, title="Bob's own game")
    page = text(login(client, alice).get(url(brackenford, session=theirs)))
    assert "Bob's own game" not in page
    assert "Ren called me an old hag." not in page  # another player's session is never read


def test_an_unknown_npc_is_a_404(client, alice, brackenford):
    assert login(client, alice).get(url(brackenford, "nobody")).status_code == 404


def test_the_npc_form_links_to_its_mind(client, alice, brackenford):
    edit = reverse("studio:gm_npcs_edit", args=[brackenford.pk, "hilda"])
    assert url(brackenford) in login(client, alice).get(edit).content.decode()


def test_the_picker_goes_to_the_chosen_npc_and_session(client, alice, bob, brackenford):
    session = played(alice, brackenford)
    picker = reverse("studio:gm_minds", args=[brackenford.pk])
    response = login(client, alice).get(picker, {"npc": "greta", "session": str(session.pk)})
    assert response.status_code == 302 and response["Location"] == url(
        brackenford, "greta", session
    )
    assert client.get(picker)["Location"] == url(brackenford, "hilda")  # the first NPC
    assert login(client, bob).get(picker).status_code == 404
