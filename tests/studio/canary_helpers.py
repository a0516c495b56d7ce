"""A game-master world with a canary in every secret of its schema (issue 32, finding 1).

Every text field of the ``gameMaster`` block (walked from the pydantic models of
``engine.gm.world``) is classified here as SECRET (never for a player), OWN (a character's own
sheet: secret from every other player), SHOWN (play may show it) or REF (an id or a reference).
A field the schema gains later fails ``unclassified_paths`` until it is classified, and a SECRET
or OWN field the canary world does not fill fails ``unplanted_paths``: a new secret field is
covered the day it is added.
"""

from __future__ import annotations

import functools
import itertools
import re
import types
import typing
from typing import Any

from pydantic import BaseModel

from engine.gm.world import GameMaster

CANARY = "QXCANARY"  # every planted value starts so: searched for in every response
CANARY_TEXT = re.compile(rf"{CANARY}\d+")

SECRET = frozenset(
    {
        "campaign.notes",
        "campaign.gmNotes",
        "campaign.sessionPlan",
        "campaign.state",
        "locations[].hiddenPoints[].name",
        "locations[].hiddenPoints[].description",
        "locations[].hiddenPoints[].aliases[]",
        "npcs[].description",  # its manner: the narrator voices it, nobody reads it
        "npcs[].motivation",
        "npcs[].situation",
        "npcs[].secret.text",
        "npcs[].disclosures{}",
        "npcs[].memories[].text",
        "npcs[].concerns[]",
        "clues[].name",
        "clues[].text",
        "quests[].description",
        "debts[].note",
        "hooks[].text",
        "rumours[].text",
    }
)
OWN = frozenset(
    {
        "characters[].full.class",
        "characters[].full.traits[]",
        "characters[].full.background",
        "characters[].full.secrets[]",
        "characters[].journal[].title",
        "characters[].journal[].text",
    }
)
SHOWN = frozenset(
    {
        "boards[].name",
        "boards[].aliases[]",
        "boards[].notices[].title",
        "boards[].notices[].summary",
        "characters[].name",
        "characters[].player",
        "characters[].public.appearance",
        "characters[].public.reputation",
        "characters[].conditions[]",
        "items[].name",
        "items[].description",
        "items[].aliases[]",
        "items[].damage",
        "locations[].name",
        "locations[].description",
        "locations[].aliases[]",
        "locations[].ambient[]",
        "locations[].alarm",
        "locations[].gatherables[].name",
        "locations[].gatherables[].resource",
        "locations[].points[].name",
        "locations[].points[].description",
        "locations[].points[].aliases[]",
        "npcs[].name",
        "npcs[].aliases[]",
        "npcs[].trade",
        "npcs[].publicDescription",
        "npcs[].schedule[].activity",
        "npcs[].secret.tellsTo",  # "would tell it to someone it trusts": the text never
        "quests[].title",
        "quests[].summary",
        "shops[].name",
        "items[].kind",  # food, drink, gear: what prices and traders go by (issue 33)
        "shops[].buys[].kind",
        "boards[].description",  # only a translation carries it (issue 33)
    }
)
# An entity's words in another language (``translations{}``, issue 33) are what its own field
# is: a translated secret is a secret.
TRANSLATED = ".translations{}"
# Ids and references: no free text of their own.
REF_NAMES = frozenset(
    {
        "id",
        "to",
        "location",
        "point",
        "npc",
        "item",
        "character",
        "owner",
        "quest",
        "clue",
        "variableId",
        "creditor",
        "debtor",
        "heldBy",
        "debt",
        "offeredBy",
        "home",
        "about",
        "ref",
        "inHand",
        "key",  # an exit's key: the id of the item that opens it
        "knownNames[]",
        "knownPlaces[]",
        "heardAt[]",
        "needs[]",
        "knows[]",
        "people[]",
        "items[]",  # an errand's reward (issue 33)
    }
)
# The places only a hidden exit leads to: their shown fields are secret until found.
HIDDEN_PLACE_FIELDS = ("name", "description", "aliases", "ambient")


@functools.cache
def text_paths() -> frozenset[str]:
    """Every text field of the ``gameMaster`` block, as ``npcs[].secret.text``."""
    return frozenset(_model_paths(GameMaster, "", frozenset()))


def base_path(path: str) -> str:
    """The field a translation translates: ``npcs[].translations{}.situation`` is
    ``npcs[].situation``."""
    return path.replace(TRANSLATED, "")


def is_secret(path: str) -> bool:
    return base_path(path) in SECRET


def is_own(path: str) -> bool:
    return base_path(path) in OWN


def _is_mapping(path: str) -> bool:
    """Whether the schema reads a dict at ``path`` as a mapping (its keys are data)."""
    return any(p.startswith(f"{path}{{}}") for p in text_paths())


def _model_paths(model: type[BaseModel], prefix: str, seen: frozenset[Any]) -> list[str]:
    out: list[str] = []
    for name, field in model.model_fields.items():
        path = f"{prefix}.{field.alias or name}" if prefix else (field.alias or name)
        out += _type_paths(field.annotation, path, seen)
    return out


def _type_paths(tp: Any, path: str, seen: frozenset[Any]) -> list[str]:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return _type_paths(args[0], path, seen)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [] if tp in seen else _model_paths(tp, path, seen | {tp})
    if origin in (list, tuple):
        return _type_paths(args[0], f"{path}[]", seen)
    if origin is dict:
        return _type_paths(args[1], f"{path}{{}}", seen)
    if origin in (typing.Union, types.UnionType):
        return [p for arg in args for p in _type_paths(arg, path, seen)]
    return [path] if tp is str else []


def is_ref(path: str) -> bool:
    return path.rsplit(".", 1)[-1] in REF_NAMES


def unclassified_paths() -> set[str]:
    known = SECRET | OWN | SHOWN
    return {p for p in text_paths() if base_path(p) not in known and not is_ref(p)}


# --- the world -------------------------------------------------------------------------------


def canary_block() -> dict[str, Any]:
    """Two characters (Tom is played, Lin is the other seat), a yard with a hidden point and a
    hidden way down to a vault, a hall with an NPC who has every kind of secret."""
    hidden = {"check": "investigation", "dc": 15}
    return {
        "campaign": {"notes": "x", "gmNotes": "x", "sessionPlan": "x", "state": "x"},
        "locations": [
            {
                "id": "yard",
                "name": "The Yard",
                "description": "A muddy yard.",
                "points": [{"id": "well", "name": "the well"}],
                "hiddenPoints": [
                    {"id": "loose-brick", "name": "x", "description": "x", "aliases": ["x"]}
                    | {"foundBy": hidden, "translations": {"es": _words("description")}}
                ],
                "exits": [
                    {"direction": "north", "to": "hall"},
                    {"direction": "down", "to": "vault", "hidden": True, "foundBy": hidden},
                ],
            },
            {
                "id": "hall",
                "name": "The Hall",
                "exits": [{"direction": "south", "to": "yard"}],
            },
            {
                "id": "vault",
                "name": "x",
                "description": "x",
                "aliases": ["x"],
                "ambient": ["x"],
                "exits": [{"direction": "up", "to": "yard"}],
                "translations": {"es": _words("description") | {"ambient": ["x"]}},
            },
        ],
        "items": [{"id": "ladle", "name": "a ladle", "at": {"location": "hall"}}],
        "npcs": [_npc()],
        "clues": [
            {
                "id": "ledger",
                "name": "x",
                "text": "x",
                "anchor": {"location": "yard"},
                "requires": [{"type": "check"} | hidden],
                "translations": {"es": {"name": "x", "text": "x"}},
            }
        ],
        "quests": [
            {"id": "soup", "title": "Soup", "summary": "Cook.", "description": "x"}
            | {"translations": {"es": {"title": "Sopa", "description": "x"}}}
        ],
        "debts": [{"id": "loan", "debtor": "tom", "creditor": "mara", "amount": 3, "note": "x"}],
        "hooks": [
            {"id": "bell", "trigger": {"type": "enter", "location": "hall"}, "text": "x"}
            | {"translations": {"es": {"text": "x"}}}
        ],
        "rumours": [
            {"id": "talk", "text": "x", "heardAt": ["hall"], "translations": {"es": {"text": "x"}}}
        ],
        "characters": [
            {"id": "tom", "name": "Tom", "location": "yard", "full": {"class": "cook"}},
            {"id": "lin", "name": "Lin", "location": "hall", "full": _sheet()}
            | {"journal": [{"title": "x", "text": "x"}]},
        ],
    }


def _npc() -> dict[str, Any]:
    return {
        "id": "mara",
        "name": "Mara",
        "trade": "cook",
        "location": "hall",
        "description": "x",
        "motivation": "x",
        "situation": "x",
        "secret": {"text": "x", "tellsTo": "nobody"},
        "disclosures": {"stranger": "x", "friend": "x", "ally": "x"},
        "memories": [{"about": "tom", "text": "x"}],
        "concerns": ["x"],
        "translations": {
            "es": {
                "trade": "cocinera",
                "description": "x",
                "situation": "x",
                "concerns": ["x"],
                "disclosures": {"stranger": "x", "friend": "x", "ally": "x"},
            }
        },
    }


def _words(*keys: str) -> dict[str, Any]:
    """A translation whose name, aliases and ``keys`` are to be planted."""
    return {"name": "x", "aliases": ["x"]} | dict.fromkeys(keys, "x")


def _sheet() -> dict[str, Any]:
    words = {"class": "x", "traits": ["x"], "background": "x"}
    return words | {"secrets": ["x"], "translations": {"es": dict(words)}}


def canary_world(name: str = "The Canary Inn") -> dict[str, Any]:
    """A world JSON with a distinct canary in every secret of its block and in every lorebook
    entry not tagged ``public`` (its greeting, shown to every player, holds none)."""
    counter = itertools.count(1)
    block = canary_block()
    _plant(block, "", is_secret, counter)
    for character in block["characters"][1:]:  # the other seat's own sheet
        _plant(character, "characters[]", is_own, counter)
    for place in block["locations"]:
        if place["id"] == "vault":
            for words in (place, *place["translations"].values()):
                for key in HIDDEN_PLACE_FIELDS:
                    words[key] = _canaries(words[key], counter)
    return {
        "id": "",
        "version": "20.0.0",
        "name": name,
        "description": "An inn with a secret.",
        "author": "Alice",
        "language": "en",
        "entries": _entries(counter),
        "gameMaster": block,
    }


def _entries(counter: itertools.count[int]) -> list[dict[str, Any]]:
    def lore(entry_id: str, **extra: Any) -> dict[str, Any]:
        words = {"keywords": [_next(counter)], "secondaryKeywords": [_next(counter)]}
        return {"id": entry_id, "name": _next(counter), "content": _next(counter)} | words | extra

    return [
        lore("narrator", role="system", section="system-presets"),
        lore("old-war"),
        lore("sealed", enabled=False),
        {
            "id": "greeting",
            "name": "Arrival",
            "content": "You step into the yard of the Canary Inn.",
            "role": "greeting",
            "section": "chat-history",
        },
        {"id": "inn-sign", "name": "The sign", "content": "A painted bird.", "tags": ["public"]},
    ]


def _plant(node: Any, path: str, chosen: Any, counter: itertools.count[int]) -> None:
    """Replace each string under a chosen path of ``node`` with the next canary."""
    if isinstance(node, dict) and path and _is_mapping(path):
        for value in node.values():
            _plant(value, f"{path}{{}}", chosen, counter)
    elif isinstance(node, dict):
        for key, value in node.items():
            child = f"{path}.{key}" if path else key
            if isinstance(value, list):
                child += "[]"
            if chosen(child) or (isinstance(value, dict) and chosen(f"{child}{{}}")):
                node[key] = _canaries(value, counter)
            else:
                _plant(value, child, chosen, counter)
    elif isinstance(node, list):
        for value in node:
            _plant(value, path, chosen, counter)


def _canaries(value: Any, counter: itertools.count[int]) -> Any:
    if isinstance(value, str):
        return _next(counter)
    if isinstance(value, list):
        return [_canaries(v, counter) for v in value]
    if isinstance(value, dict):
        return {k: _canaries(v, counter) for k, v in value.items()}
    return value


def _next(counter: itertools.count[int]) -> str:
    return f"{CANARY}{next(counter)}"


def planted_paths(data: dict[str, Any]) -> set[str]:
    """The schema paths of the block that hold a canary in ``data``."""
    found: set[str] = set()
    _collect(data["gameMaster"], "", found)
    return found


def _collect(node: Any, path: str, found: set[str]) -> None:
    if isinstance(node, str):
        if node.startswith(CANARY):
            found.add(path)
    elif isinstance(node, dict):
        mapping = _is_mapping(path)
        for key, value in node.items():
            child = f"{path}{{}}" if mapping else (f"{path}.{key}" if path else key)
            _collect(value, child + ("[]" if isinstance(value, list) else ""), found)
    elif isinstance(node, list):
        for value in node:
            _collect(value, path, found)


def unplanted_paths(data: dict[str, Any]) -> set[str]:
    """Secret fields of the schema (SECRET and OWN, and their translations) that hold no canary
    in ``data``."""
    secret = {p for p in text_paths() if is_secret(p) or is_own(p)} | SECRET | OWN
    return secret - planted_paths(data)


def canaries_in(text: str) -> set[str]:
    return set(CANARY_TEXT.findall(text))
