"""Each connection's input queue in daphne is a list and a future, not an ``asyncio.Queue``.

Daphne gives every connection a queue of what the client sent, which the application reads as
``receive``. An ``asyncio.Queue`` is four deques, each allocating a 64-slot block, and an
``Event``: about 3 KiB per open websocket, held for as long as it is open (tracemalloc at 500
sessions, bench/relay.py). Daphne only ever calls ``put_nowait`` on it and hands ``get`` to the
application, which ``play.frame_queue.FrameQueue`` does in a few hundred bytes, in the same
order, and with a cancelled ``get`` taking nothing.

``Server.create_application`` is replaced by the same steps with the other queue. The patch
applies only to the version of that method it was written against (compared by a hash of its
source); any other daphne keeps its own queue, and ``tests/config/test_daphne_queues.py`` says
so instead of passing.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import logging
from functools import partial
from typing import Any

from play.frame_queue import FrameQueue

log = logging.getLogger(__name__)

# sha256 of daphne 4.2's ``Server.create_application`` source.
WRITTEN_FOR = "f1e300b4ecf636c85e1a66250e32af2ebb67728f01919678d43e80c794a79a87"


def source_hash(function: Any) -> str:
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()


def install() -> bool:
    """Patch ``daphne.server.Server.create_application``; idempotent. False if not applied."""
    from daphne import server

    current: Any = server.Server.create_application
    if getattr(current, "light_queue", False):
        return True
    if source_hash(current) != WRITTEN_FOR:
        log.info("daphne's create_application is not the one known here: its own queue is kept")
        return False

    def create_application(self: Any, protocol: Any, scope: dict[str, Any]) -> Any:
        assert "application_instance" not in self.connections[protocol]
        input_queue: FrameQueue[dict[str, Any]] = FrameQueue()
        scope.setdefault("asgi", {"version": "3.0"})
        application_instance = self.application(
            scope=scope,
            receive=input_queue.get,
            send=partial(self.handle_reply, protocol),
        )
        if protocol not in self.connections:
            return None
        self.connections[protocol]["application_instance"] = asyncio.ensure_future(
            application_instance,
            loop=asyncio.get_event_loop(),
        )
        return input_queue

    create_application.light_queue = True  # type: ignore[attr-defined]
    server.Server.create_application = create_application
    return True
