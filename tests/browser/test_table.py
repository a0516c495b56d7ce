"""Two players at one table in real Chromium (issue 12, "Done when"): Alice starts Brackenford as
Ren and invites; Bob opens the link, takes Ada, the last free character, and both lists show
both players online. What one does reaches the other only as his character perceives it: Ren
walking into Ada's square is told to Ada, Ada's walk to the chapel is told to Ren who stands
there to see it, and Ren going down to the cellar — out of Ada's sight and hearing — reaches
Bob's page not at all. Neither page ever shows the other's typed words.

Issue 33 §5: the joiner starts with the scene of his place and his own turn count, both pages
label the seats by character name, the two are strangers (described by how they look) until
one introduces himself, and the invitation link has a Copy button.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, shot
from tests.browser.pages import client_js, held, signed_in_page
from tests.browser.servers import AppServers

pytestmark = [pytest.mark.timeout(300)]

SEED = """
import json
from tests.browser.seed_gm import login_cookie  # sets Django up
from django.contrib.auth.models import User

alice = User.objects.create_user("alice", "alice@example.com", "password")
bob = User.objects.create_user("bob", "bob@example.com", "password")
carol = User.objects.create_user("carol", "carol@example.com", "password")
print(json.dumps({name: login_cookie(user) for name, user in
                  [("alice", alice), ("bob", bob), ("carol", carol)]}))
"""


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    return app_servers.get(["-c", SEED], demo=True)


REN_LOOKS = "A lean young man in a patched green coat"  # how each looks to a stranger
ADA_LOOKS = "A tall woman in a grey travelling cloak with a lantern sigil"


def page_of(browser: Any, server: dict[str, Any], who: str) -> Any:
    return signed_in_page(browser, server, who=who, viewport=DESKTOP)


def say(page: Any, text: str) -> None:
    """Send ``text``; return once the page holds it and a reply after it, nothing streaming.

    Not "two more messages than before": what another seat's turn delivers to this page can
    land after the count was taken, and the exact count is then never seen.
    """
    count = held(page)
    page.fill("[data-input]", text)
    page.click("[data-send]")
    replied = (
        f"c.messages.length >= {count + 2} && c.streamingId === null && (() => {{"
        " const users = c.messages.filter(m => m.role === 'user');"
        " const last = c.messages.lastIndexOf(users[users.length - 1]);"
        f" return last >= 0 && c.messages[last].content === {json.dumps(text)}"
        " && c.messages.slice(last + 1).some(m => m.role === 'assistant'); })()"
    )
    page.wait_for_function(client_js(replied), timeout=20000)


def told(page: Any, count: int) -> str:
    """Wait for the page to hold ``count`` messages; the last one's text."""
    page.wait_for_function(client_js(f"c.messages.length >= {count}"), timeout=20000)
    return str(page.locator(".msg--assistant .msg-body").last.text_content())


def online(page: Any, character: str) -> None:
    page.wait_for_selector(f"[data-table-players] [data-character={character}].is-online")


def test_two_players_share_a_world_and_each_sees_only_what_his_character_perceives(
    browser: Any, server: dict[str, Any]
) -> None:
    alice = page_of(browser, server, "alice")
    alice.goto(f"{server['base']}/")
    alice.locator("article.card", has_text="Brackenford").locator("a", has_text="Play").click()
    alice.select_option("select[name=character]", "ren")
    alice.click(".start-form button[type=submit]")
    alice.wait_for_selector(".conn[data-state=online]", timeout=15000)
    alice.click("[data-invite]")
    link = alice.locator("[data-invite-link]").input_value()
    online(alice, "ren")

    bob = page_of(browser, server, "bob")
    bob.goto(link)
    assert bob.locator("input[name=character]").count() == 1  # Ren is taken
    bob.check("input[name=character][value=ada]")
    shot(bob, "table-join")
    bob.click(".join-form button[type=submit]")
    bob.wait_for_selector(".conn[data-state=online]", timeout=15000)
    online(bob, "ren")
    online(bob, "ada")
    online(alice, "ada")  # his socket opened: her list says so at once
    shot(alice, "table-host")

    start = held(bob)
    say(alice, "go south")  # Ren walks into the square, where Ada stands: a stranger to her
    assert told(bob, start + 1).startswith(f"{REN_LOOKS} arrives")
    start = held(alice)
    say(bob, "go west")  # Ada walks to the chapel: Ren, in the square, sees her go
    assert told(alice, start + 1).startswith(f"{ADA_LOOKS} goes west")
    after = held(bob)

    say(alice, "go north")  # Ren goes back to the inn; Ada, in the chapel, perceives nothing
    bob.wait_for_timeout(1500)
    assert held(bob) == after

    say(bob, "Good morning, Father Aldric. How are you?")  # plain talk: his bubble, no prose
    speech = bob.locator(".msg--assistant.is-speech").last
    assert speech.locator(".speech-name").first.text_content()
    assert speech.locator(".speech-text").first.text_content()
    shot(bob, "table-guest")

    bob_text = str(bob.locator("[data-messages]").text_content())
    alice_text = str(alice.locator("[data-messages]").text_content())
    assert "go south" not in bob_text and "go north" not in bob_text
    assert "go west" not in alice_text
    assert alice.errors == [] and bob.errors == []


def test_the_host_removes_a_player_whose_page_says_so(browser: Any, server: dict[str, Any]) -> None:
    """Issue 32 §10: Carol joins after Alice's page loaded; the Remove beside her name comes
    with the players frame; removing her closes her game and tells her why."""
    alice = page_of(browser, server, "alice")
    alice.on("dialog", lambda dialog: dialog.accept())
    alice.goto(f"{server['base']}/")
    alice.locator("article.card", has_text="Brackenford").locator("a", has_text="Play").click()
    alice.select_option("select[name=character]", "ren")
    alice.click(".start-form button[type=submit]")
    alice.wait_for_selector(".conn[data-state=online]", timeout=15000)
    alice.click("[data-invite]")
    link = alice.locator("[data-invite-link]").input_value()

    carol = page_of(browser, server, "carol")
    carol.goto(link)
    carol.check("input[name=character][value=ada]")
    carol.click(".join-form button[type=submit]")
    carol.wait_for_selector(".conn[data-state=online]", timeout=15000)
    online(alice, "ada")
    alice.click("[data-table-players] [data-character=ada] [data-remove-player]")
    carol.wait_for_selector(".conn[data-state=removed]", timeout=15000)
    assert "The host removed you from this table." in str(carol.locator(".conn").text_content())
    alice.wait_for_selector("[data-table-players] [data-character=ada]", state="detached")
    carol.reload()
    carol.wait_for_selector("[data-table-removed]")
    shot(carol, "table-removed")
    assert alice.errors == [] and carol.errors == []


def seat(page: Any, character: str) -> str:
    """How the page labels a seat: the character's name, and "(you)" on one's own."""
    li = page.locator(f"[data-table-players] [data-character={character}]")
    you = li.locator(".table-you")
    return str(li.locator(".table-character").text_content()) + (
        str(you.text_content()) if you.count() else ""
    )


def test_a_joiner_finds_his_scene_his_turn_and_strangers_until_introduced(
    browser: Any, server: dict[str, Any]
) -> None:
    """Issue 33 §5, "Done when": Ren has played two turns into the square when Bob joins as
    Ada. His page opens on Ada's scene, the engine's, where Ren is a stranger; its turn count
    is his own; both pages label the seats by character; once Ren says his name, Ada's page
    names him."""
    alice = page_of(browser, server, "alice")
    alice.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server["base"])
    alice.goto(f"{server['base']}/")
    alice.locator("article.card", has_text="Brackenford").locator("a", has_text="Play").click()
    alice.select_option("select[name=character]", "ren")
    alice.click(".start-form button[type=submit]")
    alice.wait_for_selector(".conn[data-state=online]", timeout=15000)
    say(alice, "go south")
    say(alice, "look")
    alice.click("[data-invite]")
    link = alice.locator("[data-invite-link]").input_value()
    copy = alice.locator("[data-copy]")
    assert copy.text_content() == "Copy"
    copy.click()
    alice.wait_for_selector("[data-copy].is-copied")
    assert copy.text_content() == "Copied"
    assert alice.evaluate("navigator.clipboard.readText()") == link

    bob = page_of(browser, server, "bob")
    bob.goto(link)
    bob.check("input[name=character][value=ada]")
    bob.click(".join-form button[type=submit]")
    bob.wait_for_selector(".conn[data-state=online]", timeout=15000)
    online(alice, "ada")
    opening = told(bob, 1)
    assert opening.startswith("Market Square.")
    assert f"Here: moneylender, {REN_LOOKS.lower()}." in opening and "Ren" not in opening
    assert bob.locator(".msg-empty").count() == 0
    expect(bob.locator("[data-turn]")).to_have_text("0")  # not the host's
    expect(alice.locator("[data-turn]")).to_have_text("2")
    shot(bob, "table-joiner-opening")

    for page in (alice, bob):
        online(page, "ren")
        online(page, "ada")
    assert (seat(alice, "ren"), seat(alice, "ada")) == ("Ren Ashby (you)", "Ada Thorne")
    assert (seat(bob, "ren"), seat(bob, "ada")) == ("Ren Ashby", "Ada Thorne (you)")
    labels = [  # the same labels on both pages: the characters', never "You" nor a username
        page.locator("[data-table-players] .table-character").all_text_contents()
        for page in (alice, bob)
    ]
    assert labels[0] == labels[1] == ["Ren Ashby", "Ada Thorne"]
    say(alice, "look")  # neither is named to the other before they meet
    seen = told(alice, held(alice))
    assert f"Here: Greta Vell, {ADA_LOOKS.lower()}." in seen and "Ada" not in seen
    people = " ".join(str(bob.locator("[data-gm-sheet] [data-gm-people]").inner_text()).split())
    assert "Ren" not in people, people

    say(bob, "look")
    expect(bob.locator("[data-turn]")).to_have_text("1")  # set by the state frame after the reply
    assert str(bob.locator(".msg--user .msg-who").last.inner_text()).endswith("Ada Thorne")
    start = held(bob)
    say(alice, 'I say: "Good morning, I am Ren Ashby."')
    assert told(bob, start + 1).startswith("Ren Ashby: “Good morning, I am Ren Ashby.”")
    say(bob, "look")
    assert "Here: moneylender, Ren Ashby." in told(bob, held(bob))
    assert alice.errors == [] and bob.errors == []
