"""Entry editor views: list with search and filters, create, edit, duplicate, delete, order."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studio.models import Entry, EntryFolder, World
from studio.worlds import create_item
from tests.factories import make_world
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


def entry(world: World, key: str = "narrator") -> Entry:
    return world.entries.get(key=key)


def add(world: World, **data: object) -> Entry:
    return create_item(world, Entry, data)


def entry_post(**overrides: object) -> dict[str, object]:
    data = {
        "id": "tavern",
        "name": "The Tavern",
        "section": "chat-history",
        "position": "0",
        "role": "lore",
        "api_role": "system",
        "content": "A smoky tavern.",
        "enabled": "on",
        "keywords": "tavern, inn",
        "secondary_keywords": "",
        "secondary_keyword_logic": "AND_ANY",
        "depth": "",
        "conditions": "",
        "condition_logic": "all",
        "tags": "place",
        "folder_id": "",
    }
    data.update(overrides)
    return data


# --- list -------------------------------------------------------------------------------


def test_list_shows_the_entries(client, alice, world):
    response = login(client, alice).get(reverse("studio:entries", args=[world.pk]))
    assert response.status_code == 200
    assert b"Narrator" in response.content
    assert b'id="preview-form"' in response.content
    assert b'<section id="playtest">' in response.content


def test_list_queries_do_not_grow_with_entries(client, alice, world, django_assert_num_queries):
    login(client, alice)
    url = reverse("studio:entries", args=[world.pk])
    with django_assert_num_queries(8):  # 7 + the condition rows' variable picker
        client.get(url)
    for n in range(5):
        add(world, name=f"Extra {n}", keywords=["x"], tags=["t"])
    with django_assert_num_queries(8):
        response = client.get(url)
    assert response.content.count(b'draggable="true"') == 6


def test_list_needs_login(client, world):
    response = client.get(reverse("studio:entries", args=[world.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_another_users_draft_is_404(client, charlie, world):
    response = login(client, charlie).get(reverse("studio:entries", args=[world.pk]))
    assert response.status_code == 404


def test_published_world_of_another_user_is_403(client, bob, world):
    publish(world)
    response = login(client, bob).get(reverse("studio:entries", args=[world.pk]))
    assert response.status_code == 403


def test_list_refuses_post(client, alice, world):
    response = login(client, alice).post(reverse("studio:entries", args=[world.pk]))
    assert response.status_code == 405


def test_htmx_list_gets_the_workspace_partial(client, alice, world):
    response = login(client, alice).get(reverse("studio:entries", args=[world.pk]), **hx())
    assert is_partial(response)
    assert b'id="item-list"' in response.content
    assert b'id="item-form"' in response.content


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("q=tav", ["The Tavern"]),
        ("q=mead", ["The Tavern"]),
        ("q=narr", ["Narrator"]),
        ("section=chat-history", ["The Tavern"]),
        ("tag=place", ["The Tavern"]),
        ("folder=rooms", ["The Tavern"]),
        ("q=nothing-matches", []),
    ],
)
def test_search_filters_by_name_keyword_section_tag_and_folder(
    client, alice, world, query, expected
):
    create_item(world, EntryFolder, {"id": "rooms", "name": "Rooms"})
    add(
        world,
        id="tavern",
        name="The Tavern",
        section="chat-history",
        keywords=["mead"],
        tags=["place"],
        folderId="rooms",
    )
    url = reverse("studio:entries", args=[world.pk]) + "?" + query
    response = login(client, alice).get(url, **hx("item-list"))
    html = response.content.decode()
    assert is_partial(response)
    assert 'id="item-form"' not in html
    shown = [name for name in ("Narrator", "The Tavern") if f">{name}</a>" in html]
    assert shown == expected


# --- create -----------------------------------------------------------------------------


def test_create_saves_and_redirects_without_js(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:entries_new", args=[world.pk]), entry_post()
    )
    created = entry(world, "tavern")
    assert response.status_code == 302
    assert response["Location"] == reverse("studio:entries_edit", args=[world.pk, created.pk])
    assert created.keywords == ["tavern", "inn"]
    assert created.section == "chat-history"
    assert created.tags == ["place"]


def test_create_with_htmx_returns_the_workspace_and_signals_the_change(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:entries_new", args=[world.pk]), entry_post(), **hx()
    )
    created = entry(world, "tavern")
    assert response.status_code == 200
    assert is_partial(response)
    assert response["HX-Trigger"] == '{"worldChanged": {}}'
    assert response["HX-Push-Url"] == reverse("studio:entries_edit", args=[world.pk, created.pk])
    assert "Created." in response.content.decode()


def test_create_without_id_makes_one_from_the_name(client, alice, world):
    login(client, alice).post(reverse("studio:entries_new", args=[world.pk]), entry_post(id=""))
    assert world.entries.filter(key="the-tavern").exists()


def test_create_rejects_a_bad_id_on_the_id_field(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:entries_new", args=[world.pk]), entry_post(id="Bad Id"), **hx()
    )
    assert response.status_code == 200
    assert errors_of(response) == [
        "must be kebab-case (lowercase letters, digits and single hyphens)"
    ]
    assert 'id="field-id"' in response.content.decode()
    assert not world.entries.filter(name="The Tavern").exists()


def test_create_shows_the_engine_path_of_a_bad_condition(client, alice, world):
    conditions = '[{"variableId": "health", "operator": "bogus", "value": 1}]'
    response = login(client, alice).post(
        reverse("studio:entries_new", args=[world.pk]), entry_post(conditions=conditions)
    )
    assert errors_of(response) == [
        "conditions[0].operator: must be one of eq, neq, gt, lt, gte, lte, contains"
    ]
    assert world.entries.count() == 1


def test_create_rejects_json_that_does_not_parse(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:entries_new", args=[world.pk]), entry_post(conditions="[{")
    )
    assert errors_of(response) == [
        "Not valid JSON: Expecting property name enclosed in double quotes at line 1 column 3"
    ]


def test_condition_rows_save_the_entry_conditions(client, alice, world):
    post = entry_post(editor="form", condition_logic="any", conditions="[{")  # raw side: unread
    post |= {"cond-TOTAL_FORMS": "3", "cond-INITIAL_FORMS": "0"}
    post |= {"cond-0-variable_id": "health", "cond-0-operator": "lte", "cond-0-value": "40"}
    post |= {"cond-1-variable_id": "", "cond-1-operator": "eq", "cond-1-value": ""}  # blank
    post |= {"cond-2-variable_id": "health", "cond-2-operator": "gt", "cond-2-value": "0"}
    login(client, alice).post(reverse("studio:entries_new", args=[world.pk]), post)
    created = entry(world, "tavern")
    assert created.conditions == [
        {"variableId": "health", "operator": "lte", "value": 40},
        {"variableId": "health", "operator": "gt", "value": 0},
    ]
    assert created.condition_logic == "any"


def test_a_condition_row_error_names_its_path(client, alice, world):
    post = entry_post(editor="form", conditions="[]")
    post |= {"cond-TOTAL_FORMS": "1", "cond-INITIAL_FORMS": "0"}
    post |= {"cond-0-variable_id": "health", "cond-0-operator": "eq", "cond-0-value": "full"}
    response = login(client, alice).post(reverse("studio:entries_new", args=[world.pk]), post)
    assert errors_of(response) == ["conditions[0].value: enter a number"]
    assert "<details open>" in response.content.decode()


def test_the_secondary_keyword_logic_is_explained(client, alice, world):
    html = login(client, alice).get(reverse("studio:entries_new", args=[world.pk])).content
    html = html.decode()
    assert (
        '<input type="radio" name="secondary_keyword_logic" value="AND_ANY" '
        'id="id_secondary_keyword_logic_0" required checked> '
        "AND ANY: a primary keyword and at least one of these</label>"
    ) in html
    assert "NOT ALL: a primary keyword, unless all of these match too" in html
    assert "SillyTavern: “Non-recursable”" in html


def test_create_refuses_a_duplicate_id(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:entries_new", args=[world.pk]), entry_post(id="narrator")
    )
    assert errors_of(response) == ["duplicate id 'narrator' (another entry uses it)"]


def test_create_refuses_an_unknown_section(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:entries_new", args=[world.pk]), entry_post(section="nowhere")
    )
    assert errors_of(response) == [
        "Select a valid choice. nowhere is not one of the available choices."
    ]


def test_create_is_403_on_a_read_only_world(client, bob, world):
    publish(world)
    response = login(client, bob).post(reverse("studio:entries_new", args=[world.pk]), entry_post())
    assert response.status_code == 403
    assert not world.entries.filter(key="tavern").exists()


def test_create_is_404_for_a_stranger(client, charlie, world):
    response = login(client, charlie).post(
        reverse("studio:entries_new", args=[world.pk]), entry_post()
    )
    assert response.status_code == 404


def test_create_refuses_put(client, alice, world):
    response = login(client, alice).put(reverse("studio:entries_new", args=[world.pk]))
    assert response.status_code == 405


# --- edit -------------------------------------------------------------------------------


def test_edit_form_shows_the_entry(client, alice, world):
    row = entry(world)
    response = login(client, alice).get(reverse("studio:entries_edit", args=[world.pk, row.pk]))
    html = response.content.decode()
    assert "You narrate the salt road." in html
    assert 'name="draft_key" value="narrator"' in html


def test_edit_saves_changes(client, alice, world):
    row = entry(world)
    data = entry_post(id="narrator", name="Narrator 2", section="system-presets", keywords="")
    response = login(client, alice).post(
        reverse("studio:entries_edit", args=[world.pk, row.pk]), data
    )
    row.refresh_from_db()
    assert response.status_code == 302
    assert row.name == "Narrator 2"
    assert row.content == "A smoky tavern."


def test_edit_with_an_empty_id_keeps_the_old_one(client, alice, world):
    row = entry(world)
    login(client, alice).post(
        reverse("studio:entries_edit", args=[world.pk, row.pk]), entry_post(id="")
    )
    row.refresh_from_db()
    assert row.key == "narrator"


def test_edit_bad_input_rerenders_with_the_error_and_keeps_the_row(client, alice, world):
    row = entry(world)
    response = login(client, alice).post(
        reverse("studio:entries_edit", args=[world.pk, row.pk]), entry_post(depth="-1"), **hx()
    )
    row.refresh_from_db()
    assert errors_of(response) == ["Ensure this value is greater than or equal to 0."]
    assert is_partial(response)
    assert row.name == "Narrator"


def test_edit_of_an_entry_in_another_world_is_404(client, alice, world):
    other = make_world(alice, id="other-world")
    row = other.entries.first()
    response = login(client, alice).get(reverse("studio:entries_edit", args=[world.pk, row.pk]))
    assert response.status_code == 404


def test_edit_is_403_on_a_read_only_world(client, bob, world):
    publish(world)
    row = entry(world)
    url = reverse("studio:entries_edit", args=[world.pk, row.pk])
    assert login(client, bob).post(url, entry_post()).status_code == 403


def test_edit_needs_login(client, world):
    row = entry(world)
    response = client.get(reverse("studio:entries_edit", args=[world.pk, row.pk]))
    assert response.status_code == 302


def test_edit_htmx_get_returns_the_partial(client, alice, world):
    row = entry(world)
    response = login(client, alice).get(
        reverse("studio:entries_edit", args=[world.pk, row.pk]), **hx()
    )
    assert is_partial(response)
    assert b'aria-current="true"' in response.content


def test_creator_content_is_escaped(client, alice, world):
    add(world, id="xss", name="<b>bold</b>", content="<script>alert(1)</script>")
    row = entry(world, "xss")
    response = login(client, alice).get(reverse("studio:entries_edit", args=[world.pk, row.pk]))
    html = response.content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>bold</b>" not in html


# --- delete, duplicate, order -------------------------------------------------------------


def test_delete_removes_and_redirects(client, alice, world):
    row = entry(world)
    response = login(client, alice).post(reverse("studio:entries_delete", args=[world.pk, row.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("studio:entries", args=[world.pk])
    assert not world.entries.exists()


def test_delete_with_htmx_returns_the_workspace(client, alice, world):
    row = entry(world)
    response = login(client, alice).post(
        reverse("studio:entries_delete", args=[world.pk, row.pk]), **hx()
    )
    assert is_partial(response)
    assert response["HX-Trigger"] == '{"worldChanged": {}}'
    assert "Nothing here yet." in response.content.decode()


def test_delete_refuses_get(client, alice, world):
    row = entry(world)
    response = login(client, alice).get(reverse("studio:entries_delete", args=[world.pk, row.pk]))
    assert response.status_code == 405
    assert world.entries.exists()


def test_delete_is_403_read_only_and_404_for_strangers(client, bob, charlie, world):
    row = entry(world)
    url = reverse("studio:entries_delete", args=[world.pk, row.pk])
    assert login(client, charlie).post(url).status_code == 404
    publish(world)
    assert login(client, bob).post(url).status_code == 403
    assert world.entries.exists()


def test_duplicate_copies_with_a_fresh_id(client, alice, world):
    row = entry(world)
    response = login(client, alice).post(
        reverse("studio:entries_duplicate", args=[world.pk, row.pk])
    )
    copy = entry(world, "narrator-copy")
    assert response["Location"] == reverse("studio:entries_edit", args=[world.pk, copy.pk])
    assert copy.content == row.content


def test_duplicate_refuses_get(client, alice, world):
    row = entry(world)
    url = reverse("studio:entries_duplicate", args=[world.pk, row.pk])
    assert login(client, alice).get(url).status_code == 405


def keys(world: World) -> list[str]:
    return list(world.entries.order_by("position").values_list("key", flat=True))


def test_move_down_and_up_swaps_neighbours(client, alice, world):
    add(world, id="second")
    login(client, alice)
    first = entry(world)
    client.post(reverse("studio:entries_move", args=[world.pk, first.pk]), {"direction": "down"})
    assert keys(world) == ["second", "narrator"]
    response = client.post(
        reverse("studio:entries_move", args=[world.pk, first.pk]),
        {"direction": "up", "current": first.pk},
        **hx("item-list"),
    )
    assert keys(world) == ["narrator", "second"]
    assert is_partial(response)
    assert b'id="item-form"' not in response.content


def test_move_without_js_returns_to_the_open_entry(client, alice, world):
    add(world, id="second")
    first = entry(world)
    response = login(client, alice).post(
        reverse("studio:entries_move", args=[world.pk, first.pk]),
        {"direction": "down", "current": first.pk},
    )
    assert response["Location"] == reverse("studio:entries_edit", args=[world.pk, first.pk])


def test_reorder_puts_entries_in_the_posted_order(client, alice, world):
    second = add(world, id="second")
    third = add(world, id="third")
    first = entry(world)
    response = login(client, alice).post(
        reverse("studio:entries_reorder", args=[world.pk]),
        {"order": [third.pk, first.pk, second.pk]},
        **hx("item-list"),
    )
    assert response.status_code == 200
    assert keys(world) == ["third", "narrator", "second"]


def test_reorder_refuses_items_of_another_world(client, alice, world):
    other = make_world(alice, id="other-world").entries.first()
    response = login(client, alice).post(
        reverse("studio:entries_reorder", args=[world.pk]), {"order": [other.pk]}
    )
    assert response.status_code == 400
    assert response.content == f"order: unknown item {other.pk}".encode()


def test_reorder_refuses_get(client, alice, world):
    response = login(client, alice).get(reverse("studio:entries_reorder", args=[world.pk]))
    assert response.status_code == 405
