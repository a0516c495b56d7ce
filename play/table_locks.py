"""The lock of a shared table: one turn at a time across its seated sessions (play.tables).

A seated session's turn holds its own session lock, as every turn does (compaction and memory
summaries wait on it), and the table's as well, so no two players' turns read the same world
state and commit over each other. A player who acts while another's action is being told waits
a little for it, then is told to try again.
"""

from __future__ import annotations

import asyncio
import time

from channels.db import database_sync_to_async
from django.utils.translation import gettext

from play import tables
from play.errors import SessionBusy
from play.locks import Lease, lock_backend

TABLE_WAIT_SECONDS = 20.0
POLL_SECONDS = 0.2


class TableBusy(SessionBusy):
    def __init__(self) -> None:
        super().__init__(None)
        self.table_message = gettext(
            "Another player's action is being told; send yours in a moment."
        )


class TableLease:
    """The session's lease and the table's, released together (table first)."""

    def __init__(self, own: Lease, table: Lease) -> None:
        self.own, self.table = own, table
        self.key, self.token = own.key, own.token

    @property
    def lost(self) -> bool:
        return self.own.lost or self.table.lost

    async def release(self) -> None:
        try:
            await self.table.release()
        finally:
            await self.own.release()


async def with_table_lock(session_id: str, own: Lease) -> Lease:
    """``own`` alone for a session at no table; else both, waiting up to TABLE_WAIT_SECONDS.
    Releases ``own`` and raises TableBusy when the table stays taken."""
    key = await database_sync_to_async(tables.lock_key)(session_id)
    if key == session_id:
        return own
    try:
        return await hold_table(key, own)
    except TableBusy:
        await own.release()
        raise


async def hold_table(key: str, own: Lease) -> Lease:
    """``own`` with the table's lock ``key`` (tables.lock_key), waiting up to
    TABLE_WAIT_SECONDS; TableBusy when it stays taken (``own`` is still held then)."""
    deadline = time.monotonic() + TABLE_WAIT_SECONDS
    while True:
        table = await lock_backend().acquire(key)
        if table is not None:
            return TableLease(own, table)
        if time.monotonic() >= deadline:
            raise TableBusy()
        await asyncio.sleep(POLL_SECONDS)
