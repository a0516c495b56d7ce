"""The gallery's full-text search on real PostgreSQL (issue 14 §4): words of the name, the
description and the tags, in English, Spanish and Chinese, the exact author, and the plans that
use the indexes of migrations 0007-0008 instead of reading every world."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from studio.models import World, WorldVersion
from studio.publishing import gallery_worlds
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def shelve(owner: Any, rows: list[dict[str, str]]) -> list[World]:
    """Published worlds with the given version columns, in two bulk inserts."""
    worlds = World.objects.bulk_create(
        World(owner=owner, name=row["name"], published=True) for row in rows
    )
    versions = WorldVersion.objects.bulk_create(
        WorldVersion(world=world, number=1, definition={}, content_hash="0" * 64, **row)
        for world, row in zip(worlds, rows, strict=True)
    )
    for world, version in zip(worlds, versions, strict=True):
        world.published_version = version
    World.objects.bulk_update(worlds, ["published_version"])
    return worlds


@pytest.fixture
def shelf() -> None:
    shelve(
        make_user("alice"),
        [
            {"name": "Salt Road", "description": "Caravans cross a drowned desert.",
             "language": "en", "tags": "|trade|"},
            {"name": "El Dragón", "description": "Un dragón duerme bajo la montaña.",
             "language": "es", "tags": "|fantasía|"},
            {"name": "龙的传说", "description": "一条龙守护着古老的宫廷。",
             "language": "zh-Hans", "tags": "|神话|"},
        ],
    )  # fmt: skip
    shelve(make_user("Quill"), [{"name": "Ink", "description": "", "language": "", "tags": ""}])


def found(query: str = "", tag: str = "", language: str = "") -> list[str]:
    return sorted(w.published_version.name for w in gallery_worlds(query, tag, language))


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("salt", ["Salt Road"]),
        ("DROWNED desert", ["Salt Road"]),
        ("trade", ["Salt Road"]),
        ("caravans", ["Salt Road"]),
        ("cara", []),  # whole words: a prefix's selectivity is unknown to the planner
        ("dragón", ["El Dragón"]),
        ("DRAGÓN montaña", ["El Dragón"]),
        ("fantasía", ["El Dragón"]),
        ("传说", ["龙的传说"]),
        ("宫廷", ["龙的传说"]),
        ("神话", ["龙的传说"]),
        ("quill", ["Ink"]),
        ("road desert dragón", []),
        ("!!", []),
    ],
)
def test_full_text_search_finds_words_of_name_description_and_tags(shelf, query, expected):
    assert connection.vendor == "postgresql"
    assert found(query) == expected


def test_tag_and_language_filters_combine_with_the_search(shelf):
    assert found(tag="TRADE") == ["Salt Road"]
    assert found(language="zh") == ["龙的传说"]
    assert found(language="zh-hans") == ["龙的传说"]
    assert found("dragón", tag="fantasía", language="es") == ["El Dragón"]
    assert found("dragón", language="en") == []


def plan(sql: str, params: Any) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.fixture
def thousands() -> None:
    owner = make_user("many")
    rows = [
        {"name": f"World {n}", "description": f"word{n} lore", "language": "en" if n % 3 else "es",
         "tags": f"|tag{n % 50}|"}
        for n in range(3000)
    ]  # fmt: skip
    shelve(owner, rows)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE studio_world, studio_worldversion")


@pytest.mark.parametrize(
    ("params", "index"),
    [
        ({"query": "word42"}, "version_gallery_search_vector"),
        ({"tag": "tag7"}, "version_gallery_tags"),
        ({}, "version_gallery_newest"),
    ],
)
def test_the_gallery_queries_use_the_indexes_of_migrations_0007_and_0008(thousands, params, index):
    """The page for the newest-first order; the count (no order) for the filters, since with
    a LIMIT the planner may rightly walk the newest-first index and filter instead."""
    worlds = gallery_worlds(**params)
    query = (worlds[:12] if not params else worlds.order_by().values("pk")).query
    assert index in plan(*query.sql_with_params())


def test_the_language_filter_has_an_index():
    sql = "SELECT id FROM studio_worldversion WHERE UPPER(language::text) = UPPER(%s)"
    assert "version_gallery_language" in plan(sql, ["es"])


def test_a_search_reads_the_stored_vector_instead_of_rebuilding_the_document(thousands):
    """Index scans are off too: rows of earlier tests, rolled back, stay in the GIN index until
    a vacuum, and with 3,000 rows a walk of the primary key may then look cheaper."""
    sql, params = gallery_worlds("word42").order_by().values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_indexscan = off")
    explained = plan(sql, params)
    assert "Bitmap Index Scan on version_gallery_search_vector" in explained
    assert "(search_vector @@ '''word42'''::tsquery)" in explained
    assert "fabula_gallery_document" not in explained


def vectors(version_id: int) -> tuple[str, str]:
    """The stored vector and 0007's document rebuilt from the row's columns now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT search_vector::text, fabula_gallery_document(name::text, description, tags)"
            "::text FROM studio_worldversion WHERE id = %s",
            [version_id],
        )
        return cursor.fetchone()


def test_the_stored_vector_is_written_with_the_version_and_follows_its_columns(shelf):
    version = WorldVersion.objects.get(name="龙的传说")
    stored, rebuilt = vectors(version.pk)
    assert stored == rebuilt
    assert {"'龙':1,7", "'传':3", "'神':16"} <= set(stored.split())
    with connection.cursor() as cursor:
        # Versions are immutable through the ORM; the column still follows a raw update.
        cursor.execute(
            "UPDATE studio_worldversion SET name = 'Harbor', description = 'Tides', "
            "tags = '|Salt|' WHERE id = %s",
            [version.pk],
        )
    assert vectors(version.pk) == ("'harbor':1 'salt':3 'tides':2",) * 2
    assert found("tides salt") == ["Harbor"]
    assert found("传说") == []
