"""Indexes for a gallery of 100,000 worlds: full-text search, tags, language and the listing.

PostgreSQL only: SQLite (the embedded default) keeps the icontains fallback and needs none.
The search document is an IMMUTABLE function so that the index expression and the query in
``studio.publishing`` are written once and always match. It is PL/pgSQL with a high COST so
that the planner neither inlines it nor takes it for cheap: a plan that rebuilt the document of
every row while walking the newest-first index took seconds for a rare word. Han, kana and
hangul characters are spaced out before the 'simple' parser sees them: it would otherwise index
a whole unbroken Chinese sentence as one word, and a search for a word in it would find nothing.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

CJK_CLASS = "[\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff]"

FORWARD = [
    f"""
    CREATE OR REPLACE FUNCTION fabula_gallery_document(name text, description text, tags text)
    RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 10000 AS $$
    BEGIN
      RETURN to_tsvector('simple'::regconfig, regexp_replace(
        coalesce(name, '') || ' ' || coalesce(description, '') || ' '
          || replace(coalesce(tags, ''), '|', ' '),
        '({CJK_CLASS})', ' \\1 ', 'g'));
    END
    $$
    """,
    """
    CREATE INDEX IF NOT EXISTS version_gallery_document ON studio_worldversion
      USING gin (fabula_gallery_document(name::text, description, tags))
    """,
    """
    CREATE INDEX IF NOT EXISTS version_gallery_tags ON studio_worldversion
      USING gin (string_to_array(lower(tags), '|'))
    """,
    """
    CREATE INDEX IF NOT EXISTS version_gallery_language ON studio_worldversion
      (upper(language::text) text_pattern_ops)
    """,
    """
    CREATE INDEX IF NOT EXISTS version_gallery_newest ON studio_worldversion
      (created_at DESC, id DESC)
    """,
    # A search also lists the worlds of an author of that exact name (case-insensitive).
    """
    CREATE INDEX IF NOT EXISTS user_gallery_username ON auth_user (upper(username::text))
    """,
    """
    CREATE INDEX IF NOT EXISTS world_gallery_listed ON studio_world (published_version_id)
      WHERE published AND published_version_id IS NOT NULL
    """,
]

BACKWARD = [
    "DROP INDEX IF EXISTS world_gallery_listed",
    "DROP INDEX IF EXISTS user_gallery_username",
    "DROP INDEX IF EXISTS version_gallery_newest",
    "DROP INDEX IF EXISTS version_gallery_language",
    "DROP INDEX IF EXISTS version_gallery_tags",
    "DROP INDEX IF EXISTS version_gallery_document",
    "DROP FUNCTION IF EXISTS fabula_gallery_document(text, text, text)",
]


def _run(statements: list[str]) -> Any:
    """A RunPython step running ``statements`` on PostgreSQL only, so SQLite migrates too."""

    def run(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("studio", "0006_evaluations")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
