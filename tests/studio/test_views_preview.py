"""The live prompt preview: blocks by step, fired entries and why, the cache breakpoint."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from engine.prompt import assemble_prompt
from engine.session import Message
from studio.models import Entry
from studio.worlds import create_item, world_to_definition
from tests.studio.view_helpers import hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


def post(**data: str) -> dict[str, str]:
    return {"preview-chat": "", "preview-state": "", **{f"preview-{k}": v for k, v in data.items()}}


def tavern(world, **extra: object) -> Entry:
    data = {
        "id": "tavern",
        "name": "The Tavern",
        "section": "chat-history",
        "keywords": ["tavern"],
        "content": "Smoke and song.",
    }
    return create_item(world, Entry, {**data, **extra})


def preview(client, world, data, **headers):
    return client.post(reverse("studio:preview", args=[world.pk]), data, **headers)


def text(response) -> str:
    return unescape(re.sub(r"\s+", " ", response.content.decode()))


def test_a_keyword_in_the_chat_fires_the_entry_with_its_reason(client, alice, world):
    tavern(world)
    response = preview(
        login(client, alice), world, post(chat="user: I walk into the tavern."), **hx()
    )
    page = text(response)
    assert response.status_code == 200
    assert is_partial(response)
    assert (
        'The Tavern</strong> — <span class="reason">keyword "tavern" in message -1 (user)' in page
    )
    assert '<li class="block role-system fired" data-step="6" data-entry="tavern">' in page
    assert "Step 6 · Triggered entries" in page


def test_without_the_keyword_the_entry_stays_out(client, alice, world):
    tavern(world)
    page = text(preview(login(client, alice), world, post(chat="user: hello"), **hx()))
    assert 'data-entry="tavern"' not in page
    assert "Smoke and song." not in page


def test_blocks_show_step_role_and_tokens_and_the_breakpoint_size(client, alice, world):
    tavern(world)
    chat = "user: the tavern\nassistant: Welcome."
    page = text(preview(login(client, alice), world, post(chat=chat), **hx()))
    result = assemble_prompt(
        world_to_definition(world),
        [Message("user", "the tavern"), Message("assistant", "Welcome.")],
    )
    cached = sum(b.tokens for b in result.blocks if b.step < 5)
    assert f"cache breakpoint · {cached} cacheable tokens above" in page
    assert page.index("Step 3 · Static format") < page.index("cache breakpoint")
    assert page.index("cache breakpoint") < page.index("Step 7 · Start of chat")
    assert f"<strong>{result.tokens}</strong> tokens" in page
    first = result.blocks[0]
    assert f'<span class="tokens">{first.tokens} tok</span>' in page
    assert '<span class="badge">assistant</span>' in page


def test_sample_state_and_persona_reach_the_prompt(client, alice, world):
    data = post(chat="user: hi", state='{"health": 7}', persona_name="Mira")
    data["preview-persona_appearance"] = "Tall, silver-haired."
    page = text(preview(login(client, alice), world, data, **hx()))
    assert "Tall, silver-haired." in page
    assert "Step 2 · Active persona" in page
    assert re.search(r"health\W+7", page)


def test_chat_as_json_is_accepted(client, alice, world):
    tavern(world)
    chat = '[{"role": "user", "content": "to the tavern"}]'
    page = text(preview(login(client, alice), world, post(chat=chat), **hx()))
    assert 'data-entry="tavern"' in page


def test_the_unsaved_entry_being_typed_is_previewed(client, alice, world):
    data = post(chat="user: hi")
    data.update(
        {
            "draft_kind": "entries",
            "draft_key": "narrator",
            "id": "narrator",
            "name": "Narrator",
            "section": "system-presets",
            "position": "0",
            "role": "system",
            "api_role": "system",
            "content": "Unsaved words of the narrator.",
            "enabled": "on",
            "secondary_keyword_logic": "AND_ANY",
            "condition_logic": "all",
        }
    )
    page = text(preview(login(client, alice), world, data, **hx()))
    assert "Unsaved words of the narrator." in page
    assert "You narrate the salt road." not in page
    assert world.entries.get().content.startswith("You narrate")


def test_an_invalid_draft_is_reported_and_the_saved_world_is_shown(client, alice, world):
    data = post(chat="user: hi")
    data.update({"draft_kind": "entries", "draft_key": "narrator", "section": "nowhere"})
    page = text(preview(login(client, alice), world, data, **hx()))
    assert "Unsaved changes are not shown until they are valid:" in page
    assert "section: Select a valid choice. nowhere is not one of the available choices." in page
    assert "You narrate the salt road." in page


def test_bad_sample_input_is_reported(client, alice, world):
    response = preview(login(client, alice), world, post(state="[1]", chat="[{"), **hx())
    page = text(response)
    assert "chat: Not valid JSON: Expecting property name enclosed in double quotes" in page
    assert "state: Must be a JSON object of variable ids and values." in page
    assert "cache breakpoint" not in page


def test_creator_content_is_escaped_in_the_preview(client, alice, world):
    create_item(world, Entry, {"id": "evil", "content": "<img src=x onerror=alert(1)>"})
    html = preview(login(client, alice), world, post(chat="user: hi"), **hx()).content.decode()
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_without_htmx_the_preview_is_a_full_page(client, alice, world):
    response = preview(login(client, alice), world, post(chat="user: hi"))
    assert b"<html" in response.content
    assert b'id="cache-breakpoint"' in response.content
    assert b"user: hi" in response.content


def test_preview_checklist(client, alice, bob, charlie, world):
    url = reverse("studio:preview", args=[world.pk])
    assert client.post(url, post()).status_code == 302
    assert login(client, charlie).post(url, post()).status_code == 404
    assert login(client, alice).get(url).status_code == 405
    publish(world)
    assert login(client, bob).post(url, post()).status_code == 403


def test_editor_page_prefills_the_sample_state_with_defaults(client, alice, world):
    html = login(client, alice).get(reverse("studio:entries", args=[world.pk])).content.decode()
    assert re.search(r'name="preview-state"[^>]*>\s*\{\s*&quot;health&quot;: 100\s*\}', html)
    assert 'hx-trigger="load, submit, input changed delay:400ms' in html


def test_an_untouched_new_entry_form_is_not_previewed(client, alice, world):
    data = post(chat="user: hi")
    data.update(
        {
            "draft_kind": "entries",
            "draft_key": "",
            "section": "system-presets",
            "position": "0",
            "role": "custom",
            "api_role": "system",
            "enabled": "on",
            "secondary_keyword_logic": "AND_ANY",
            "condition_logic": "all",
        }
    )
    page = text(preview(login(client, alice), world, data, **hx()))
    assert "draft-entry" not in page
    data["content"] = "A brand new rule of the road."
    page = text(preview(client, world, data, **hx()))
    assert "A brand new rule of the road." in page


def test_the_playtests_session_memory_shows_at_its_step(client, alice, world):
    from play.playtests import reset_playtest

    session = reset_playtest(alice, world, mode="offline")
    session.state = {**session.state, "session_memory": "The caravan crossed the salt flats."}
    session.save(update_fields=["state"])
    login(client, alice)

    without = text(preview(client, world, post(chat="user: hi"), **hx()))
    page = text(preview(client, world, post(chat="user: hi", playtest_memory="on"), **hx()))

    assert "The caravan crossed the salt flats." not in without
    assert "Step 9 · Session memory" in page
    assert "The caravan crossed the salt flats." in page
