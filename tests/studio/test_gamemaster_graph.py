"""The location graph: a compass layout computed in Python, drawn as server-side SVG."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings
from django.urls import reverse

from studio.gamemaster_graph import (
    CELL_H,
    CELL_W,
    MARGIN,
    NODE_H,
    NODE_W,
    layout,
    location_graph,
)
from studio.worlds import import_world
from tests.factories import world_data
from tests.studio.gm_helpers import demo_data, small_block


def place(key: str, *exits: tuple[str, str], **extra: object) -> dict[str, object]:
    return {
        "id": key,
        "name": key.title(),
        "exits": [{"direction": d, "to": t} for d, t in exits],
        **extra,
    }


def test_neighbours_go_one_cell_the_way_their_exit_points():
    cells = layout(
        ["hall", "yard", "gate", "well"],
        [("hall", "yard", "north"), ("hall", "gate", "east"), ("yard", "well", "west")],
    )
    assert cells == {"hall": (0, 0), "yard": (0, -1), "gate": (1, 0), "well": (-1, -1)}


def test_a_taken_cell_sends_the_newcomer_to_the_nearest_free_one():
    cells = layout(["a", "b", "c"], [("a", "b", "north"), ("a", "c", "north")])
    assert cells["b"] == (0, -1)
    assert cells["c"] == (0, -2)  # on along the same way first


def test_compass_exits_are_placed_before_up_down_in_and_out():
    cells = layout(
        ["inn", "cellar", "square", "road"],
        [("inn", "cellar", "down"), ("inn", "square", "south"), ("square", "road", "east")],
    )
    assert cells["road"] == (1, 1)  # where "east of the square" is, not pushed by the cellar
    assert cells["cellar"] not in (cells["road"], cells["square"])


def test_unconnected_groups_sit_side_by_side():
    cells = layout(["a", "b", "c"], [("a", "b", "east")])
    assert cells == {"a": (0, 0), "b": (1, 0), "c": (3, 0)}


def test_the_same_block_always_draws_the_same_picture():
    locations = demo_data()["gameMaster"]["locations"]
    assert location_graph(locations) == location_graph(demo_data()["gameMaster"]["locations"])


def test_boxes_sit_on_the_grid_from_the_top_left():
    graph = location_graph([place("hall", ("north", "yard")), place("yard")])
    yard, hall = sorted(graph.nodes, key=lambda n: n.y)
    assert (yard.id, hall.id) == ("yard", "hall")
    assert (yard.x, yard.y) == (MARGIN + (CELL_W - NODE_W) / 2, MARGIN + (CELL_H - NODE_H) / 2)
    assert hall.y - yard.y == CELL_H
    assert (graph.width, graph.height) == (CELL_W + 2 * MARGIN, 2 * CELL_H + 2 * MARGIN)


def test_an_edge_runs_between_the_box_borders_with_its_direction():
    graph = location_graph([place("hall", ("north", "yard")), place("yard")])
    (edge,) = graph.edges
    hall = next(n for n in graph.nodes if n.id == "hall")
    yard = next(n for n in graph.nodes if n.id == "yard")
    assert (edge.source, edge.target, edge.direction) == ("hall", "yard", "north")
    assert edge.x1 == edge.x2 == hall.cx
    assert edge.y1 < hall.y and edge.y2 > yard.y + NODE_H
    assert edge.css == "gm-edge"


def test_a_way_back_is_drawn_beside_the_way_there():
    graph = location_graph([place("hall", ("north", "yard")), place("yard", ("south", "hall"))])
    there, back = graph.edges
    assert there.x1 != back.x1
    assert abs(there.x1 - back.x1) == 14


def test_locked_and_hidden_exits_are_styled():
    exits = [
        {"direction": "north", "to": "yard", "locked": True},
        {"direction": "down", "to": "yard", "hidden": True},
    ]
    graph = location_graph([{"id": "hall", "name": "Hall", "exits": exits}, place("yard")])
    assert [e.css for e in graph.edges] == ["gm-edge locked", "gm-edge hidden"]


def test_an_exit_to_a_missing_location_ends_at_a_missing_box():
    graph = location_graph([place("hall", ("east", "moon"))])
    moon = next(n for n in graph.nodes if n.id == "moon")
    assert moon.missing
    assert moon.title == "missing location 'moon'"
    assert graph.edges[0].css == "gm-edge missing"


def test_long_names_are_shortened_in_the_box_but_whole_in_the_title():
    graph = location_graph([{"id": "x", "name": "The Very Long Name Of A Tavern By The Sea"}])
    (node,) = graph.nodes
    assert node.label == "The Very Long Name Of…"
    assert node.title == "The Very Long Name Of A Tavern By The Sea (x)"


def test_no_locations_is_an_empty_graph():
    graph = location_graph([])
    assert (graph.nodes, graph.edges) == ((), ())


# --- the SVG in the page -----------------------------------------------------------------


@pytest.mark.django_db
def test_the_page_draws_each_edge_and_links_each_box_to_its_form(client, alice):
    world = import_world(alice, world_data(gameMaster=small_block()))
    client.force_login(alice)
    html = client.get(reverse("studio:gm_locations", args=[world.pk])).content.decode()
    edit = reverse("studio:gm_locations_edit", args=[world.pk, "hall"])
    assert f'<a class="gm-node" data-location="hall" href="{edit}">' in html
    assert '<g class="gm-edge" data-from="hall" data-to="yard" data-direction="north">' in html
    assert 'marker-end="url(#gm-arrow)"' in html
    assert ">north</text>" in html


@pytest.mark.django_db
def test_names_in_the_svg_are_escaped(client, alice):
    block = small_block()
    block["locations"][0]["name"] = "<script>alert(1)</script>"
    world = import_world(alice, world_data(gameMaster=block))
    client.force_login(alice)
    html = client.get(reverse("studio:gm", args=[world.pk])).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.django_db
@override_settings(LANGUAGE_CODE="es")
def test_coordinates_are_never_localised(client, alice):
    block = small_block()
    block["locations"][1]["exits"] = [{"direction": "northeast", "to": "hall"}]
    world = import_world(alice, world_data(gameMaster=block))
    client.force_login(alice)
    client.cookies["django_language"] = "es"
    html = client.get(reverse("studio:gm", args=[world.pk])).content.decode()
    coordinates = re.findall(r'\b(?:x1|y1|x2|y2|x|y)="([^"]*)"', html)
    assert coordinates
    assert all(re.fullmatch(r"-?\d+(\.\d+)?", c) for c in coordinates), coordinates
