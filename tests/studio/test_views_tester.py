"""The directive tester: clean text, state diff, audio cues, skipped directives and why."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from studio.models import AudioTrack
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
