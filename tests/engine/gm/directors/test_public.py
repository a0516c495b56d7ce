"""The Scene Director's inputs are types with no room for a secret (seed 003 "No porque se le
dijera que no, sino porque esa información físicamente no está ahí"; issue 12 §1: "types, not
filters")."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import types
import typing
from pathlib import Path

from engine.gm.directors import public, stage
from engine.gm.directors.public import SceneDirectorInput
from engine.gm.directors.stage import scene_request
from engine.llm.base import ChatRequest

FORBIDDEN = {
    "secret",
    "secrets",
    "gm_notes",
    "session_plan",
    "state",
    "full",
    "background",
    "character_class",
    "traits",
    "hidden_points",
    "disclosures",
    "private_notes",
    "notes_for_later",
    "reveal_at_trust",
}
LEAVES = {str, int, bool, type(None)}


def _walk(cls: type, seen: set[type]) -> list[tuple[str, object]]:
    """Every (field path, annotation) under ``cls``."""
    out = []
    for field in dataclasses.fields(cls):
        annotation = typing.get_type_hints(cls)[field.name]
        out.append((f"{cls.__name__}.{field.name}", annotation))
        for inner in _members(annotation):
            if dataclasses.is_dataclass(inner) and inner not in seen:
                seen.add(inner)
                out += _walk(inner, seen)
    return out


def _members(annotation: object) -> list[object]:
    args = typing.get_args(annotation)
    if not args:
        return [annotation]
    return [m for arg in args if arg is not Ellipsis for m in _members(arg)]


def test_every_field_of_the_scene_directors_input_is_a_plain_value_or_a_public_type():
    for path, annotation in _walk(SceneDirectorInput, set()):
        for member in _members(annotation):
            public_type = dataclasses.is_dataclass(member) and member.__module__ == public.__name__
            assert member in LEAVES or public_type, (path, member)
        origin = typing.get_origin(annotation)
        assert origin in (None, tuple, types.UnionType, typing.Union), (path, annotation)


def test_no_field_of_the_scene_directors_input_is_named_for_a_secret():
    names = {path.split(".")[-1] for path, _ in _walk(SceneDirectorInput, set())}
    assert names & FORBIDDEN == set()


def test_public_types_are_frozen():
    for _, member in inspect.getmembers(public, dataclasses.is_dataclass):
        assert member.__dataclass_params__.frozen, member


def test_the_scene_request_is_built_from_the_public_input_alone():
    hints = typing.get_type_hints(scene_request)
    assert hints == {
        "scene": SceneDirectorInput,
        "base": ChatRequest | None,
        "return": ChatRequest,
    }


def test_the_scene_directors_module_cannot_reach_the_world():
    tree = ast.parse(Path(stage.__file__).read_text(encoding="utf-8"))
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    reachable = {"engine.gm.world", "engine.gm.state", "engine.gm.scene", "engine.world"}
    assert imported & reachable == set()
    assert not any(m.startswith("engine.gm.tools") for m in imported)
