"""Entries (with search and filters), entry folders, and the world's custom tags and colours."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from engine.world import WorldValidationError
from studio.access import get_world_for_user
from studio.editing import Direction, move_tag, remove_tag, set_tag_color
from studio.forms import EntryFilterForm, EntryForm, FolderForm, TagForm
from studio.labels import label_text
from studio.models import Entry, EntryFolder, World
from studio.views.common import AuthedRequest, changed, render_page
from studio.views.kinds import Kind


def filter_entries(
    request: HttpRequest, world: World, rows: QuerySet[Any]
) -> tuple[list[Entry], EntryFilterForm]:
    """Entries matching the search box (name, id, keyword), section, tag and folder."""
    form = EntryFilterForm(world, request.GET)
    form.is_valid()
    wanted = form.cleaned_data
    query = str(wanted.get("q") or "").casefold()
    found = []
    for entry in rows:
        words = [entry.name, entry.key, *entry.keywords, *entry.secondary_keywords]
        if query and not any(query in str(w).casefold() for w in words):
            continue
        if wanted.get("section") and entry.section != wanted["section"]:
            continue
        if wanted.get("tag") and wanted["tag"] not in entry.tags:
            continue
        if wanted.get("folder") and entry.folder_id != wanted["folder"]:
            continue
        found.append(entry)
    return found, form


def describe_entry(entry: Entry) -> str:
    keywords = ", ".join(entry.keywords[:3])
    section = label_text(entry.section)
    return f"{section} · {keywords}" if keywords else section


ENTRIES = Kind(
    slug="entries",
    model=Entry,
    form_class=EntryForm,
    title=gettext_lazy("Entries"),
    singular=gettext_lazy("entry"),
    needs_world=True,
    form_template="studio/forms/entry_fields.html",
    list_filter=filter_entries,
    describe=describe_entry,
)

FOLDERS = Kind(
    slug="folders",
    model=EntryFolder,
    form_class=FolderForm,
    title=gettext_lazy("Folders"),
    singular=gettext_lazy("folder"),
    needs_world=True,
    describe=lambda folder: f"⤷ {folder.parent_id}" if folder.parent_id else "",
)


def _tags_page(request: AuthedRequest, world: World, form: TagForm) -> HttpResponse:
    context = {"world": world, "form": form, "section": "tags", "tags": tag_rows(world)}
    return render_page(request, "studio/tags.html", context, partial="tags")


def tag_rows(world: World) -> list[tuple[str, str]]:
    colors = world.custom_tag_colors
    return [(tag, str(colors.get(tag, ""))) for tag in world.custom_tags]


@login_required
@require_GET
def tag_list(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    return _tags_page(request, world, TagForm())


@login_required
@require_POST
def tag_save(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = TagForm(request.POST)
    if not form.is_valid():
        return _tags_page(request, world, form)
    set_tag_color(world, form.cleaned_data["tag"], form.cleaned_data["color"])
    if not request.htmx:
        messages.success(request, _("Tag saved."))
        return redirect("studio:tags", world.pk)
    return changed(_tags_page(request, world, TagForm()))


@login_required
@require_POST
def tag_move(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    direction: Direction = "up" if request.POST.get("direction") == "up" else "down"
    try:
        move_tag(world, request.POST.get("tag", ""), direction)
    except WorldValidationError as exc:
        return HttpResponseBadRequest("; ".join(exc.errors))
    if not request.htmx:
        return redirect("studio:tags", world.pk)
    return changed(_tags_page(request, world, TagForm()))


@login_required
@require_POST
def tag_delete(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    remove_tag(world, request.POST.get("tag", ""))
    if not request.htmx:
        messages.success(request, _("Tag removed."))
        return redirect("studio:tags", world.pk)
    return changed(_tags_page(request, world, TagForm()))
