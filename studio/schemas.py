"""Request and response shapes of the studio API.

World content itself travels as schema 20.0.0 JSON (camelCase) and is validated by the engine's
models, never here: these schemas only describe the envelope around it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.contrib.auth.models import User
from django.http import HttpRequest
from ninja import Field, Schema

from studio.models import ApiToken, World, WorldItem, WorldVersion


class ApiRequest(HttpRequest):
    """What an API operation receives: ``auth`` is the user the session or token belongs to."""

    auth: User


class WorldOut(Schema):
    id: int
    uid: str
    name: str
    description: str
    author: str
    language: str | None
    editor_mode: str
    owner: str
    published: bool
    published_version: int | None = Field(description="Number of the version in the gallery.")
    created: datetime
    updated: datetime

    @staticmethod
    def of(world: World) -> dict[str, Any]:
        version = world.published_version
        return {
            "id": world.pk,
            "uid": world.uid,
            "name": world.name,
            "description": world.description,
            "author": world.author,
            "language": world.language,
            "editor_mode": world.editor_mode,
            "owner": world.owner.username,
            "published": world.published,
            "published_version": version.number if version else None,
            "created": world.created,
            "updated": world.updated,
        }


class ReportLineOut(Schema):
    kind: str = Field(description="mapped, dropped or attention")
    message: str


class ImportOut(Schema):
    world: WorldOut
    warnings: list[str]
    report: list[ReportLineOut] = Field(
        description="What the import mapped, dropped (with the field path) and what needs "
        "the creator's attention: one line per problem, not per entry."
    )


class ItemOut(Schema):
    pk: int = Field(description="Use in URLs; stable while the item exists.")
    index: int = Field(description="Place in the world's list.")
    data: dict[str, Any] = Field(description="The item as world JSON (camelCase).")

    @staticmethod
    def of(item: WorldItem, data: dict[str, Any]) -> dict[str, Any]:
        return {"pk": item.pk, "index": item.position, "data": data}


class MoveIn(Schema):
    position: int = Field(ge=0, description="New index in the list (clamped to its end).")


class VersionOut(Schema):
    id: int
    world: int
    number: int
    name: str
    changelog: str
    content_hash: str
    created_at: datetime
    remixable_secrets: bool = Field(
        default=False,
        description="Others may export and fork it with its game master's secrets.",
    )

    @staticmethod
    def of(version: WorldVersion) -> dict[str, Any]:
        return {
            "id": version.pk,
            "world": version.world_id,
            "number": version.number,
            "name": version.name,
            "changelog": version.changelog,
            "content_hash": version.content_hash,
            "created_at": version.created_at,
            "remixable_secrets": version.remixable_secrets,
        }


class PublishIn(Schema):
    changelog: str = Field(default="", max_length=500)
    remixable_secrets: bool = Field(
        default=False,
        description=(
            "Let others export and fork this version with its game master's secrets (notes, "
            "NPC secrets, hidden places, clues): its players could then read its solution."
        ),
    )


class GalleryItem(Schema):
    world: int
    version: int
    version_number: int
    name: str
    description: str
    language: str
    tags: list[str]
    owner: str
    published_at: datetime


class GalleryPage(Schema):
    count: int = Field(
        description="Matching worlds; counted up to four pages past this one (see count_exact)."
    )
    count_exact: bool = Field(
        default=True, description="False when more worlds match than were counted."
    )
    page: int
    pages: int
    results: list[GalleryItem]


class PreviewIn(Schema):
    chat: list[dict[str, Any]] = Field(default_factory=list, description="[{role, content}]")
    state: dict[str, Any] = Field(
        default_factory=dict, description="Variable values, or a whole saved SessionState."
    )
    persona: dict[str, Any] | None = None
    context: dict[str, Any] = Field(default_factory=dict, description="MacroContext JSON.")
    scene: dict[str, Any] | None = Field(
        default=None,
        description="{character, location}: also return the game master's scene context.",
    )


class ParseIn(Schema):
    text: str
    state: dict[str, Any] = Field(default_factory=dict)


class AssetOut(Schema):
    uid: str
    ref: str
    url: str
    name: str
    content_type: str
    size: int


class RootFileIn(Schema):
    path: str
    source: str = ""


class RootFileOut(Schema):
    pk: int
    path: str
    source: str


class TokenIn(Schema):
    name: str = Field(min_length=1, max_length=100)
    scope: Literal["read", "write"] = Field("read", description="read: GET only.")
    expires_in_days: int = Field(30, ge=1, le=365)


class TokenOut(Schema):
    id: int
    name: str
    prefix: str
    scope: str
    created: datetime
    expires: datetime
    last_used: datetime | None
    revoked: datetime | None

    @staticmethod
    def of(token: ApiToken) -> dict[str, Any]:
        return {
            "id": token.pk,
            "name": token.name,
            "prefix": token.prefix,
            "scope": token.scope,
            "created": token.created,
            "expires": token.expires,
            "last_used": token.last_used,
            "revoked": token.revoked,
        }


class NewTokenOut(TokenOut):
    token: str = Field(description="The secret; shown this once only.")


class ErrorOut(Schema):
    detail: str
    errors: list[str] = Field(default_factory=list)
