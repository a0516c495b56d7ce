"""Django's ``flush``, keeping ``KEPT`` and so sending no ``post_migrate`` (the package says why).

Asked interactively (a person at a terminal), it is Django's own command unchanged.
"""

from __future__ import annotations

from typing import Any

from django.core.management.color import no_style
from django.core.management.commands import flush
from django.db import connections

KEPT = frozenset({"django_content_type", "auth_permission"})


class Command(flush.Command):
    def handle(self, **options: Any) -> None:
        if options["interactive"]:
            super().handle(**options)
            return
        connection = connections[options["database"]]
        tables = connection.introspection.django_table_names(
            only_existing=True, include_views=False
        )
        sql = connection.ops.sql_flush(
            no_style(),
            [table for table in tables if table not in KEPT],
            reset_sequences=options.get("reset_sequences", True),
            allow_cascade=options.get("allow_cascade", False),
        )
        connection.ops.execute_sql_flush(sql)
