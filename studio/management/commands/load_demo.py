"""`manage.py load_demo`: install the bundled demo worlds (idempotent)."""

from typing import Any

from django.core.management.base import BaseCommand

from studio.demo import load_demo


class Command(BaseCommand):
    help = "Create the demo user and publish the bundled demo worlds (safe to run again)."

    def handle(self, *args: Any, **options: Any) -> None:
        result = load_demo()
        version = result["version"]
        state = "updated" if result["changed"] else "unchanged"
        self.stdout.write(
            f"Demo world '{version.name}' {state}; published version {version.number}, "
            f"{result['assets']} new audio assets."
        )
        gm = result["gm"]
        state = "updated" if gm["changed"] else "unchanged"
        self.stdout.write(
            f"Game-master demo world '{gm['version'].name}' {state}; "
            f"published version {gm['version'].number}."
        )
