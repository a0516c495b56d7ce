"""The site's URLs plus views that fail in each way, for the error-page tests."""

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, path

from config.urls import urlpatterns as site_patterns


def not_found(request: HttpRequest) -> HttpResponse:
    raise Http404("the view's private detail")


def forbidden(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("the view's private detail")


def bad(request: HttpRequest) -> HttpResponse:
    raise SuspiciousOperation("the view's private detail")


def crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("the view's private detail")


urlpatterns: list[URLPattern | URLResolver] = [
    path("boom/not-found/", not_found),
    path("boom/forbidden/", forbidden),
    path("boom/bad/", bad),
    path("boom/crash/", crash),
    *site_patterns,
]
