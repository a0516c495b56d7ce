"""PostgreSQL as in production, but a test's flush deletes rows instead of truncating tables.

pytest-django empties the database after every transactional test (614 of them, and every
browser and integration test) with Django's ``flush``, which on PostgreSQL is one ``TRUNCATE``
of all 60-odd tables: it gives each table and index a new file, 0.25 s a test on this machine.
A ``DELETE`` from tables that hold a few rows takes milliseconds, and ends in the same empty
database: Django makes every foreign key ``DEFERRABLE INITIALLY DEFERRED``, so the order of the
deletes does not matter inside the flush's transaction. Sequences are reset the usual way when a
test asks for it (``reset_sequences``). Only the test process uses this backend (tests/settings.py);
the servers the tests start run on the plain one.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base, operations


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(
        self, style: Any, tables: Any, *, reset_sequences: bool = False, allow_cascade: bool = False
    ) -> list[str]:
        if reset_sequences:
            return super().sql_flush(
                style, tables, reset_sequences=True, allow_cascade=allow_cascade
            )
        return [f"DELETE FROM {self.quote_name(table)};" for table in tables]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
