"""What a story has cost so far, for the play page (issue 16 §5 "Models and cost").

A session's total is the sum of its messages' usage, each message counted as the player sees it
(the version shown of a swiped reply), so the total the header shows is the sum of the costs on
the bubbles. It is summed by the database in one query, never by loading the messages: a long
session holds thousands, each with a state snapshot. What a world's UI asked of the model with
``ai.complete`` (``UiCompletion``, play.ui_ai) is the session's spending too: its tokens and
cost are added to the totals (they belong to no message, so no bubble shows them).
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from django.db import connection

from play.models import Message, Session, UiCompletion

log = logging.getLogger(__name__)

TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
UI_TOKEN_FIELDS = ("input_tokens", "output_tokens")  # a UI's ai.complete reads no cache


def session_usage(session_id: Any) -> dict[str, Any]:
    """The session's tokens (cache reads and writes apart) and cost in USD, summed in one query
    (the history frame is built in a fixed number of them).

    Plain SQL, written once: every turn ends with this sum, and building it from ORM
    expressions (eight correlated subqueries) cost more CPU than the commit it follows.
    """
    pk = Session._meta.pk
    assert pk is not None
    key = pk.get_db_prep_value(pk.to_python(session_id), connection)
    with connection.cursor() as cursor:
        cursor.execute(_usage_sql(), [key, key])
        row = cursor.fetchone()
    messages, ui = row[: len(TOKEN_FIELDS) + 1], row[len(TOKEN_FIELDS) + 1 :]
    totals: dict[str, Any] = {name: int(messages[i] or 0) for i, name in enumerate(TOKEN_FIELDS)}
    for i, name in enumerate(UI_TOKEN_FIELDS):
        totals[name] += int(ui[i] or 0)
    totals["cost"] = float(messages[-1] or 0) + float(ui[-1] or 0)
    return totals


@functools.cache
def _usage_sql() -> str:
    """One row: the messages' sums, then the UI completions' (tokens, then cost, each)."""
    quote = connection.ops.quote_name

    def sums(model: Any, fields: tuple[str, ...]) -> str:
        columns = [model._meta.get_field(name).column for name in (*fields, "cost")]
        summed = ", ".join(f"COALESCE(SUM({quote(c)}), 0) AS {quote(c)}" for c in columns)
        session = quote(model._meta.get_field("session").column)
        return f"SELECT {summed} FROM {quote(model._meta.db_table)} WHERE {session} = %s"

    return (
        f"SELECT * FROM ({sums(Message, TOKEN_FIELDS)}) AS m, "
        f"({sums(UiCompletion, UI_TOKEN_FIELDS)}) AS u"
    )


def session_usage_or_none(session_id: Any) -> dict[str, Any] | None:
    """``session_usage`` after a turn was saved: None when it cannot be read now, since the
    turn's end frames must go out whatever happens to this sum (the next history repairs it)."""
    try:
        return session_usage(session_id)
    except Exception:
        log.exception("could not sum the usage of session %s", session_id)
        return None
