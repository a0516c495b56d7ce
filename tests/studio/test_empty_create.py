"""Empty Create makes no junk (issue 35 §1, §2): required boxes named, the section explained."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from studio.models import AudioTrack, ConditionalBGM, Entry, EntryFolder, Reaction, Rule, Variable
from tests.studio.view_helpers import errors_of, hx, login

pytestmark = pytest.mark.django_db

ENTRY = {
    "id": "",
    "name": "Ferryman",
    "section": "",
    "position": "0",
    "role": "custom",
    "api_role": "system",
    "content": "Cob rows the dead across.",
    "secondary_keyword_logic": "AND_ANY",
    "condition_logic": "all",
}


def post(client: Any, world: Any, slug: str, data: dict[str, Any]) -> Any:
    return client.post(reverse(f"studio:{slug}_new", args=[world.pk]), data, **hx())


@pytest.mark.parametrize(
    ("slug", "model"),
    [
        ("entries", Entry),
        ("variables", Variable),
        ("rules", Rule),
        ("reactions", Reaction),
        ("audio", AudioTrack),
        ("bgm", ConditionalBGM),
        ("folders", EntryFolder),
    ],
)
def test_an_empty_create_is_refused_naming_the_name_box(client, alice, world, slug, model):
    before = model.objects.filter(world=world).count()
    response = post(login(client, alice), world, slug, {})
    assert response.status_code == 200
    assert "Name is required." in errors_of(response)
    assert model.objects.filter(world=world).count() == before


def test_an_entry_without_content_is_refused(client, alice, world):
    response = post(login(client, alice), world, "entries", {**ENTRY, "content": " "})
    assert errors_of(response) == ["Content is required."]
    assert not Entry.objects.filter(world=world, name="Ferryman").exists()


def test_a_rule_without_actions_is_refused(client, alice, world):
    data = {"name": "Pay", "priority": "0", "trigger_type": "every-turn", "condition_logic": "all"}
    response = post(login(client, alice), world, "rules", data)
    assert errors_of(response) == [
        "Actions: add at least one action under “Then”, or the rule does nothing."
    ]
    assert not Rule.objects.filter(world=world, name="Pay").exists()


def test_the_required_message_is_translated(client, alice, world):
    login(client, alice)
    client.post(reverse("set_language"), {"language": "es", "next": "/"})
    assert "Nombre es obligatorio." in errors_of(post(client, world, "variables", {}))


@pytest.mark.parametrize(
    ("keywords", "section", "saved"),
    [
        ("ferryman, Cob", "", "chat-history"),
        ("", "", "system-presets"),
        ("ferryman", "post-history", "post-history"),
    ],
)
def test_a_new_entry_with_keywords_goes_to_chat_history(
    client, alice, world, keywords, section, saved
):
    data = {**ENTRY, "keywords": keywords, "section": section}
    response = login(client, alice).post(reverse("studio:entries_new", args=[world.pk]), data)
    assert response.status_code == 302, errors_of(response)
    assert Entry.objects.get(world=world, name="Ferryman").section == saved


def test_the_section_box_explains_what_keywords_need(client, alice, world):
    html = login(client, alice).get(reverse("studio:entries_new", args=[world.pk])).content
    page = html.decode()
    assert "Automatic: chat history if it has keywords, else system presets" in page
    assert "Keywords only work in chat history" in page
