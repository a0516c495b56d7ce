"""Websocket routes of the play app."""

from django.urls import URLPattern, URLResolver, path

from config.socket_gate import SocketGate
from play.consumers import PlayConsumer

# The gate inside the route, not around the router: the scope it builds is then the consumer's
# own, which can let go of the session and user once it has connected (play.consumers).
websocket_urlpatterns: list[URLPattern | URLResolver] = [
    path("ws/play/<str:session_id>/", SocketGate(PlayConsumer.as_asgi())),
]
