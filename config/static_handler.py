"""The /static/ handler of ``python -m config.serve --static`` (issue 32 §9).

Django's ASGI static files handler turns only ``Http404`` into a response: a path that climbs out
of a static folder (``/static/%2e%2e/manage.py``, which daphne hands over decoded as ``..``)
makes the finders raise ``SuspiciousFileOperation``, and that was a 500. It is a bad request,
answered 400 like anywhere else on the site (``response_for_exception``: the site's own 400 page
and a line on the ``django.security`` logger), and nothing outside the static folders is read.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.exceptions import SuspiciousOperation
from django.core.handlers.exception import response_for_exception
from django.http import HttpRequest


class StaticFilesHandler(ASGIStaticFilesHandler):
    """Django's handler, with a suspicious path answered 400 instead of raised."""

    async def get_response_async(self, request: HttpRequest) -> Any:
        try:
            return await super().get_response_async(request)
        except SuspiciousOperation as exc:
            return await sync_to_async(response_for_exception, thread_sensitive=False)(request, exc)
