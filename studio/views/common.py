"""Helpers every studio view shares: page-or-partial rendering, engine errors, htmx replies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django_htmx.http import trigger_client_event
from django_htmx.middleware import HtmxDetails

from engine.world import WorldValidationError
from studio.forms.base import EngineForm

T = TypeVar("T")


class Request(HttpRequest):
    """A request as the middleware leaves it: with ``request.htmx``."""

    htmx: HtmxDetails


class AuthedRequest(Request):
    """A request behind ``login_required``: ``request.user`` is a real user."""

    user: User


# The event the preview panel listens for, so it refreshes after every saved change.
WORLD_CHANGED = "worldChanged"


def render_page(
    request: Request,
    template: str,
    context: dict[str, Any],
    *,
    partial: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """The whole page, or only ``partial`` of it when htmx asked."""
    name = f"{template}#{partial}" if partial and request.htmx else template
    return render(request, name, context, status=status)


def apply(form: EngineForm, action: Callable[[dict[str, Any]], T]) -> T | None:
    """Run a service call on the form's world JSON; engine errors land on the form's fields."""
    try:
        return action(form.to_data())
    except WorldValidationError as exc:
        form.add_engine_errors(exc.errors)
        return None


def changed(response: HttpResponse, push: tuple[Any, ...] | None = None) -> HttpResponse:
    """Mark an htmx reply as a change of the world (the preview refreshes); maybe push a URL."""
    if push is not None:
        response["HX-Push-Url"] = reverse(push[0], args=push[1:])
    return trigger_client_event(response, WORLD_CHANGED)


def int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def order_from(request: Request) -> list[int]:
    """The primary keys posted as ``order`` by a drag-and-drop list, skipping junk."""
    return [pk for pk in (int_or_none(v) for v in request.POST.getlist("order")) if pk]


def posted(request: HttpRequest) -> Any:
    """The POST data to bind a form to, or None on GET (an empty POST still binds)."""
    return request.POST if request.method == "POST" else None


def files(request: HttpRequest) -> Any:
    return request.FILES if request.method == "POST" else None
