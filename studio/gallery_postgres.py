"""The gallery's search on PostgreSQL: the stored full-text document and the tag array.

Kept apart from ``studio.publishing`` so that ``django.contrib.postgres`` (and psycopg with
it) is imported only by a process that searches a PostgreSQL gallery.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.search import SearchQuery, SearchVectorExact, SearchVectorField
from django.db.models import Expression, F, Func, Q, TextField, Value
from django.db.models.functions import Lower

# Migration 0008 stores 0007's document (name, description, tags) in this generated column of
# studio_worldversion, GIN-indexed; the model does not declare it (see StoredVector).
SEARCH_VECTOR = "search_vector"
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
WORD = re.compile(r"\w+")


def search(query: str) -> Q:
    """Every word in the version's stored full-text document (migration 0008's column).

    A condition on the joined version row itself, not a subquery: PostgreSQL then either walks
    the newest-first index and stops after a page (common words) or reads the few matches from
    the GIN index (rare ones), whichever costs less; either way the document is read, not
    rebuilt, for each row it checks.
    """
    terms = gallery_tsquery(query)
    if not terms:
        return Q(pk__in=[])
    document = StoredVector("published_version__name")
    return Q(SearchVectorExact(document, SearchQuery(terms, config="simple", search_type="raw")))


class StoredVector(Expression):
    """The ``search_vector`` column of the version table that ``sibling`` (a column path such
    as ``published_version__name``) is read from, under that join's alias.

    The model does not declare the column, since SQLite has no tsvector to generate; resolving
    a declared sibling joins the table (or reuses its join) and yields the alias to qualify with.
    """

    def __init__(self, sibling: str) -> None:
        super().__init__(output_field=SearchVectorField())
        self.sibling: Any = F(sibling)

    def get_source_expressions(self) -> list[Any]:
        return [self.sibling]

    def set_source_expressions(self, exprs: Sequence[Any]) -> None:
        (self.sibling,) = exprs

    # A list of parameters, as Col's: the lookup adds the query's list to it (stubs: a tuple).
    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:  # type: ignore[override]
        alias = compiler.quote_name_unless_alias(self.sibling.alias)
        return f"{alias}.{connection.ops.quote_name(SEARCH_VECTOR)}", []


def gallery_tsquery(query: str) -> str:
    """``query`` as a to_tsquery string: every word required, and each Chinese or Japanese
    character a word of its own, the way migration 0007's document splits them.

    Whole words, not prefixes: PostgreSQL cannot estimate how many rows a prefix matches, and
    on a guess of "a few hundred" it walked all 100,000 worlds newest first, rebuilding each
    document, for a word nobody used. Characters are ANDed, not a phrase: a phrase needs
    positions the GIN index does not keep, so every candidate row would be rebuilt to check it.
    """
    parts: list[str] = []
    for word in WORD.findall(query.lower()):
        pieces = [p for p in re.split(f"({CJK.pattern})", word) if p]
        parts.append(" & ".join(f"'{p}'" for p in pieces))
    return " & ".join(f"({p})" for p in parts)


def tag_array(field: str) -> Func:
    """The tags as a lowercase array, the expression the ``version_gallery_tags`` index holds."""
    return Func(
        Lower(field), Value("|"), function="string_to_array", output_field=ArrayField(TextField())
    )
