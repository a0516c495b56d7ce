"""The directive tester: clean text, state diff, audio cues, skipped directives and why."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from studio.models import AudioTrack, Reaction, Rule
from studio.worlds import create_item
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db

REPLY = (
    "The blade bites. [health: -15] [audio: bgm-battle play] [mana: +5]\n"
    "<thinking>hidden plan</thinking>You stagger back."
)


def run(client, world, reply: str = REPLY, state: str = "", **headers):
    return client.post(
        reverse("studio:tester", args=[world.pk]),
        {"tester-reply": reply, "tester-state": state},
        **headers,
    )


def text(response) -> str:
    return unescape(re.sub(r"\s+", " ", response.content.decode()))


def test_it_shows_clean_text_diff_audio_and_skips(client, alice, world):
    create_item(world, AudioTrack, {"id": "bgm-battle", "name": "Battle"})
    response = run(login(client, alice), world, **hx())
    page = text(response)
    assert is_partial(response)
    clean = "The blade bites. [mana: +5] You stagger back."
    assert f'<div class="clean-text" id="clean-text">{clean}</div>' in page
    assert "hidden plan" not in page
    assert (
        "<tr><td><code>health</code></td><td><code>100</code></td><td><code>85</code></td></tr>"
        in page
    )
    assert '<ul id="audio-cues"><li><code>bgm-battle play</code></li></ul>' in page
    assert "<code>[mana: +5]</code> — unknown variable 'mana'; left in the text" in page


def test_the_sample_state_is_the_starting_point(client, alice, world):
    page = text(run(login(client, alice), world, "Ouch. [health: -15]", '{"health": 10}', **hx()))
    assert "<td><code>10</code></td><td><code>0</code></td>" in page


def test_bad_input_rerenders_with_the_errors(client, alice, world):
    response = run(login(client, alice), world, "", "{oops", **hx())
    assert is_partial(response)
    assert errors_of(response) == [
        "reply: This field is required.",
        "state: Not valid JSON: Expecting property name enclosed in double quotes "
        "at line 1 column 2",
    ]


def test_the_page_prefills_the_state_and_works_without_js(client, alice, world):
    login(client, alice)
    page = client.get(reverse("studio:tester", args=[world.pk])).content.decode()
    assert "&quot;health&quot;: 100" in page
    full = run(client, world, "Hi [health: 1]")
    assert b"<html" in full.content
    assert b'id="state-diff"' in full.content


def test_tester_checklist(client, alice, bob, charlie, world):
    url = reverse("studio:tester", args=[world.pk])
    assert client.get(url).status_code == 302
    assert login(client, charlie).get(url).status_code == 404
    assert login(client, alice).put(url).status_code == 405
    publish(world)
    assert login(client, bob).post(url, {"tester-reply": "x"}).status_code == 403


# --- the rules the turn would then run (studio.dryrun) -------------------------------------


def run_turn(client, world, reply: str, **fields: str):
    data = {"tester-reply": reply, "tester-state": "", "tester-message": "", "tester-turn": ""}
    data.update({f"tester-{name}": value for name, value in fields.items()})
    return text(client.post(reverse("studio:tester", args=[world.pk]), data, **hx()))


def test_it_shows_the_rules_and_reactions_the_reply_would_fire(client, alice, world):
    create_item(
        world,
        Rule,
        {
            "id": "tavern-talk",
            "name": "Tavern talk",
            "trigger": {"type": "keyword", "keywords": ["tavern"]},
            "actions": [
                {"type": "modify-variable", "variableId": "health", "operation": "add", "value": 2},
                {"type": "inject-directive", "directiveId": "noise", "content": "It is loud."},
            ],
        },
    )
    create_item(
        world,
        Reaction,
        {
            "id": "bell",
            "when": {"eventType": "turn:complete", "turn": 3},
            "then": [{"type": "set", "path": "@prompt.context", "value": "A bell rings."}],
        },
    )
    page = run_turn(
        login(client, alice), world, "You fall. [health: -85]", message="To the tavern!"
    )

    assert '<ol id="fired-rules"><li>Low health <code>low-health-warning</code></li>' in page
    assert "<li>Tavern talk <code>tavern-talk</code></li></ol>" in page
    assert (
        '<ul id="rules-notifications"><li><span class="badge">warning</span> You reel.</li>' in page
    )
    assert (
        "<tr><td><code>health</code></td><td><code>15</code></td><td><code>17</code></td></tr>"
        in page
    )
    assert '<ul id="rules-directives"><li><code>noise</code> — It is loud.</li></ul>' in page
    assert "fired-reactions" not in page  # turn 1, the bell waits for turn 3
    page = run_turn(client, world, "Quiet.", turn="3")
    assert '<ol id="fired-reactions"><li>bell</li></ol>' in page
    assert '<ul id="rules-context"><li><span class="badge">system</span> A bell rings.</li>' in page


def test_it_says_when_no_rule_would_fire_and_why(client, alice, world):
    page = run_turn(login(client, alice), world, "A scratch. [health: -5]")
    assert '<p class="muted" id="no-rule-fired">No rule or reaction would fire.</p>' in page
    assert "fired-rules" not in page


def test_a_rule_refused_by_its_conditions_is_explained(client, alice, world):
    rule = Rule.objects.get(world=world, key="low-health-warning")
    rule.conditions = [{"variableId": "health", "operator": "gt", "value": 50}]
    rule.save()
    page = run_turn(login(client, alice), world, "You fall. [health: -85]")
    assert "rule:low-health-warning: not fired on state:changed(health): conditions not met" in page
