"""Websocket routes of the play app."""

from django.urls import URLPattern, URLResolver, path

from play.consumers import PlayConsumer

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    path("ws/play/<str:session_id>/", PlayConsumer.as_asgi()),
]
