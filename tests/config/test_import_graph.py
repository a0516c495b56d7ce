"""The import graph of engine/, play/ and studio/ runs one way (issue 36, "The house").

Every ``import`` is read with ``ast`` (module level, inside functions, and under
``TYPE_CHECKING``: a type-only import is still a dependency of the code that reads it), and
the strongly connected components of the graph are the import circles. A circle is allowed
only when it lies within a group of ``ALLOWED`` below, each saying why it is left, so a broken
circle cannot come back and no new one appears unnoticed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "play", "studio")

# Circles not broken yet, each with the reason; a circle found must lie within one of these.
# None is left: add one only with the reason it cannot be broken.
ALLOWED: dict[frozenset[str], str] = {}

# The circles issue 36 named, broken: none of these pairs may share a circle again.
BROKEN = [
    ("engine.directives", "engine.stream_filter"),
    ("engine.lorebook_index", "engine.lorebook_tables"),
    ("play.memory", "play.tasks"),
    ("play.relay", "play.relay_fanout"),
    ("studio.tasks", "studio.worldtests.suites"),
    ("engine.turn", "engine.gm.adapter"),
    ("engine.turn", "engine.turn_pipeline"),
    ("engine.turn", "engine.turn_stream"),
    ("engine.gm.adapter", "engine.turn_pipeline"),
    # and the one that tied play to studio through the evaluations
    ("play.quota", "play.sessions"),
    ("play.sessions", "studio.models"),
    ("studio.evaluations.service", "studio.evaluations.spending"),
]


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if "migrations" in parts:
                continue
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imported_names(name: str, path: Path) -> Iterator[str]:
    """Every name ``path`` imports, relative imports made absolute (``from a import b`` gives
    both ``a.b`` and ``a``: the caller keeps the one that is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                yield f"{base}.{alias.name}\0{base}"


def _resolve(target: str, modules: dict[str, Path]) -> str | None:
    """The module of ours ``target`` names (its closest enclosing one), or None."""
    candidates = target.split("\0")
    for candidate in candidates:
        if candidate in modules:
            return candidate
    target = candidates[-1]
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def _with_packages(name: str, targets: set[str], modules: dict[str, Path]) -> set[str]:
    """``targets`` and the packages around them: importing ``a.b.c`` runs ``a/b/__init__.py``
    first, except the packages around ``name`` itself (they are already being imported)."""
    own = {name.rsplit(".", depth)[0] for depth in range(1, name.count(".") + 1)}
    out = set(targets)
    for target in targets:
        parts = target.split(".")
        out.update(".".join(parts[:end]) for end in range(1, len(parts)))
    return {t for t in out if t in modules and t not in own and t != name}


@cache
def import_graph() -> dict[str, frozenset[str]]:
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        targets = {_resolve(t, modules) for t in _imported_names(name, path)} - {None}
        graph[name] = frozenset(_with_packages(name, targets, modules))  # type: ignore[arg-type]
    return graph


def circles(graph: dict[str, frozenset[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_the_circle_finder_sees_a_circle_through_three_modules_and_nothing_else():
    graph = {
        "a": frozenset({"b"}),
        "b": frozenset({"c"}),
        "c": frozenset({"a", "d"}),
        "d": frozenset(),
    }
    assert circles(graph) == [frozenset({"a", "b", "c"})]


def test_the_graph_reads_function_level_type_only_and_relative_imports(tmp_path):
    module = tmp_path / "turn.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import world\n"
        "if TYPE_CHECKING:\n"
        "    from engine.session import Message\n"
        "def run():\n"
        "    import engine.gm.adapter\n"
        "    from .prompt import assemble_prompt\n"
    )
    modules = dict.fromkeys(
        ("engine", "engine.world", "engine.session", "engine.gm", "engine.prompt"), module
    )
    modules["engine.gm.adapter"] = module
    names = {_resolve(t, modules) for t in _imported_names("engine.turn", module)}
    assert names - {None} == {
        "engine.world",
        "engine.session",
        "engine.gm.adapter",
        "engine.prompt",
    }


def test_no_import_circle_outside_the_allowed_groups():
    unexpected = [
        sorted(circle)
        for circle in circles(import_graph())
        if not any(circle <= allowed for allowed in ALLOWED)
    ]
    assert unexpected == [], (
        f"import circles (break them, or allow-list with a reason): {unexpected}"
    )


def test_the_circles_issue_36_broke_stay_broken():
    found = circles(import_graph())
    for first, second in BROKEN:
        assert not any({first, second} <= circle for circle in found), (first, second)


# What each app may import of the other: its public service module, and its models (foreign
# keys, rows); the package itself runs first. Anything else of the other app is private to it.
PUBLIC = {
    "play": {"studio", "studio.services", "studio.models"},
    "studio": {"play", "play.services", "play.models"},
}
# Reaches into the other app not moved behind its service module yet, each with the reason.
_FORM = (
    "the portrait form is the studio's UI; re-exported from studio.services it would run "
    "studio.forms, whose accounts form reads play.services: a circle"
)
REACHES_ALLOWED: dict[tuple[str, str], str] = {
    ("play.views.personas", "studio.forms.portraits"): _FORM,
    ("play.views.personas", "studio.forms"): _FORM,
    ("play.views.avatars", "studio.forms.portraits"): _FORM,
    ("play.views.avatars", "studio.forms"): _FORM,
}


def reaches(graph: dict[str, frozenset[str]], app: str, other: str) -> list[tuple[str, str]]:
    """Each (module of ``app``, module of ``other`` it imports) past ``other``'s public face."""
    return sorted(
        (name, target)
        for name, targets in graph.items()
        if name.split(".")[0] == app
        for target in targets
        if target.split(".")[0] == other
        and target not in PUBLIC[app]
        and (name, target) not in REACHES_ALLOWED
    )


def test_studio_reaches_play_only_through_play_services_and_its_models():
    assert reaches(import_graph(), "studio", "play") == []


def test_play_reaches_studio_only_through_studio_services_and_its_models():
    assert reaches(import_graph(), "play", "studio") == []


def test_a_reach_past_the_service_module_is_seen():
    graph = {"studio.views.x": frozenset({"play.locks", "play.services", "play.models"})}
    assert reaches(graph, "studio", "play") == [("studio.views.x", "play.locks")]


def _type_checking_names(path: Path) -> dict[str, str]:
    """``name: module`` of each ``from module import x as name`` under ``if TYPE_CHECKING``."""
    names = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for item in node.body:
                assert isinstance(item, ast.ImportFrom) and item.module
                for alias in item.names:
                    names[alias.asname or alias.name] = item.module
    return names


def test_each_service_module_finds_every_name_it_offers_and_only_those():
    import play.services
    import studio.services

    for module in (play.services, studio.services):
        assert module.__file__ is not None
        # what mypy reads (the TYPE_CHECKING imports) is what the module hands out
        assert _type_checking_names(Path(module.__file__)) == module._HOME
        for name in module.__all__:
            assert getattr(module, name) is not None, name
        try:
            module.not_offered  # noqa: B018
        except AttributeError:
            pass
        else:
            raise AssertionError(f"{module.__name__} offered a name it does not list")
