"""A newcomer's first steps (issue 35 §8): the bundled demos, for the home page's intro and the
page a creator lands on after signing up, so both paths (play something, make something) are
one click away before anything else is explained."""

from __future__ import annotations

from django.db.models import QuerySet

from studio.demo import DEMO_USERNAME
from studio.models import World


def demo_worlds() -> QuerySet[World]:
    """The demo user's published worlds (the Lantern and Brackenford once ``load_demo`` ran)."""
    return (
        World.objects.filter(
            owner__username=DEMO_USERNAME, published=True, published_version__isnull=False
        )
        .select_related("published_version")
        .order_by("pk")
    )
