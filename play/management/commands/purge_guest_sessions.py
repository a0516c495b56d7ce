"""Delete guest previews untouched for a day (run from cron; new previews also purge), and the
custom-UI storage of guests and sessions that are gone (play.ui_storage.purge)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from play import ui_storage
from play.playtests import purge_guest_sessions


class Command(BaseCommand):
    help = "Delete guest preview sessions untouched for a day."

    def handle(self, *args: Any, **options: Any) -> None:
        deleted = purge_guest_sessions(timezone.now())
        self.stdout.write(f"Deleted {deleted} guest session(s).")
        stored = ui_storage.purge()
        if stored:
            self.stdout.write(f"Deleted {stored} custom-UI storage row(s).")
