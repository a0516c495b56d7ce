"""What a story has cost so far, for the play page (issue 16 §5 "Models and cost").

A session's total is the sum of its messages' usage, each message counted as the player sees it
(the version shown of a swiped reply), so the total the header shows is the sum of the costs on
the bubbles. It is summed by the database in one query, never by loading the messages: a long
session holds thousands, each with a state snapshot. What a world's UI asked of the model with
``ai.complete`` (``UiCompletion``, play.ui_ai) is the session's spending too: its tokens and
cost are added to the totals (they belong to no message, so no bubble shows them).
"""

from __future__ import annotations

import logging
from typing import Any

from django.db.models import DecimalField, IntegerField, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from play.models import Message, Session, UiCompletion

log = logging.getLogger(__name__)

TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
UI_TOKEN_FIELDS = ("input_tokens", "output_tokens")  # a UI's ai.complete reads no cache


def session_usage(session_id: Any) -> dict[str, Any]:
    """The session's tokens (cache reads and writes apart) and cost in USD, summed in one query
    (the history frame is built in a fixed number of them)."""
    count, money = IntegerField(), DecimalField(max_digits=16, decimal_places=6)
    sums = {f"m_{name}": _total(Message, name, count) for name in TOKEN_FIELDS}
    sums["m_cost"] = _total(Message, "cost", money)
    for name in UI_TOKEN_FIELDS:
        sums[f"u_{name}"] = _total(UiCompletion, name, count)
    sums["u_cost"] = _total(UiCompletion, "cost", money)
    found = Session.objects.filter(pk=session_id).values(**sums).first()
    row: dict[str, Any] = dict(found) if found else {}
    totals: dict[str, Any] = {
        name: int(row.get(f"m_{name}") or 0) + int(row.get(f"u_{name}") or 0)
        for name in TOKEN_FIELDS
    }
    totals["cost"] = float((row.get("m_cost") or 0) + (row.get("u_cost") or 0))
    return totals


def _total(model: Any, field: str, output: Any) -> Coalesce:
    per_session = (
        model.objects.filter(session_id=OuterRef("pk"))
        .order_by()
        .values("session_id")
        .annotate(total=Sum(field))
        .values("total")
    )
    return Coalesce(Subquery(per_session, output_field=output), Value(0), output_field=output)


def session_usage_or_none(session_id: Any) -> dict[str, Any] | None:
    """``session_usage`` after a turn was saved: None when it cannot be read now, since the
    turn's end frames must go out whatever happens to this sum (the next history repairs it)."""
    try:
        return session_usage(session_id)
    except Exception:
        log.exception("could not sum the usage of session %s", session_id)
        return None
