"""Why the quota or the budget stopped a run, as its page says it (studio.evaluations.spending).

Apart from the spending, which reads play's quota and providers, so that the models
(``Evaluation.stop_reason``) can say it without importing play: the dependency runs one way.
"""

from __future__ import annotations

from django.utils.translation import gettext

REASON_PREFIX = "quota:"


def stop_reason(error: str) -> str:
    """What the run's page says of a run the quota or the budget stopped ('' otherwise)."""
    reason = error.removeprefix(REASON_PREFIX) if error.startswith(REASON_PREFIX) else ""
    if reason == "site":
        return gettext(
            "Stopped: the site's key has spent today's budget. It comes back at midnight UTC."
        )
    if reason == "new":
        return gettext(
            "Stopped: your new account's first-day actions on the site's key are used up."
        )
    if reason == "user":
        return gettext(
            "Stopped: your actions on the site's key are used up for today. They come back "
            "at midnight UTC."
        )
    return ""
