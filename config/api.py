"""The JSON API: mounts each app's router and maps every domain error to a response."""

from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI

from engine.world import WorldValidationError

api = NinjaAPI(title="Fabula API", version="1.0.0", urls_namespace="api")


@api.exception_handler(WorldValidationError)
def world_invalid(request: HttpRequest, exc: WorldValidationError) -> HttpResponse:
    return api.create_response(
        request, {"detail": "invalid world", "errors": exc.errors}, status=422
    )


@api.get("/health", auth=None, tags=["meta"])
def health(request: HttpRequest) -> dict[str, str]:
    return {"status": "ok"}
