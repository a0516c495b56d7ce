"""Websocket routes of every app."""

from django.urls import URLPattern, URLResolver

from play.routing import websocket_urlpatterns as play_websocket_urlpatterns

websocket_urlpatterns: list[URLPattern | URLResolver] = [*play_websocket_urlpatterns]
