"""The studio's JSON API: worlds, import/export, preview, publishing, gallery, tokens.

Operations are thin: an access check first, one service call, a response. Errors are mapped to
JSON in ``config/api.py``. Sub-resources (entries, rules, …) are in ``studio.api_items``.
"""

from __future__ import annotations

from typing import Any

import pydantic
from django.http import Http404, HttpResponse
from ninja import Body, File, Router, Status
from ninja.errors import ValidationError
from ninja.files import UploadedFile

from engine.interop import import_file, import_report, world_to_worldinfo
from engine.jsonguard import JsonSyntaxError, loads
from engine.world import WorldDefinition, WorldValidationError, load_world
from studio import publishing, worlds
from studio.access import get_draft_for_user, get_version_to_copy, get_world_for_user
from studio.api_gamemaster import router as game_master_router
from studio.api_items import add_item_routes
from studio.assets import store_audio_asset
from studio.exporting import CardFormat, CardSpec, card_download
from studio.importing import check_import_size, keep_card_picture
from studio.linting import lint_draft
from studio.models import ApiToken, World
from studio.preview import parse_preview, preview_prompt
from studio.schemas import (
    ApiRequest,
    AssetOut,
    GalleryPage,
    ImportOut,
    NewTokenOut,
    ParseIn,
    PreviewIn,
    PublishIn,
    TokenIn,
    TokenOut,
    VersionOut,
    WorldOut,
)
from studio.tokens import check_can_mint, create_token, revoke_token

router = Router(tags=["worlds"])
GALLERY_PAGE_SIZE = 24
IMPORT_BODY = {
    "requestBody": {
        "content": {
            "application/json": {"schema": {"type": "object", "title": "WorldDefinition"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {"file": {"type": "string", "format": "binary"}},
                    "required": ["file"],
                }
            },
        },
        "required": True,
    }
}


def _world_out(world: World) -> dict[str, Any]:
    return WorldOut.of(world)


@router.get("/worlds", response=list[WorldOut], summary="List my worlds")
def list_worlds(request: ApiRequest) -> list[dict[str, Any]]:
    owned = World.objects.filter(owner=request.auth).select_related("owner", "published_version")
    return [_world_out(w) for w in owned]


@router.post("/worlds", response={201: WorldOut}, summary="Create an empty world")
def create_world(request: ApiRequest, payload: Body[dict[str, Any]]) -> Any:
    return Status(201, _world_out(worlds.create_world(request.auth, payload)))


@router.post(
    "/worlds/import",
    response={201: ImportOut},
    openapi_extra=IMPORT_BODY,
    summary="Import a world (JSON body) or a file (card PNG/JSON, World Info JSON)",
)
def import_world(request: ApiRequest) -> Any:
    if request.content_type == "multipart/form-data":
        upload = request.FILES.get("file")
        if upload is None:
            raise WorldValidationError(["file: is required"])
        check_import_size(upload.size or 0)
        data = upload.read()
        definition, warnings = import_file(data, upload.name or "upload")
    else:
        definition = _json_world(request)
        warnings, data = list(definition.warnings), b""
    world = worlds.import_world(request.auth, definition)
    picture = keep_card_picture(world, data)
    report = [line.to_dict() for line in import_report(definition, warnings, picture=picture)]
    return Status(201, {"world": _world_out(world), "warnings": warnings, "report": report})


def _declared_length(request: ApiRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _json_world(request: ApiRequest) -> WorldDefinition:
    # The declared length is checked before the body is read (past DATA_UPLOAD_MAX_MEMORY_SIZE
    # Django would answer a bare 400); the real length after, for a body sent without one.
    check_import_size(_declared_length(request), "$")
    body = request.body
    check_import_size(len(body), "$")
    try:
        data = loads(body or b"null")  # depth, UTF-8, NUL: JsonInputError, a 400 naming them
    except JsonSyntaxError:
        raise WorldValidationError(["$: body is not valid JSON"]) from None
    definition = load_world(data) if isinstance(data, dict) else None
    if definition is None:
        raise WorldValidationError(["$: must be a JSON object (a WorldDefinition)"])
    return definition


@router.get("/worlds/{int:world_id}", response=WorldOut, summary="Get a world's header")
def get_world(request: ApiRequest, world_id: int) -> dict[str, Any]:
    world = get_world_for_user(request.auth, world_id)
    out = _world_out(world)
    version = world.published_version
    if world.owner_id != request.auth.pk and version is not None:
        # Others see the header as published, not the draft's unreleased edits.
        author = version.definition.get("author", "")
        out.update(name=version.name, description=version.description, author=author)
        out.update(language=version.language or None, updated=version.created_at)
    return out


@router.patch("/worlds/{int:world_id}", response=WorldOut, summary="Change a world's header")
def update_world(
    request: ApiRequest, world_id: int, payload: Body[dict[str, Any]]
) -> dict[str, Any]:
    world = get_world_for_user(request.auth, world_id, write=True)
    return _world_out(worlds.update_world(world, payload))


@router.delete("/worlds/{int:world_id}", response={204: None}, summary="Delete a world")
def delete_world(request: ApiRequest, world_id: int) -> Any:
    worlds.delete_world(get_world_for_user(request.auth, world_id, write=True))
    return Status(204, None)


@router.put(
    "/worlds/{int:world_id}/content",
    response=WorldOut,
    openapi_extra=IMPORT_BODY,
    summary="Replace the whole draft with a WorldDefinition",
)
def replace_content(request: ApiRequest, world_id: int) -> dict[str, Any]:
    world = get_world_for_user(request.auth, world_id, write=True)
    return _world_out(worlds.replace_world_content(world, _json_world(request)))


@router.get("/worlds/{int:world_id}/settings", response=dict[str, Any], summary="Settings")
def get_settings(request: ApiRequest, world_id: int) -> dict[str, Any]:
    return dict(get_draft_for_user(request.auth, world_id).settings)


@router.patch("/worlds/{int:world_id}/settings", response=dict[str, Any], summary="Settings")
def update_settings(
    request: ApiRequest, world_id: int, payload: Body[dict[str, Any]]
) -> dict[str, Any]:
    world = get_world_for_user(request.auth, world_id, write=True)
    return dict(worlds.update_settings(world, payload).settings)


@router.get("/worlds/{int:world_id}/export", response=dict[str, Any], summary="Export JSON")
def export_world(request: ApiRequest, world_id: int, version: int | None = None) -> Any:
    """The draft as WorldDefinition JSON, or with ``?version=N`` that published version (403 on
    someone else's game-master world unless the version is remixable with its secrets)."""
    if version is None:
        return worlds.export_world_json(get_draft_for_user(request.auth, world_id))
    world = get_world_for_user(request.auth, world_id)
    frozen = world.versions.filter(number=version).first()
    if frozen is None:
        raise Http404("version not found")
    return get_version_to_copy(request.auth, frozen.pk).definition


@router.get(
    "/worlds/{int:world_id}/export/worldinfo",
    response=dict[str, Any],
    summary="Export the lorebook as SillyTavern World Info",
)
def export_worldinfo(request: ApiRequest, world_id: int) -> dict[str, Any]:
    world = get_draft_for_user(request.auth, world_id)
    return world_to_worldinfo(worlds.world_to_definition(world))


@router.get(
    "/worlds/{int:world_id}/export/card",
    response={200: dict[str, Any]},
    summary="Export as a SillyTavern character card (PNG or JSON, V2 or V3)",
    # The int key merges with ninja's own 200 (a "200" string would be a duplicate key).
    openapi_extra={
        "responses": {
            200: {
                "description": "OK",
                "content": {
                    "application/json": {"schema": {"type": "object"}},
                    "image/png": {"schema": {"type": "string", "format": "binary"}},
                },
            }
        }
    },
)
def export_card(
    request: ApiRequest, world_id: int, format: CardFormat = "png", spec: CardSpec = "v2"
) -> Any:
    """The draft as a card: ``format=json`` gives the card JSON, ``png`` a PNG with the card in
    its ``chara`` (and, for V3, ``ccv3``) text chunks, as SillyTavern writes them."""
    world = get_draft_for_user(request.auth, world_id)
    download = card_download(world, spec, format)
    if format == "json":
        return loads(download.body)
    response = HttpResponse(download.body, content_type=download.content_type)
    response["Content-Disposition"] = f'attachment; filename="{download.filename}"'
    return response


@router.get("/worlds/{int:world_id}/lint", response=list[dict[str, str]], summary="Lint")
def lint(request: ApiRequest, world_id: int) -> list[dict[str, str]]:
    """The world linter's findings on the draft, errors first (publishing needs none)."""
    return [f.to_dict() for f in lint_draft(get_draft_for_user(request.auth, world_id))]


@router.post("/worlds/{int:world_id}/preview", response=dict[str, Any], summary="Prompt preview")
def preview(request: ApiRequest, world_id: int, payload: PreviewIn) -> dict[str, Any]:
    """The assembled prompt for a sample chat and state (same JSON as `python -m engine prompt`)."""
    world = get_world_for_user(request.auth, world_id, write=True)
    return preview_prompt(world, **payload.dict())


@router.post("/worlds/{int:world_id}/parse", response=dict[str, Any], summary="Test directives")
def parse(request: ApiRequest, world_id: int, payload: ParseIn) -> dict[str, Any]:
    """Parse an AI reply against a state: clean text, new state, audio, effects, skipped."""
    world = get_world_for_user(request.auth, world_id, write=True)
    return parse_preview(world, text=payload.text, state=payload.state)


@router.post(
    "/worlds/{int:world_id}/publish",
    response={201: VersionOut},
    openapi_extra={
        "requestBody": {
            "content": {"application/json": {"schema": PublishIn.model_json_schema()}},
            "required": False,
        }
    },
    summary="Publish the draft as a new version (body optional)",
)
def publish(request: ApiRequest, world_id: int) -> Any:
    world = get_world_for_user(request.auth, world_id, write=True)
    payload = _optional_body(request, PublishIn)
    version = publishing.publish_world(
        world, payload.changelog, remixable_secrets=payload.remixable_secrets
    )
    return Status(201, VersionOut.of(version))


def _optional_body(request: ApiRequest, schema: type[PublishIn]) -> PublishIn:
    try:
        sent = request.content_type == "application/json" and request.body.strip()
        data = loads(request.body) if sent else {}  # JsonInputError: a 400 naming the problem
        return schema.model_validate(data)
    except pydantic.ValidationError as exc:
        raise ValidationError(
            [{**e, "loc": ("body", "payload", *e["loc"])} for e in exc.errors()]
        ) from None


@router.post("/worlds/{int:world_id}/unpublish", response=WorldOut, summary="Unpublish")
def unpublish(request: ApiRequest, world_id: int) -> dict[str, Any]:
    world = get_world_for_user(request.auth, world_id, write=True)
    return _world_out(publishing.unpublish_world(world))


@router.get("/worlds/{int:world_id}/versions", response=list[VersionOut], summary="Versions")
def list_versions(request: ApiRequest, world_id: int) -> list[dict[str, Any]]:
    world = get_world_for_user(request.auth, world_id)
    return [VersionOut.of(v) for v in world.versions.all()]


@router.post("/versions/{int:version_id}/fork", response={201: WorldOut}, summary="Fork")
def fork(request: ApiRequest, version_id: int) -> Any:
    version = get_version_to_copy(request.auth, version_id)
    return Status(201, _world_out(publishing.fork_world(request.auth, version)))


@router.get("/gallery", response=GalleryPage, auth=None, tags=["gallery"], summary="Gallery")
def gallery(
    request: ApiRequest, q: str = "", tag: str = "", language: str = "", page: int = 1
) -> dict[str, Any]:
    worlds = publishing.gallery_worlds(q, tag, language)
    current = publishing.gallery_page(worlds, GALLERY_PAGE_SIZE, page)
    return {
        "count": current.paginator.count,
        "count_exact": getattr(current.paginator, "exact", True),
        "page": current.number,
        "pages": current.paginator.num_pages,
        "results": [_gallery_item(w) for w in current.object_list],
    }


def _gallery_item(world: World) -> dict[str, Any]:
    version = world.published_version
    assert version is not None  # gallery_worlds only lists worlds with a version
    return {
        "world": world.pk,
        "version": version.pk,
        "version_number": version.number,
        "name": version.name,
        "description": version.description,
        "language": version.language,
        "tags": version.tag_list,
        "owner": world.owner.username,
        "published_at": version.created_at,
    }


@router.post(
    "/worlds/{int:world_id}/assets", response={201: AssetOut}, summary="Upload an audio asset"
)
def upload_asset(request: ApiRequest, world_id: int, file: File[UploadedFile]) -> Any:
    world = get_world_for_user(request.auth, world_id, write=True)
    return Status(201, asset_out(store_audio_asset(world, file)))


def asset_out(asset: Any) -> dict[str, Any]:
    return {
        "uid": str(asset.uid),
        "ref": asset.ref,
        "url": asset.file.url,
        "name": asset.original_name,
        "content_type": asset.content_type,
        "size": asset.size,
    }


@router.get("/tokens", response=list[TokenOut], tags=["tokens"], summary="My API tokens")
def list_tokens(request: ApiRequest) -> list[dict[str, Any]]:
    return [TokenOut.of(t) for t in ApiToken.objects.filter(user=request.auth)]


@router.post("/tokens", response={201: NewTokenOut}, tags=["tokens"], summary="New API token")
def new_token(request: ApiRequest, payload: TokenIn) -> Any:
    check_can_mint(getattr(request, "api_token", None))
    token, raw = create_token(
        request.auth, payload.name, scope=payload.scope, days=payload.expires_in_days
    )
    return Status(201, {**TokenOut.of(token), "token": raw})


@router.delete("/tokens/{int:token_id}", response={204: None}, tags=["tokens"], summary="Revoke")
def delete_token(request: ApiRequest, token_id: int) -> Any:
    token = ApiToken.objects.filter(user=request.auth, pk=token_id).first()
    if token is None:
        raise Http404("token not found")
    revoke_token(token)
    return Status(204, None)


add_item_routes(router)
router.add_router("", game_master_router)
