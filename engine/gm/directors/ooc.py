"""The line out of character for the player (seed 003: the Story Director "también puede
opcionalmente emitir diálogo fuera de personaje al jugador"; issue 32, finding 6).

The Story Director's context holds every secret, and a line it writes can carry one in words
no filter knows: a paraphrase, another language, letters spaced apart. So none of its words
reach a player. It only asks for the line, and for what kind (``OOC_KINDS``: the scene may
end, what he can do, what he knows, an answer to his question out of character); a separate
call writes it. That call's request is built by ``ooc_request`` from a ``PlayerView`` alone:
what the character perceives and what his player was shown this turn, in types with no field
for a secret. ``project_player`` fills it from the perceived scene (``engine.gm.views``, which
has no such field either) and from what the pipeline hands it: the player's words, the lines
he read this turn and the clue texts his character learnt. This module imports nothing that
reaches the world (``tests/engine/gm/directors/test_ooc.py`` checks its imports).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.gm.directors.prompts import words
from engine.gm.directors.requests import director_request
from engine.gm.views import SceneView
from engine.llm.base import ChatRequest
from engine.session import Message

OOC_KINDS = ("pace", "options", "recap", "answer")
ANY_KIND = "aside"  # the Story Director asked for a line of no kind the engine knows
MAX_LINE = 400
_THINK = re.compile(r"<(think|thinking)\b[^>]*>.*?(?:</\1\s*>|\Z)", re.S | re.I)
_TAG = re.compile(r"<[^<>]*>")
_LABEL = re.compile(r"^\s*\(?\s*(?:ooc|out of character)\s*[:)\-–]\s*", re.I)


@dataclass(frozen=True)
class PlayerView:
    """What the player of one character may be told: his own sheet as he sees it, the place as
    he perceives it, the people by the names he knows them by, his errands and clues, the
    latest events he perceived, his words this turn and what he read after them."""

    language: str
    kind: str
    name: str
    day: int
    time_of_day: str
    place: str
    sheet: tuple[str, ...]
    people: tuple[str, ...]
    things: tuple[str, ...]
    ways: tuple[str, ...]
    errands: tuple[str, ...]
    clues: tuple[str, ...]
    events: tuple[str, ...]
    action: str
    shown: tuple[str, ...]


def ooc_kind(asked: str | None) -> str:
    """The kind of line the Story Director asked for (``<ooc>pace</ooc>``): "" when it asked
    for none; its words themselves are never kept."""
    if asked is None:
        return ""
    kind = re.sub(r"[^a-z]+", "-", asked.lower()).strip("-").removeprefix("kind-")
    return kind if kind in OOC_KINDS else ANY_KIND


def project_player(
    view: SceneView,
    *,
    kind: str,
    action: str,
    shown: tuple[str, ...],
    clues: tuple[str, ...],
    language: str,
) -> PlayerView:
    """The player's view from the perceived scene: what each NPC would tell, keeps back or
    thinks of him is left out (he was not told it), and so is everything he did not read."""
    me, place = view.me, view.place
    traits = f"; traits: {', '.join(me.traits)}" if me.traits else ""
    sheet = [
        f"{me.character_class or 'no class'}{traits}",
        f"HP {me.hp}/{me.max_hp}; money {me.money}; in hand: {me.in_hand or 'nothing'}",
        "carrying: " + (", ".join(me.carrying) or "nothing"),
        "conditions: " + (", ".join(me.conditions) or "none"),
    ]
    people = [_looks(n.label, n.public_description) for n in view.npcs]
    people += [f"{p.name}, another player's character" for p in view.people]
    ways = [f"{w.direction}: {w.to_name}" + (" (locked)" if w.locked else "") for w in view.ways]
    here = f"{place.name}. {place.description}".strip()
    return PlayerView(
        language=language,
        kind=kind,
        name=me.name,
        day=view.day,
        time_of_day=view.time_of_day,
        place=here + (f" He stands at {place.point}." if place.point else ""),
        sheet=tuple(sheet),
        people=tuple(people),
        things=tuple(t.name for t in view.things) + tuple(p.name for p in view.points),
        ways=tuple(ways),
        errands=view.errands,
        clues=clues,
        events=tuple(e.text for e in view.events),
        action=action,
        shown=shown,
    )


def _looks(label: str, looks: str) -> str:
    return f"{label} ({looks.strip()})" if looks.strip() else label


def ooc_request(view: PlayerView, base: ChatRequest | None = None) -> ChatRequest:
    """The request for the line, built from ``view`` alone; ``base`` gives sampling settings."""
    text = words(view.language)
    task = text.t(f"ooc_{view.kind}" if view.kind in OOC_KINDS else f"ooc_{ANY_KIND}")
    messages = [
        Message("system", text.brief("ooc")),
        Message("user", player_context(view)),
        Message("user", text.t("ooc_turn", name=view.name, action=view.action, task=task)),
    ]
    return director_request(base, messages, action=view.action, director="ooc")


def player_context(view: PlayerView) -> str:
    """What the player knows, as the writer of the line reads it."""
    lines = [
        f"The player plays {view.name}. Day {view.day}, {view.time_of_day}.",
        f"Where he is: {view.place}",
        "His sheet: " + "; ".join(view.sheet) + ".",
    ]
    for label, items in (
        ("People he sees", view.people),
        ("Things and spots he sees", view.things),
        ("Ways on", view.ways),
        ("His errands", view.errands),
        ("What he has found out", view.clues),
        ("The latest things he saw or heard", view.events),
        ("What he read this turn", view.shown),
    ):
        if items:
            lines += [f"{label}:", *(f"- {item}" for item in items)]
    return "\n".join(lines)


def parse_ooc(text: str) -> str:
    """The line as the player reads it: thinking, tags and an "OOC:" label off, one line."""
    plain = " ".join(_TAG.sub(" ", _THINK.sub(" ", text or "")).split())
    line = _LABEL.sub("", plain).strip()[:MAX_LINE]
    return line[:1].upper() + line[1:]
