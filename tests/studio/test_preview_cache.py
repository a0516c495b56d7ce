"""The draft cache behind the live preview (issue 14 §2): a preview with nothing changed reads
one stamp, an edit shows at once, and a cache another writer made stale is never served."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from engine.session import Message
from studio import draft_cache
from studio.forms.rows import load_pickers
from studio.items import create_item, delete_item, move_item, update_item
from studio.live import DraftEntry, draft_definition, preview_prompt
from studio.models import Entry, Rule, Variable, World
from tests.factories import make_world

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_cache() -> Any:
    draft_cache.forget()
    yield
    draft_cache.forget()


def add_tavern(world: World, **extra: Any) -> Entry:
    data = {"id": "tavern", "section": "chat-history", "keywords": ["tavern"], **extra}
    return create_item(world, Entry, {"content": "Smoke and song.", **data})


def fired(world: World, text: str, draft: DraftEntry | None = None) -> dict[str, str]:
    chat = [Message("user", text)]
    return preview_prompt(world, chat=chat, values={}, draft=draft).reasons


def contents(world: World) -> dict[str, str]:
    definition, _errors = draft_definition(world, None)
    return {e.id: e.content for e in definition.entries}


def test_a_preview_with_nothing_changed_reads_only_the_stamp(
    world: World, django_assert_num_queries: Any
) -> None:
    add_tavern(world)
    assert "tavern" in fired(world, "the tavern")
    with django_assert_num_queries(1):
        assert "tavern" in fired(world, "to the tavern")


def test_an_entry_edit_shows_in_the_next_preview_without_reading_the_rows(
    world: World, django_assert_num_queries: Any
) -> None:
    row = add_tavern(world)
    fired(world, "warm up")
    update_item(row, {"keywords": ["inn"], "content": "Ale."})
    with django_assert_num_queries(1):
        reasons = fired(world, "the inn, not the tavern")
    assert '"inn"' in reasons["tavern"]
    assert contents(world)["tavern"] == "Ale."


def test_variable_and_rule_edits_and_new_and_deleted_entries_are_patched(
    world: World, django_assert_num_queries: Any
) -> None:
    row = add_tavern(world)
    fired(world, "warm up")
    update_item(Variable.objects.get(world=world, key="health"), {"defaultValue": 42})
    update_item(Rule.objects.get(world=world, key="low-health-warning"), {"priority": 7})
    create_item(world, Entry, {"id": "mill", "section": "chat-history", "keywords": ["mill"]})
    delete_item(row)
    with django_assert_num_queries(1):
        definition, _ = draft_definition(world, None)
    assert definition.variables_by_id["health"].default_value == 42
    assert definition.rules_by_id["low-health-warning"].priority == 7
    assert [e.id for e in definition.entries] == ["narrator", "mill"]
    fresh = World.objects.get(pk=world.pk)  # as the editor's request loads it
    with django_assert_num_queries(0):  # its pickers read the cached draft too
        pickers = load_pickers(fresh)
    assert pickers.entries == [("narrator", "Narrator"), ("mill", "")]
    assert pickers.variables == {"health": ("Health", "number")}


def test_a_move_is_read_again_in_the_new_order_then_cached(
    world: World, django_assert_num_queries: Any
) -> None:
    add_tavern(world)
    fired(world, "warm up")
    move_item(Entry, Entry.objects.get(world=world, key="tavern"), 0)
    definition, _ = draft_definition(world, None)
    assert [e.id for e in definition.entries] == ["tavern", "narrator"]
    with django_assert_num_queries(1):
        assert draft_definition(world, None)[0] is definition


def test_another_worlds_edit_neither_leaks_nor_evicts(
    world: World, alice: Any, django_assert_num_queries: Any
) -> None:
    other = make_world(alice, id="0b7a3c2e-5d1f-4e8a-9c6b-000000000002")
    add_tavern(world)
    add_tavern(other)
    fired(world, "warm up")
    fired(other, "warm up")
    update_item(Entry.objects.get(world=other, key="tavern"), {"content": "Other ale."})
    with django_assert_num_queries(1):
        assert contents(world)["tavern"] == "Smoke and song."
    assert contents(other)["tavern"] == "Other ale."


def test_a_write_by_another_process_or_a_rolled_back_edit_is_never_served(
    world: World, django_assert_num_queries: Any
) -> None:
    row = add_tavern(world)
    mill = create_item(world, Entry, {"id": "mill", "content": "Stones."})
    fired(world, "warm up")
    # Another worker saves and touches: no listener of this process runs.
    Entry.objects.filter(pk=row.pk).update(content="Written elsewhere.")
    World.objects.filter(pk=world.pk).update(updated=timezone.now())
    # This process then edits another entry from its (now stale) copy: not patched, re-read.
    update_item(mill, {"content": "Ground here."})
    assert contents(world) == {
        "narrator": contents(world)["narrator"],
        "tavern": "Written elsewhere.",
        "mill": "Ground here.",
    }
    with pytest.raises(RuntimeError), transaction.atomic():
        update_item(mill, {"content": "Never saved."})
        raise RuntimeError
    assert contents(world)["mill"] == "Ground here."
    with django_assert_num_queries(1):
        assert contents(world)["mill"] == "Ground here."


def test_the_typed_entry_is_laid_over_the_cached_draft(
    world: World, django_assert_num_queries: Any
) -> None:
    add_tavern(world)
    fired(world, "warm up")
    typed = {"section": "chat-history", "keywords": ["hearth"], "content": "Typed."}
    with django_assert_num_queries(1):
        reasons = fired(world, "by the hearth", DraftEntry("tavern", typed))
    assert '"hearth"' in reasons["tavern"]
    assert "tavern" not in fired(world, "by the hearth")  # the saved draft is untouched
    bad = {**typed, "conditions": [{"variableId": "nope", "operator": "eq", "value": 1}]}
    _definition, errors = draft_definition(world, DraftEntry("tavern", bad))
    assert errors == ["entries[1].conditions[0].variableId: unknown variable 'nope'"]
    clash = {**typed, "id": "narrator"}
    _definition, errors = draft_definition(world, DraftEntry(None, clash))
    assert errors and "duplicate id 'narrator'" in errors[0]


def test_the_preview_endpoint_reads_no_entry_row_while_typing(client: Any, world: World) -> None:
    """Through the real URL: once warm, a keystroke's preview neither reads the entries nor
    rebuilds the world (the editor's pickers included)."""
    client.force_login(world.owner)
    url = reverse("studio:preview", args=[world.pk])
    form = {"preview-chat": "user: by the hearth", "preview-state": "{}"}
    typed = {
        "draft_kind": "entries",
        "draft_key": "narrator",
        "id": "narrator",
        "section": "chat-history",
        "position": "0",
        "role": "custom",
        "api_role": "system",
        "content": "Typed words.",
        "keywords": "hearth",
        "enabled": "on",
        "secondary_keyword_logic": "AND_ANY",
        "condition_logic": "all",
    }
    client.post(url, form, HTTP_HX_REQUEST="true")
    with CaptureQueriesContext(connection) as queries:
        response = client.post(url, {**form, **typed}, HTTP_HX_REQUEST="true")
    assert "Typed words." in response.content.decode()
    read = [q["sql"] for q in queries.captured_queries if 'FROM "studio_entry"' in q["sql"]]
    assert read == []
