"""A module's names imported from their homes when first asked for (PEP 562), so that a facade
such as ``play.services`` costs nothing at start-up: importing its homes then would load the
providers and the sessions into every ``manage.py`` step (issue 36)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(module: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` serving ``homes`` (name → the module it is imported from, as
    ``from <home> import <name>`` reads it: an attribute, or a submodule of a package)."""

    def find(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        found = import_module(home)
        return getattr(found, name) if hasattr(found, name) else import_module(f"{home}.{name}")

    return find
