"""The gallery's search document stored in a column, so a search reads it instead of rebuilding it.

Migration 0007 indexed the expression ``fabula_gallery_document(name, description, tags)``: the
GIN index finds the candidates, but every row the planner then checks (a common word at page 50
walks thousands of versions newest first) had its document rebuilt by the PL/pgSQL function,
regular expression and parser included, 112 ms at p95. A generated column holds the same
tsvector, computed once when a version is written (0007's function is IMMUTABLE, as a generated
column requires, so the column and the old index hold identical documents), and a GIN index on
it replaces the expression index. Adding the column rewrites the table once.

PostgreSQL only, like 0007: SQLite keeps the icontains fallback. The model does not declare
the column; ``studio.gallery_postgres`` reads it by name (``SEARCH_VECTOR``).
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

FORWARD = [
    """
    ALTER TABLE studio_worldversion ADD COLUMN IF NOT EXISTS search_vector tsvector
      GENERATED ALWAYS AS (fabula_gallery_document(name::text, description, tags)) STORED
    """,
    """
    CREATE INDEX IF NOT EXISTS version_gallery_search_vector ON studio_worldversion
      USING gin (search_vector)
    """,
    "DROP INDEX IF EXISTS version_gallery_document",
]

BACKWARD = [
    """
    CREATE INDEX IF NOT EXISTS version_gallery_document ON studio_worldversion
      USING gin (fabula_gallery_document(name::text, description, tags))
    """,
    "DROP INDEX IF EXISTS version_gallery_search_vector",
    "ALTER TABLE studio_worldversion DROP COLUMN IF EXISTS search_vector",
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
    dependencies = [("studio", "0007_gallery_search")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
