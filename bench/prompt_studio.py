"""The studio's live preview on a large draft, through the HTTP endpoint (issue 14 §2).

Run by ``bench/prompt.py`` (``--studio-only`` for this part alone). It imports the generated
N-entry world as a draft into a throwaway SQLite database, logs a creator in with Django's test
``Client`` and POSTs the real preview URL (the view the editor's live preview calls):

- *first preview*: the first request after import (reads every row, compiles every keyword);
- *unchanged*: a preview with nothing changed since the last one;
- *edit → preview*: an entry's keywords and content saved through the entry editor's URL, then
  the preview (the save's own request is printed apart, as *edit*);
- *typing*: the preview with the entry being typed posted along, a different text each time
  (new keywords included), as the editor sends on every keystroke.

Times are wall-clock medians in milliseconds (the request includes the view, the template and
the database); the machine's other work inflates them, so compare medians.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def wall_ms(fn: Callable[[int], object], reps: int) -> list[float]:
    out = []
    for i in range(reps):
        start = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - start) * 1000)
    return out


def _entry_form(entry: dict[str, Any], i: int) -> dict[str, str]:
    """The entry editor's fields for ``entry``, with the text typed so far (key ``i``)."""
    return {
        "draft_kind": "entries",
        "draft_key": entry["id"],
        "id": entry["id"],
        "name": entry.get("name", ""),
        "section": entry.get("section", "chat-history"),
        "position": "0",
        "role": entry.get("role", "custom"),
        "api_role": entry.get("apiRole", "system"),
        "content": f"{entry.get('content', '')} typed {i}",
        "enabled": "on",
        "keywords": ", ".join([*entry.get("keywords", []), f"typed{i}"]),
        "secondary_keyword_logic": "AND_ANY",
        "condition_logic": "all",
        "conditions": "[]",
    }


def creator_with_draft(data: dict[str, Any]) -> tuple[Any, Any, str]:
    """A logged-in test client, the imported draft and its preview URL."""
    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import reverse

    from studio.worlds import import_world

    user = User.objects.create_user(f"bench{time.monotonic_ns()}")
    world = import_world(user, data)
    client = Client()
    client.force_login(user)
    return client, world, reverse("studio:preview", args=[world.pk])


def measure(data: dict[str, Any], reps: int) -> dict[str, float]:
    """Median milliseconds of each preview case for one generated world."""
    from django.urls import reverse

    from studio.models import Entry

    client, world, url = creator_with_draft(data)
    chat = "user: I look for the old mill.\nassistant: The road bends north."
    form = {"preview-chat": chat, "preview-state": "{}"}

    def preview(extra: dict[str, str] | None = None) -> None:
        response = client.post(url, {**form, **(extra or {})}, HTTP_HX_REQUEST="true")
        assert response.status_code == 200, response.status_code

    first = wall_ms(lambda i: preview(), 1)[0]
    unchanged = wall_ms(lambda i: preview(), reps)
    rows = list(Entry.objects.filter(world=world, section="chat-history")[:reps])
    by_id = {e["id"]: e for e in data["entries"]}
    edits: list[float] = []
    edited: list[float] = []

    def edit_then_preview(i: int) -> None:
        """Save one entry through the entry editor's URL, then preview."""
        row = rows[i % len(rows)]
        fields = {k: v for k, v in _entry_form(by_id[row.key], i).items() if "draft" not in k}
        edit_url = reverse("studio:entries_edit", args=[world.pk, row.pk])
        start = time.perf_counter()
        client.post(edit_url, fields, HTTP_HX_REQUEST="true")
        edits.append((time.perf_counter() - start) * 1000)
        assert Entry.objects.get(pk=row.pk).content.endswith(f"typed {i}"), "edit not saved"
        edited.extend(wall_ms(lambda _: preview(), 1))

    for i in range(min(reps, len(rows))):
        edit_then_preview(i)
    typed_entry = next(e for e in data["entries"] if e.get("section") == "chat-history")
    typing = wall_ms(lambda i: preview(_entry_form(typed_entry, i)), reps)
    return {
        "first": first,
        "unchanged": statistics.median(unchanged),
        "edit": statistics.median(edits),
        "edit_preview": statistics.median(edited),
        "typing": statistics.median(typing),
    }


def run(worlds: dict[int, dict[str, Any]], quick: bool) -> None:
    """Print the preview figures for each generated world (N → world JSON)."""
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3"))
        reps = 5 if quick else 15
        print(
            "\nstudio live preview through POST /studio/worlds/<id>/preview/ "
            f"(wall ms, median of {reps})"
        )
        print(
            f"{'N':>6} {'first':>8} {'unchanged':>10} {'edit':>7} {'edit→preview':>13} "
            f"{'typing':>8}"
        )
        for n, data in worlds.items():
            row = measure(data, reps)
            print(
                f"{n:>6} {row['first']:>8.0f} {row['unchanged']:>10.1f} {row['edit']:>7.1f} "
                f"{row['edit_preview']:>13.1f} {row['typing']:>8.1f}",
                flush=True,
            )
        print(
            "first: the first preview after import (every row read, every keyword compiled);"
            " unchanged: nothing changed since the last preview; edit: the entry editor's save"
            " request (one entry's keywords and content); edit→preview: the preview right"
            " after it; typing: the preview with the unsaved entry posted along (new keyword"
            " each time). Target: edit→preview and typing < 100 ms at N=5,000."
        )
