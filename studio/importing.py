"""Uploads turned into new drafts: Fabula JSON, character cards (PNG/JSON), World Info.

A file the engine cannot read gives a message for the creator and creates nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile

from config.limits import InputTooLarge
from engine.interop import CardError, ReportLine, import_file, import_report
from engine.interop.png import is_png
from engine.interop.report import PICTURE_KEPT
from engine.world import WorldValidationError
from studio.models import World
from studio.portraits import PortraitError, render_portrait, store_portrait, swap_portrait
from studio.worlds import import_world


@dataclass
class ImportOutcome:
    world: World | None = None
    warnings: list[str] = field(default_factory=list)
    error: str = ""
    details: list[str] = field(default_factory=list)
    report: list[ReportLine] = field(default_factory=list)  # mapped, dropped, attention


def check_import_size(size: int, field: str = "file") -> None:
    """Refuse an import over ``MAX_IMPORT_BYTES`` before it is read (InputTooLarge: a 413)."""
    if size > settings.MAX_IMPORT_BYTES:
        raise InputTooLarge(field, settings.MAX_IMPORT_BYTES)


def import_upload(owner: User, upload: UploadedFile[bytes]) -> ImportOutcome:
    """Read ``upload`` with the engine's interop and store it as a draft of ``owner``."""
    data = upload.read()
    try:
        definition, warnings = import_file(data, upload.name or "upload")
        world = import_world(owner, definition)
    except CardError as exc:
        return ImportOutcome(error=exc.message, details=exc.errors)
    except WorldValidationError as exc:
        return ImportOutcome(error="the world is invalid", details=exc.errors)
    report = import_report(definition, warnings, picture=keep_card_picture(world, data))
    return ImportOutcome(world=world, warnings=warnings, report=report)


def keep_card_picture(world: World, data: bytes) -> str | None:
    """Make a PNG card's picture the world's portrait: ``PICTURE_KEPT``, the reason it was not
    kept, or None for a file without a picture. The picture is re-encoded like any upload."""
    if not is_png(data):
        return None
    try:
        name = store_portrait(render_portrait(data))
    except PortraitError as exc:
        return exc.message
    swap_portrait(world, "portrait", name, "updated")
    return PICTURE_KEPT
