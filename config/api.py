"""The JSON API: mounts each app's router and maps every domain error to a response.

Two ways in: the browser's session (with CSRF on unsafe methods) and personal API tokens
(``Authorization: Bearer <token>``) for scripts. Every error body is
``{"detail": "...", "errors": ["path: message", ...]}``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI, Swagger
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import HttpBearer, SessionAuth

from config.limits import GuardedParser, InputTooLarge
from engine.interop import CardError
from engine.jsonguard import JsonInputError
from engine.world import WorldValidationError
from play.api import router as play_router
from play.errors import PlayError
from studio.api import router as studio_router
from studio.tokens import check_token_scope, find_token
from studio.worlds import WorldInUseError


class TokenAuth(HttpBearer):
    """``Authorization: Bearer fab_…``: a personal token, no CSRF (no cookie involved).

    A read-scoped token asking for an unsafe method gets a 403 that names its scope.
    """

    def authenticate(self, request: HttpRequest, token: str) -> User | None:
        api_token = find_token(token)
        if api_token is None:
            return None
        check_token_scope(api_token, request.method or "GET")  # 403 naming the scope
        request.user = api_token.user
        request.api_token = api_token  # type: ignore[attr-defined]  # read by check_can_mint
        return api_token.user


class BrowserSessionAuth(SessionAuth):
    """Django's session login; unsafe methods must carry the CSRF token.

    Anonymous requests skip the CSRF check so they get a 401, not a misleading 403.
    """

    def _get_key(self, request: HttpRequest) -> str | None:
        if not request.user.is_authenticated:
            return None
        return super()._get_key(request)


api = NinjaAPI(
    title="Fabula API",
    version="1.0.0",
    urls_namespace="api",
    auth=[TokenAuth(), BrowserSessionAuth()],
    parser=GuardedParser(),  # UTF-8, depth, NUL and number limits of docs/LIMITS.md
    docs_url="/docs",
    # Swagger UI from ninja's own static files ("ninja" is in INSTALLED_APPS), never a CDN; no
    # badge from the online validator either: the docs need no network and fit the page CSP.
    docs=Swagger(settings={"validatorUrl": None}),
)


def _error(
    request: HttpRequest, status: int, detail: str, errors: list[str] | None = None
) -> HttpResponse:
    return api.create_response(request, {"detail": detail, "errors": errors or []}, status=status)


@api.exception_handler(WorldValidationError)
def world_invalid(request: HttpRequest, exc: WorldValidationError) -> HttpResponse:
    return _error(request, 422, "invalid world", exc.errors)


@api.exception_handler(CardError)
def card_invalid(request: HttpRequest, exc: CardError) -> HttpResponse:
    return _error(request, 422, exc.message, exc.errors or [f"file: {exc.message}"])


@api.exception_handler(ValidationError)
def input_invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    return _error(request, 422, "invalid input", [_input_error(e) for e in exc.errors])


def _input_error(error: dict[str, Any]) -> str:
    # ninja locates errors as ("body", "<param name>", field, ...); keep the field path only.
    loc = [str(p) for p in error.get("loc", ())]
    if loc and loc[0] == "body" and len(loc) > 1:
        loc = loc[2:]
    elif loc and loc[0] in ("query", "path", "file", "form"):
        loc = loc[1:]
    path = "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in loc).lstrip(".") or "$"
    message = str(error.get("msg", "is invalid"))
    return f"{path}: {message[:1].lower()}{message[1:]}"


@api.exception_handler(PlayError)
def play_error(request: HttpRequest, exc: PlayError) -> HttpResponse:
    return _error(
        request, exc.status, exc.message, [f"{exc.field}: {exc.message}"] if exc.field else []
    )


@api.exception_handler(WorldInUseError)
def world_in_use(request: HttpRequest, exc: WorldInUseError) -> HttpResponse:
    return _error(request, 409, str(exc))


@api.exception_handler(Http404)
def not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _error(request, 404, str(exc) or "not found")


@api.exception_handler(PermissionDenied)
def forbidden(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    return _error(request, 403, str(exc) or "forbidden")


@api.exception_handler(AuthenticationError)
def unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return _error(request, 401, "authentication required (session or Bearer token)")


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    # ninja turns any error of the body parser into a bare 400; say what was wrong instead.
    if isinstance(exc.__cause__, JsonInputError | RequestDataTooBig):
        return api.on_exception(request, exc.__cause__)
    return _error(request, exc.status_code, str(exc))


@api.exception_handler(JsonInputError)
def bad_json(request: HttpRequest, exc: JsonInputError) -> HttpResponse:
    return _error(request, 400, "bad input", [str(exc)])


@api.exception_handler(InputTooLarge)
def too_large(request: HttpRequest, exc: InputTooLarge) -> HttpResponse:
    return _error(request, 413, "request body too large", [str(exc)])


@api.exception_handler(RequestDataTooBig)
def body_too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return too_large(request, InputTooLarge("$", settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0))


@api.get("/health", auth=None, tags=["meta"])
def health(request: HttpRequest) -> dict[str, str]:
    return {"status": "ok"}


api.add_router("/", studio_router)
api.add_router("/", play_router)
