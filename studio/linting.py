"""The world linter on a draft (issue 16 §1): its findings, each linked to the field it names.

``engine.lint`` says what is wrong by JSON path (``rules[2].actions[0].entryId``); this module
turns the path into the editor page of that item with the field's anchor, so the studio's panel
can take the creator straight there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from pydantic.alias_generators import to_snake

from engine.lint import Finding, lint_source
from studio.messages import translated
from studio.models import World, WorldItem
from studio.parts import PARTS
from studio.worlds import world_to_dict

# World JSON list → the editor's kind slug (studio.views.*: ``studio:<slug>_edit``).
_LIST_SLUGS = {
    "entries": "entries",
    "variables": "variables",
    "rules": "rules",
    "reactions": "reactions",
    "audioTracks": "audio",
    "conditionalBGM": "bgm",
    "entryFolders": "folders",
    "components": "components",
}
# Other top-level keys → the page that edits them.
_PAGES = {
    "bgmPlaylist": "studio:playlist",
    "settings": "studio:settings",
    "rootComponent": "studio:ui",
    "customUI": "studio:ui",
}
# What the panel calls the object a finding is about (issue 35 §3: by kind, name and id).
_KINDS: dict[str, Promise] = {
    "entries": _("Entry"),
    "variables": _("Variable"),
    "rules": _("Rule"),
    "reactions": _("Reaction"),
    "audioTracks": _("Audio track"),
    "conditionalBGM": _("Conditional BGM"),
    "entryFolders": _("Folder"),
    "components": _("Component"),
    "bgmPlaylist": _("Playlist"),
    "settings": _("Settings"),
    "rootComponent": _("Custom UI"),
    "customUI": _("Custom UI"),
    "gameMaster": _("Game master"),
}
_HEAD = re.compile(r"^([A-Za-z]+)(?:\[(\d+)\])?(?:\.([A-Za-z]+))?")


@dataclass(frozen=True)
class LintItem:
    """A finding as the panel shows it: where it is, as a link when the studio edits it."""

    finding: Finding
    url: str | None
    item: str  # the id of the item the path names ("" for the world's own fields)
    name: str = ""  # and its name
    kind: str = ""  # the top-level key of the path: "rules"

    @property
    def is_error(self) -> bool:
        return self.finding.severity == "error"

    @property
    def subject(self) -> str:
        """“Rule “Pay” (pay)”: what the finding is about, by kind, name and id."""
        kind = _KINDS.get(self.kind)
        if kind is None:
            return gettext("World") if self.kind else ""
        if self.name and self.item:
            params = {"kind": kind, "name": self.name, "id": self.item}
            return gettext("%(kind)s “%(name)s” (%(id)s)") % params
        if self.item:
            return f"{kind} {self.item}"
        return str(kind)

    @property
    def message(self) -> str:
        return translated(self.finding.said)

    @property
    def hint(self) -> str:
        hint = self.finding.hint
        return translated(hint) if hint is not None else ""


def lint_draft(world: World) -> list[Finding]:
    """Every finding of the draft, errors first (``engine.lint.lint_source`` on its rows)."""
    return lint_source(world_to_dict(world))


def lint_items(world: World, findings: list[Finding]) -> list[LintItem]:
    """The findings with the URL of the field each names (one query per list named)."""
    rows: dict[str, list[WorldItem]] = {}
    items = []
    for finding in findings:
        match = _HEAD.match(finding.path)
        top, index, field = match.groups() if match else ("", None, None)
        url, row = _place(world, rows, top, index, field)
        key, name = (row.key, str(getattr(row, "name", ""))) if row is not None else ("", "")
        items.append(LintItem(finding, url, key, name, top))
    return items


def _place(
    world: World,
    rows: dict[str, list[WorldItem]],
    top: str,
    index: str | None,
    field: str | None,
) -> tuple[str | None, WorldItem | None]:
    anchor = f"#id_{to_snake(field)}" if field else ""
    slug = _LIST_SLUGS.get(top)
    if slug is not None and index is not None:
        if top not in rows:
            part = next(p for p in PARTS if p.alias == top)
            rows[top] = list(getattr(world, part.related).all())
        if int(index) < len(rows[top]):
            row = rows[top][int(index)]
            url = reverse(f"studio:{slug}_edit", args=[world.pk, row.pk])
            return url + anchor, row
    if top in _PAGES:
        return reverse(_PAGES[top], args=[world.pk]) + anchor, None
    if top in ("name", "description", "author", "language", "editorMode"):
        return reverse("studio:world", args=[world.pk]) + f"#id_{to_snake(top)}", None
    return None, None
