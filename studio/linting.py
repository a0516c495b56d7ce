"""The world linter on a draft (issue 16 §1): its findings, each linked to the field it names.

``engine.lint`` says what is wrong by JSON path (``rules[2].actions[0].entryId``); this module
turns the path into the editor page of that item with the field's anchor, so the studio's panel
can take the creator straight there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import reverse
from pydantic.alias_generators import to_snake

from engine.lint import Finding, lint_source
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
_HEAD = re.compile(r"^([A-Za-z]+)(?:\[(\d+)\])?(?:\.([A-Za-z]+))?")


@dataclass(frozen=True)
class LintItem:
    """A finding as the panel shows it: where it is, as a link when the studio edits it."""

    finding: Finding
    url: str | None
    item: str  # the id of the item the path names ("" for the world's own fields)

    @property
    def is_error(self) -> bool:
        return self.finding.severity == "error"


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
        url, item = _place(world, rows, top, index, field)
        items.append(LintItem(finding, url, item))
    return items


def _place(
    world: World,
    rows: dict[str, list[WorldItem]],
    top: str,
    index: str | None,
    field: str | None,
) -> tuple[str | None, str]:
    anchor = f"#id_{to_snake(field)}" if field else ""
    slug = _LIST_SLUGS.get(top)
    if slug is not None and index is not None:
        if top not in rows:
            part = next(p for p in PARTS if p.alias == top)
            rows[top] = list(getattr(world, part.related).all())
        if int(index) < len(rows[top]):
            row = rows[top][int(index)]
            url = reverse(f"studio:{slug}_edit", args=[world.pk, row.pk])
            return url + anchor, row.key
    if top in _PAGES:
        return reverse(_PAGES[top], args=[world.pk]) + anchor, ""
    if top in ("name", "description", "author", "language", "editorMode"):
        return reverse("studio:world", args=[world.pk]) + f"#id_{to_snake(top)}", ""
    return None, ""
