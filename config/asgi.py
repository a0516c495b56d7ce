"""ASGI entry point: HTTP through Django, websockets through Channels."""

import gc
import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config import daphne_queues, httpcore_sync, twisted_writes  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Each route's application is wrapped in config/socket_gate.py's one layer: Origin must
        # be the page's own scheme, host and port (config/origins.py), the server's own send is
        # kept for the turn's frames (play/socket_writer.py), then the cookies, session and user.
        "websocket": URLRouter(websocket_urlpatterns),
    }
)


def _settle_the_collector() -> None:
    """Keep the garbage collector's full passes off the streaming path.

    A full collection walks every tracked object, and a play process holds the whole app: under
    load a pass took 250-330 ms (bench/relay.py, 200 sessions), and every socket of the
    process waits that long for its next token. What is imported now lives as long as the
    process, so it is frozen out of the walks (the model SDKs' lazily imported types with it),
    and young collections run less often than the default 700 allocations (a turn allocates in
    bursts). Not too rarely either: a young pass walks everything allocated since the last
    one, and at 50,000 one took 14-31 ms under load; at 20,000, 500 streaming sessions on two
    processes had a token p99 of 32-69 ms over four runs, against 48-73 ms at 50,000 in
    the runs in between (bench/relay.py).

    With DEBUG on (`make run`) the SDKs are left to load on the first live turn instead: they
    took 1.5 s of every start of the development server before its first page (issue 36).
    """
    from django.conf import settings

    if not settings.DEBUG:
        import anthropic.resources.messages  # noqa: F401
        import openai.resources.chat.completions  # noqa: F401

    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 100)


def _shorten_the_switch_interval() -> None:
    """Hand the GIL to a waiting thread after 0.5 ms instead of Python's default 5 ms.

    The turns' database work runs on one thread per process. Each socket write or read of the
    event loop lets go of the GIL, and while that thread has work queued the loop then waits up
    to a whole interval to take it back, at every write: at 5 ms a busy thread left the loop a
    quarter of its sends and a 40 ms p99 between a send and its arrival, at 0.5 ms 4 times the
    sends and 5-7 ms (bench/switch_interval.py). The turn starts and ends that 500 sessions
    bring by the hundred a second are when that thread is busy.
    """
    sys.setswitchinterval(0.0005)


_settle_the_collector()
_shorten_the_switch_interval()
twisted_writes.install()
daphne_queues.install()
httpcore_sync.install()
