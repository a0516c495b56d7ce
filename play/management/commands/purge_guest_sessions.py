"""Delete guest previews untouched for a day (run from cron; new previews also purge)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from play.playtests import purge_guest_sessions


class Command(BaseCommand):
    help = "Delete guest preview sessions untouched for a day."

    def handle(self, *args: Any, **options: Any) -> None:
        deleted = purge_guest_sessions(timezone.now())
        self.stdout.write(f"Deleted {deleted} guest session(s).")
