"""Request limits (issue 9 §6): bad input gets a clear 4xx naming the field, never a 500.

One middleware looks at every request before a view or the database does. A body over
``FABULA_MAX_BODY_BYTES`` is a 413, refused before it is read. A JSON body (any body that is not
a form: django-ninja parses those as JSON whatever their type) must be UTF-8, nest no deeper
than ``MAX_JSON_DEPTH`` and hold no NUL, and a query or form field no NUL: PostgreSQL refuses
U+0000 in text and jsonb, which would be a 500 after part of the work was done. The API's own
parser (``GuardedParser``) applies the same rules to the bodies it parses. docs/LIMITS.md lists
every limit.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote_to_bytes

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.decorators import sync_and_async_middleware
from ninja.parser import Parser
from ninja.types import DictStrAny

from engine.jsonguard import (
    MAX_JSON_DEPTH,
    NUL_MESSAGE,
    JsonInputError,
    JsonSyntaxError,
    decode_utf8,
    loads,
    nesting_depth,
)

FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
API_PREFIX = "/api/"


class InputTooLarge(Exception):
    """A body or file over a documented size limit: answered with 413 and the field."""

    def __init__(self, field: str, limit: int) -> None:
        self.field = field
        self.limit = limit
        self.message = f"is larger than the {megabytes(limit)} limit"
        super().__init__(f"{field}: {self.message}")


def megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):g} MB" if size >= 1024 * 1024 else f"{size:,} bytes"


class GuardedParser(Parser):
    """django-ninja's JSON body parser with the limits of ``engine.jsonguard.loads``.

    ninja wraps any error of ``parse_body`` in a bare 400; config/api.py unwraps it again.
    """

    def parse_body(self, request: HttpRequest) -> DictStrAny:
        value: DictStrAny = loads(request.body)
        return value


Handler = Callable[[HttpRequest], Any]


@sync_and_async_middleware
def input_limits(get_response: Handler) -> Handler:
    """Answer a request with bad input itself; let every other one through untouched."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            refused = refusal(request)
            if refused is not None:
                return refused
            response: Awaitable[HttpResponse] = get_response(request)
            return await response

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        refused = refusal(request)
        return refused if refused is not None else get_response(request)

    return middleware


def refusal(request: HttpRequest) -> HttpResponse | None:
    """The 400/413 response for a request with bad input, or None when it is fine."""
    try:
        check_request(request)
    except InputTooLarge as exc:
        return error_response(request, 413, "request body too large", [str(exc)])
    except RequestDataTooBig:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
        return error_response(
            request, 413, "request body too large", [str(InputTooLarge("$", limit))]
        )
    except JsonInputError as exc:
        return error_response(request, 400, "bad input", [str(exc)])
    except (MultiPartParserError, SuspiciousOperation) as exc:
        return error_response(request, 400, "bad input", [f"$: the request cannot be read ({exc})"])
    return None


def check_request(request: HttpRequest) -> None:
    """Raise InputTooLarge or JsonInputError (naming the field) for bad input."""
    limit: int = settings.FABULA_MAX_BODY_BYTES
    declared, buffered = _declared_length(request), _buffered_length(request)
    if max(declared, buffered) > limit:
        raise InputTooLarge("$", limit)
    _check_text(_query_bytes(request), "query string")
    _check_fields(request.GET.lists())
    content_type = request.content_type or ""
    if content_type in FORM_TYPES:
        if request.method == "POST":
            _check_form(request, content_type)
    elif declared > 0 or buffered > 0:
        check_json_body(request.body)


def _declared_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def _buffered_length(request: HttpRequest) -> int:
    """The real size of a body ASGI has buffered: it may come chunked, with no Content-Length."""
    stream: Any = getattr(request, "_stream", None)
    if hasattr(request, "_body") or not (hasattr(stream, "seekable") and stream.seekable()):
        return 0
    position = stream.tell()
    size = int(stream.seek(0, os.SEEK_END))
    stream.seek(position)
    return size


def check_json_body(body: bytes) -> None:
    """UTF-8, nesting and NUL of a JSON body; its syntax is left to the view that parses it."""
    if not body:
        return
    text = decode_utf8(body)
    if "\0" in text:
        raise JsonInputError("$", "contains a NUL byte")
    if nesting_depth(text) > MAX_JSON_DEPTH:
        raise JsonInputError("$", f"is nested deeper than {MAX_JSON_DEPTH} levels")
    if "\\u0000" in text:
        try:
            loads(text)  # finds the path of the NUL
        except JsonSyntaxError:
            return


def _check_form(request: HttpRequest, content_type: str) -> None:
    if content_type == "application/x-www-form-urlencoded":
        _check_text(request.body, "form body")
    _check_fields(request.POST.lists())
    for field, uploads in request.FILES.lists():
        if any("\0" in (upload.name or "") for upload in uploads):
            raise JsonInputError(field, f"the file name {NUL_MESSAGE}")


def _check_fields(fields: Any) -> None:
    for key, values in fields:
        if "\0" in key:
            raise JsonInputError("$", f"a field name {NUL_MESSAGE}")
        if any("\0" in value for value in values):
            raise JsonInputError(key, NUL_MESSAGE)


def _query_bytes(request: HttpRequest) -> bytes:
    query: str = request.META.get("QUERY_STRING", "")
    try:
        return query.encode("latin-1")  # PEP 3333: the raw bytes, decoded as latin-1
    except UnicodeEncodeError:
        return query.encode("utf-8")


def _check_text(encoded: bytes, what: str) -> None:
    """Percent-encoded text (a query string, a form body) must decode as UTF-8."""
    if encoded.isascii() and b"%" not in encoded:
        return
    raw = unquote_to_bytes(encoded.replace(b"+", b" "))
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonInputError(
            "$", f"the {what} is not valid UTF-8 (byte 0x{raw[exc.start]:02x} once decoded)"
        ) from None


def error_response(
    request: HttpRequest, status: int, detail: str, errors: list[str]
) -> HttpResponse:
    """The API's error shape under /api/, plain text elsewhere."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": detail, "errors": errors}, status=status)
    text = "\n".join([detail[:1].upper() + detail[1:] + ".", *errors])
    return HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")
