"""The location graph of the game-master editor (issue 10 §1): places as boxes, exits as arrows.

The layout is computed here, in Python, so the page is plain server-rendered SVG (no script, no
style attribute: the CSP allows neither). It follows the compass: walking the exits breadth
first from the first location, each neighbour goes one grid cell in its exit's direction (north
is up, east is right; up/down/in/out go diagonally), or to the nearest free cell when that one
is taken. Unconnected groups sit side by side. The same block always draws the same picture.
An exit to a location that does not exist is drawn to a dashed "missing" box, so the linter's
complaint has a picture.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

STEPS: dict[str, tuple[int, int]] = {
    "north": (0, -1),
    "south": (0, 1),
    "east": (1, 0),
    "west": (-1, 0),
    "northeast": (1, -1),
    "northwest": (-1, -1),
    "southeast": (1, 1),
    "southwest": (-1, 1),
    "up": (1, -1),
    "down": (1, 1),
    "in": (1, 0),
    "out": (-1, 0),
}
COMPASS = frozenset(list(STEPS)[:8])
CELL_W, CELL_H = 210, 120  # grid pitch
NODE_W, NODE_H = 150, 44
MARGIN = 24
PAIR_OFFSET = 7  # two exits between the same places are drawn side by side
MAX_LABEL = 22

Cell = tuple[int, int]


@dataclass(frozen=True)
class Node:
    id: str
    label: str  # the name, shortened to fit the box
    title: str  # the full name and id (the SVG tooltip)
    x: float  # top-left corner
    y: float
    missing: bool = False

    @property
    def w(self) -> int:
        return NODE_W

    @property
    def h(self) -> int:
        return NODE_H

    @property
    def cx(self) -> float:
        return self.x + NODE_W / 2

    @property
    def cy(self) -> float:
        return self.y + NODE_H / 2


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    direction: str
    x1: float
    y1: float
    x2: float
    y2: float
    lx: float  # where the direction label goes
    ly: float
    locked: bool
    hidden: bool
    missing: bool

    @property
    def css(self) -> str:
        names = ["gm-edge"]
        names += [n for n, on in (("locked", self.locked), ("hidden", self.hidden)) if on]
        return " ".join(names + (["missing"] if self.missing else []))


@dataclass(frozen=True)
class Graph:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    width: float
    height: float


def location_graph(locations: Iterable[Mapping[str, Any]]) -> Graph:
    """Lay out the locations of a ``gameMaster`` block (its JSON) and their exits."""
    places = [p for p in locations if isinstance(p, Mapping) and p.get("id")]
    names = {str(p["id"]): str(p.get("name") or p["id"]) for p in places}
    exits = [
        (str(p["id"]), e) for p in places for e in p.get("exits") or [] if isinstance(e, Mapping)
    ]
    ghosts = list(
        dict.fromkeys(str(e.get("to")) for _s, e in exits if str(e.get("to")) not in names)
    )
    cells = layout(list(names), [(s, str(e.get("to")), str(e.get("direction"))) for s, e in exits])
    for n, ghost in enumerate(ghosts):
        cells[ghost] = _free(cells, _ghost_spot(cells, exits, ghost, n))
    cells = _normalised(cells)
    nodes = {key: _node(key, names.get(key), cell) for key, cell in cells.items()}
    edges = tuple(_edge(nodes, source, e, exits) for source, e in exits)
    width = (max((c[0] for c in cells.values()), default=0) + 1) * CELL_W + 2 * MARGIN
    height = (max((c[1] for c in cells.values()), default=0) + 1) * CELL_H + 2 * MARGIN
    return Graph(tuple(nodes.values()), edges, width, height)


def layout(ids: list[str], exits: list[tuple[str, str, str]]) -> dict[str, Cell]:
    """A grid cell per id, following the exits' compass directions (deterministic).

    Compass exits are walked first: "up", "down", "in" and "out" only guess a side of the map,
    so they place a location only when no compass exit reaches it.
    """
    links: dict[str, list[tuple[str, Cell, bool]]] = {i: [] for i in ids}
    for source, target, direction in exits:
        if source in links and target in links and source != target:
            dx, dy = STEPS.get(direction, (1, 0))
            compass = direction in COMPASS
            links[source].append((target, (dx, dy), compass))
            links[target].append((source, (-dx, -dy), compass))  # walked backwards, too
    cells: dict[str, Cell] = {}
    for start in ids:
        if start in cells:
            continue
        right = max((c[0] for c in cells.values()), default=-2) + 2
        cells[start] = _free(cells, (right, 0))
        _walk(start, links, cells)
    return cells


def _walk(
    start: str, links: Mapping[str, list[tuple[str, Cell, bool]]], cells: dict[str, Cell]
) -> None:
    main, late = deque([start]), deque[tuple[str, str, Cell]]()
    while main or late:
        if not main:
            here, other, (dx, dy) = late.popleft()
            if other not in cells:
                cells[other] = _free(cells, (cells[here][0] + dx, cells[here][1] + dy))
                main.append(other)
            continue
        here = main.popleft()
        for other, step, compass in links[here]:
            if other in cells:
                continue
            if not compass:
                late.append((here, other, step))
                continue
            cells[other] = _free(cells, (cells[here][0] + step[0], cells[here][1] + step[1]))
            main.append(other)


def _free(cells: Mapping[str, Cell], want: Cell) -> Cell:
    """``want``, or the nearest free cell around it (ring by ring, in a fixed order)."""
    taken = set(cells.values())
    if want not in taken:
        return want
    for ring in range(1, 1000):
        around = [
            (want[0] + dx, want[1] + dy)
            for dy in range(-ring, ring + 1)
            for dx in range(-ring, ring + 1)
            if max(abs(dx), abs(dy)) == ring
        ]
        around.sort(key=lambda c: (abs(c[0] - want[0]) + abs(c[1] - want[1]), c[1], c[0]))
        for cell in around:
            if cell not in taken:
                return cell
    raise AssertionError("unreachable: a ring always has a free cell")


def _ghost_spot(
    cells: Mapping[str, Cell], exits: list[tuple[str, Mapping[str, Any]]], ghost: str, n: int
) -> Cell:
    for source, e in exits:
        if str(e.get("to")) == ghost and source in cells:
            dx, dy = STEPS.get(str(e.get("direction")), (1, 0))
            return cells[source][0] + dx, cells[source][1] + dy
    return 0, -1 - n


def _normalised(cells: dict[str, Cell]) -> dict[str, Cell]:
    if not cells:
        return cells
    left = min(c[0] for c in cells.values())
    top = min(c[1] for c in cells.values())
    return {k: (c[0] - left, c[1] - top) for k, c in cells.items()}


def _node(key: str, name: str | None, cell: Cell) -> Node:
    label = name if name is not None else f"? {key}"
    short = label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"
    x = MARGIN + cell[0] * CELL_W + (CELL_W - NODE_W) / 2
    y = MARGIN + cell[1] * CELL_H + (CELL_H - NODE_H) / 2
    title = f"{label} ({key})" if name is not None else f"missing location '{key}'"
    return Node(key, short, title, x, y, missing=name is None)


def _edge(
    nodes: Mapping[str, Node],
    source: str,
    e: Mapping[str, Any],
    exits: list[tuple[str, Mapping[str, Any]]],
) -> Edge:
    target = str(e.get("to"))
    a, b = nodes[source], nodes[target]
    both_ways = any(s == target and str(o.get("to")) == source for s, o in exits)
    x1, y1, x2, y2 = _clipped(a, b, PAIR_OFFSET if both_ways else 0)
    direction = str(e.get("direction") or "")
    lx, ly = x1 + (x2 - x1) * 0.45, y1 + (y2 - y1) * 0.45 - 4
    return Edge(
        source=source,
        target=target,
        direction=direction,
        x1=round(x1, 1),
        y1=round(y1, 1),
        x2=round(x2, 1),
        y2=round(y2, 1),
        lx=round(lx, 1),
        ly=round(ly, 1),
        locked=bool(e.get("locked")),
        hidden=bool(e.get("hidden")),
        missing=b.missing,
    )


def _clipped(a: Node, b: Node, offset: float) -> tuple[float, float, float, float]:
    """The segment between the two boxes' centres, cut at their borders, shifted sideways by
    ``offset`` (to its right) so that a way back does not hide under it."""
    dx, dy = b.cx - a.cx, b.cy - a.cy
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length * offset, dx / length * offset
    start = _border(a.cx + nx, a.cy + ny, dx, dy)
    end = _border(b.cx + nx, b.cy + ny, -dx, -dy)
    return start[0], start[1], end[0], end[1]


def _border(cx: float, cy: float, dx: float, dy: float) -> tuple[float, float]:
    """Where a ray from a box's centre towards (dx, dy) leaves the box (plus a small gap)."""
    if dx == 0 and dy == 0:
        return cx, cy
    scale = min(
        (NODE_W / 2 + 4) / abs(dx) if dx else math.inf,
        (NODE_H / 2 + 4) / abs(dy) if dy else math.inf,
    )
    return cx + dx * scale, cy + dy * scale
