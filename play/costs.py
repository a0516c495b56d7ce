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

from django.db.models import Sum

from play.models import Message, UiCompletion

log = logging.getLogger(__name__)

TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def session_usage(session_id: Any) -> dict[str, Any]:
    """The session's tokens (cache reads and writes apart) and cost in USD, summed."""
    sums = Message.objects.filter(session_id=session_id).aggregate(
        cost=Sum("cost"), **{name: Sum(name) for name in TOKEN_FIELDS}
    )
    ui = UiCompletion.objects.filter(session_id=session_id).aggregate(
        cost=Sum("cost"), input_tokens=Sum("input_tokens"), output_tokens=Sum("output_tokens")
    )
    totals: dict[str, Any] = {
        name: int(sums[name] or 0) + int(ui.get(name) or 0) for name in TOKEN_FIELDS
    }
    totals["cost"] = float((sums["cost"] or 0) + (ui["cost"] or 0))
    return totals


def session_usage_or_none(session_id: Any) -> dict[str, Any] | None:
    """``session_usage`` after a turn was saved: None when it cannot be read now, since the
    turn's end frames must go out whatever happens to this sum (the next history repairs it)."""
    try:
        return session_usage(session_id)
    except Exception:
        log.exception("could not sum the usage of session %s", session_id)
        return None
