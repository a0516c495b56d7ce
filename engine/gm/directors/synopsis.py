"""The Story Director's answer, read leniently (seed 003's ``<synopsis>`` example; GAME_MASTER.md
SW-9–SW-11, decision 24; conventions: "Parsers are lenient by contract").

``parse_story`` reads ``<synopsis>`` (prose, then ``<npc_list>``, ``<location>``, an optional
``<new_scene/>``), ``<ooc>`` (that the player should get a line out of character, and its kind:
the words are dropped unread, ``engine.gm.directors.ooc``), ``<notes>`` (its private notes) and
any ``<reveal secret="…" to="…"/>``. Nothing it is given makes it fail: a missing closing tag ends
at the end of the text, tags are matched whatever their case, ``new-scene`` counts as
``new_scene``, names stand for ids (``Maeve Corwin`` → ``maeve-corwin``), and what is missing
or wrong is listed in ``problems``. ``settle`` then holds the synopsis to the engine's state:
only NPCs present, the place the character is in; without a synopsis the scene goes on as it
was (the previous prose, everyone present).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from engine.gm.directors.ooc import ooc_kind
from engine.gm.directors.records import Synopsis

_FLAGS = re.S | re.I
_THINK = re.compile(r"<(think|thinking)\b[^>]*>.*?(?:</\1\s*>|\Z)", _FLAGS)
_NEW_SCENE = re.compile(r"<\s*/?\s*new[\s_-]?scene\s*/?\s*>", _FLAGS)
_REVEAL = re.compile(r"<\s*reveal\b([^>]*?)/?\s*>(?:\s*</\s*reveal\s*>)?", _FLAGS)
_ATTR = re.compile(r"([a-z_-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>/]+))", _FLAGS)
_TAG = re.compile(r"<[^<>]*>")
_OOC_EMPTY = re.compile(r"<\s*ooc\b([^>]*)/\s*>", _FLAGS)
MAX_PROSE = 2000


@dataclass(frozen=True)
class RevealOrder:
    """``<reveal secret="ID" to="npc, npc"/>``: people present find out a secret."""

    secret: str
    to: tuple[str, ...]


@dataclass(frozen=True)
class StoryPlan:
    found: bool  # a <synopsis> block was there
    prose: str
    npcs: tuple[str, ...] | None  # slugs; None when <npc_list> is missing
    location: str | None
    new_scene: bool
    ooc: str  # the kind of line out of character asked for ("" for none), never its words
    notes: str
    reveals: tuple[RevealOrder, ...]
    problems: tuple[str, ...]


def slug(text: str) -> str:
    """Lowercase, hyphens, no accents: "Habitación 314" → "habitacion-314"."""
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in plain if not unicodedata.combining(c)).lower()
    return re.sub(r"[^\w]+|_", "-", plain).strip("-")


def _block(name: str, text: str) -> tuple[str | None, str]:
    """The first ``<name>…</name>`` (to the end when unclosed) and the text without it."""
    pattern = re.compile(rf"<\s*{name}\b[^>]*>(.*?)(?:<\s*/\s*{name}\s*>|\Z)", _FLAGS)
    found = pattern.search(text)
    if found is None:
        return None, text
    return found.group(1), text[: found.start()] + text[found.end() :]


def _plain(text: str, limit: int) -> str:
    return " ".join(_TAG.sub(" ", text).split())[:limit]


def _ids(text: str) -> tuple[str, ...]:
    pieces = re.split(r"[,;\n]+", _TAG.sub(" ", text))
    return tuple(dict.fromkeys(s for s in (slug(p) for p in pieces) if s))


def _reveals(text: str) -> tuple[tuple[RevealOrder, ...], str]:
    orders = []
    for match in _REVEAL.finditer(text):
        attrs = {
            m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None)
            for m in _ATTR.finditer(match.group(1))
        }
        secret = attrs.get("secret", "").strip()
        if secret:
            orders.append(RevealOrder(secret, _ids(attrs.get("to", ""))))
    return tuple(orders), _REVEAL.sub(" ", text)


def parse_story(text: str) -> StoryPlan:
    """Read the Story Director's answer; never raises (see the module docstring)."""
    rest = _THINK.sub(" ", text or "")
    problems: list[str] = []
    empty = _OOC_EMPTY.search(rest)
    if empty is not None:
        ooc: str | None = empty.group(1).replace("=", " ").strip("\"' ")
        rest = rest[: empty.start()] + rest[empty.end() :]
    else:
        ooc, rest = _block("ooc", rest)
    notes, rest = _block("notes", rest)
    reveals, rest = _reveals(rest)
    body, _ = _block("synopsis", rest)
    found = body is not None
    if body is None:
        problems.append("no-synopsis")
        body = ""
    npc_list, body_rest = _block("npc_list", body if found else rest)
    location, body_rest = _block("location", body_rest)
    new_scene = bool(_NEW_SCENE.search(body if found else rest))
    if npc_list is None:
        problems.append("no-npc-list")
    if location is None or not slug(location):
        problems.append("no-location")
    return StoryPlan(
        found=found,
        prose=_plain(_NEW_SCENE.sub(" ", body_rest), MAX_PROSE) if found else "",
        npcs=_ids(npc_list) if npc_list is not None else None,
        location=slug(location) if location is not None and slug(location) else None,
        new_scene=new_scene,
        ooc=ooc_kind(ooc),
        notes=_plain(notes or "", MAX_PROSE),
        reveals=reveals,
        problems=tuple(problems),
    )


def settle(
    plan: StoryPlan,
    present: Sequence[tuple[str, str]],
    location: str,
    previous: Synopsis | None,
) -> tuple[Synopsis, list[str]]:
    """The synopsis held to the state: ``present`` is (id, name) of the NPCs here now,
    ``location`` where the character is. Returns it with what had to be changed."""
    problems: list[str] = []
    by_slug = {**{slug(name): i for i, name in present}, **{i: i for i, _ in present}}
    if plan.npcs is None:
        npcs = [i for i, _ in present]
    else:
        npcs = []
        for ref in plan.npcs:
            if ref in by_slug:
                npcs.append(by_slug[ref])
            else:
                problems.append(f"npc-not-here:{ref}")
    if plan.location is not None and plan.location != location:
        problems.append(f"location-not-here:{plan.location}")
    prose = plan.prose if plan.found else (previous.prose if previous is not None else "")
    npcs = list(dict.fromkeys(npcs))
    return Synopsis(prose=prose, npcs=npcs, location=location, new_scene=plan.new_scene), problems
