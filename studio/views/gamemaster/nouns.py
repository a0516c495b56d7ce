"""The lists of the ``gameMaster`` block as the editor shows them, and where a path is edited.

One ``Noun`` per list (its form, titles, one line describing a record); ``problem_links`` turns
the linter's ``gameMaster.<path>`` into the URL of the record's form with the field's anchor.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from engine.gm.lint import Problem
from studio.forms.gamemaster import (
    BoardForm,
    CharacterForm,
    ClueForm,
    DebtForm,
    GMForm,
    HookForm,
    ItemForm,
    LocationForm,
    NpcForm,
    PawnForm,
    QuestForm,
    RumourForm,
    SettingsForm,
    ShopForm,
)
from studio.gamemaster import KEY, SECTIONS, SINGLES, ref_of
from studio.labels import label_of

Record = Mapping[str, Any]


def _where(at: Any) -> str:
    if not isinstance(at, Mapping):
        return str(_("not in play"))
    for kind in ("location", "npc", "character"):
        if at.get(kind):
            point = f"/{at['point']}" if kind == "location" and at.get("point") else ""
            return f"{label_of(kind)} {at[kind]}{point}"
    return "?"


@dataclass(frozen=True)
class Noun:
    slug: str  # the block's list and the URL segment
    title: Promise
    singular: Promise
    form: type[GMForm]
    describe: Callable[[Record], str]

    def name_of(self, record: Record) -> str:
        return str(record.get("name") or record.get("title") or ref_of(self.slug, record))

    def ref(self, record: Record) -> str:
        return ref_of(self.slug, record)

    @property
    def names(self) -> dict[str, str]:
        base = f"studio:gm_{self.slug}"
        return {
            "list": base,
            "new": f"{base}_new",
            "edit": f"{base}_edit",
            "delete": f"{base}_delete",
        }


def _count(key: str, words: Any) -> Callable[[Record], str]:
    """``words`` (an ``ngettext_lazy`` keyed on ``n``) for the length of the record's ``key``."""
    return lambda record: str(words % {"n": len(record.get(key) or [])})


def _location(record: Record) -> str:
    exits = _count("exits", ngettext_lazy("%(n)d exit", "%(n)d exits", "n"))(record)
    points = _count("points", ngettext_lazy("%(n)d point", "%(n)d points", "n"))(record)
    return f"{exits} · {points}"


def _clue(record: Record) -> str:
    words = ngettext_lazy("%(n)d requirement", "%(n)d requirements", "n")
    return f"{_where(record.get('anchor'))} · {_count('requires', words)(record)}"


NOUNS: tuple[Noun, ...] = (
    Noun(
        "locations",
        _("Locations"),
        _("location"),
        LocationForm,
        _location,
    ),
    Noun("items", _("Items"), _("item"), ItemForm, lambda r: _where(r.get("at"))),
    Noun(
        "npcs",
        _("NPCs"),
        _("NPC"),
        NpcForm,
        lambda r: " · ".join(x for x in (r.get("trade"), r.get("location") or r.get("home")) if x),
    ),
    Noun(
        "characters",
        _("Player characters"),
        _("character"),
        CharacterForm,
        lambda r: f"{r.get('location')} · {_('HP')} {r.get('hp')}/{r.get('maxHp')}",
    ),
    Noun(
        "clues",
        _("Clues"),
        _("clue"),
        ClueForm,
        _clue,
    ),
    Noun(
        "quests", _("Errands"), _("errand"), QuestForm, lambda r: str(r.get("summary") or "")[:80]
    ),
    Noun(
        "boards",
        _("Notice boards"),
        _("board"),
        BoardForm,
        _count("notices", ngettext_lazy("%(n)d notice", "%(n)d notices", "n")),
    ),
    Noun(
        "shops",
        _("Shops"),
        _("shop"),
        ShopForm,
        _count("stock", ngettext_lazy("%(n)d in stock", "%(n)d in stock", "n")),
    ),
    Noun(
        "debts",
        _("Debts"),
        _("debt"),
        DebtForm,
        lambda r: f"{r.get('debtor')} → {r.get('creditor')}: {r.get('amount')}",
    ),
    Noun(
        "pawns",
        _("Pawned items"),
        _("pawn"),
        PawnForm,
        lambda r: f"{r.get('owner')} → {r.get('heldBy')} · {r.get('redeemPrice')}",
    ),
    Noun(
        "hooks",
        _("Hooks"),
        _("hook"),
        HookForm,
        lambda r: str(label_of((r.get("trigger") or {}).get("type") or "")),
    ),
    Noun("rumours", _("Rumours"), _("rumour"), RumourForm, lambda r: str(r.get("text") or "")[:80]),
)
NOUNS_BY_SLUG = {noun.slug: noun for noun in NOUNS}
assert set(NOUNS_BY_SLUG) == set(SECTIONS)

_HEAD = re.compile(r"^gameMaster\.(\w+)(?:\[(\d+)\])?\.?(.*)$")


@dataclass(frozen=True)
class ProblemLink:
    problem: Problem
    url: str | None
    record: str  # the id of the record the path is in ("" for the block's own settings)


def problem_links(
    world_pk: int, block: Record | None, problems: Iterable[Problem]
) -> list[ProblemLink]:
    """Each problem with the URL of the field it names (None when no form edits it)."""
    return [_link(world_pk, block or {}, p) for p in problems]


def path_url(world_pk: int, block: Record | None, path: str) -> str | None:
    """The editor URL (with the field's anchor) of a ``gameMaster.…`` path, None if none."""
    return _link(world_pk, block or {}, Problem(path, "")).url


def _link(world_pk: int, block: Record, problem: Problem) -> ProblemLink:
    match = _HEAD.match(problem.path)
    if match is None:
        return ProblemLink(problem, None, "")
    section, index, rest = match.groups()
    if section in SINGLES:
        anchor = SettingsForm.anchor_for(f"{section}.{rest}" if rest else section)
        url = reverse("studio:gm", args=[world_pk]) + (f"#{anchor}" if anchor else "")
        return ProblemLink(problem, url, "")
    noun = NOUNS_BY_SLUG.get(section)
    rows = block.get(section) if noun is not None else None
    if noun is None or index is None or not isinstance(rows, list) or int(index) >= len(rows):
        return ProblemLink(problem, None, "")
    ref = noun.ref(rows[int(index)])
    anchor = noun.form.anchor_for(rest) if rest else ""
    url = reverse(noun.names["edit"], args=[world_pk, ref]) + (f"#{anchor}" if anchor else "")
    return ProblemLink(problem, url, ref)


__all__ = ["KEY", "NOUNS", "NOUNS_BY_SLUG", "Noun", "ProblemLink", "path_url", "problem_links"]
