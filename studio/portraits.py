"""Faces: the portraits of worlds and of game-master characters, the avatars of personas (issue 16
§4).

An uploaded image is untrusted. Pillow opens it with the PNG, JPEG, WebP and GIF decoders only;
its pixel count is checked from the header before a pixel is decoded, so a decompression bomb is
refused cheaply; it is turned upright by its EXIF orientation, cropped to a square (the box the
uploader chose, else the centre) and written anew: a PNG of at most 512 px (what a character card
embeds) and WebP thumbnails of 256 and 64 px. Nothing the uploader sent is ever served, its
metadata included (EXIF, ICC profiles, text chunks stay behind).

The files of one portrait sit together under ``portraits/<random hex>/`` in Django's default
storage; a model keeps the PNG's name in a FileField and the thumbnails are found beside it.
Replacing, removing or deleting a portrait's owner deletes its files once the change commits.
"""

from __future__ import annotations

import contextlib
import io
import re
import unicodedata
import uuid
import warnings
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import models, transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils.translation import gettext as _
from PIL import (
    GifImagePlugin,
    Image,
    ImageOps,
    JpegImagePlugin,
    PngImagePlugin,
    WebPImagePlugin,
)

from config.limits import megabytes
from studio.gamemaster import game_master_data
from studio.models import CharacterPortrait, World

FORMATS = ("PNG", "JPEG", "WEBP", "GIF")  # JPEG opens the MPO files of many cameras too
# Importing a plugin registers its decoder; Image.open(formats=…) knows only some of them before.
DECODERS = (PngImagePlugin, JpegImagePlugin, WebPImagePlugin, GifImagePlugin)
KINDS = "PNG, JPEG, WebP or GIF"
MAX_PIXELS = 25_000_000  # 5000 × 5000 (a 24 MP photo fits), checked before decoding
LARGEST = 512
THUMBNAILS = (256, 64)
PNG_NAME = "portrait.png"
FOLDER = "portraits"
HUES = 8  # initials get one of this many background colours (CSS classes face--hue-0…7)


class PortraitError(ValueError):
    """An upload refused: ``message`` for the person, ``field`` the form field at fault."""

    def __init__(self, message: str, field: str = "image") -> None:
        self.message = message
        self.field = field
        super().__init__(f"{field}: {message}")


@dataclass(frozen=True)
class CropBox:
    """A square of the upright image, in its pixels: left, top and side."""

    x: int
    y: int
    size: int


# --- images ---------------------------------------------------------------------------------


def render_portrait(data: bytes, crop: CropBox | None = None) -> dict[str, bytes]:
    """The files of a portrait made from ``data``: ``portrait.png``, ``256.webp``, ``64.webp``.

    Raises PortraitError for anything but a PNG, JPEG, WebP or GIF image of sane size.
    """
    # Crop before anything else copies the pixels: the square is all that is kept.
    face = _square(_open(data), crop).convert("RGBA")
    side = min(face.width, LARGEST)
    files = {PNG_NAME: _encode(_resized(face, side), "PNG")}
    for size in THUMBNAILS:
        files[f"{size}.webp"] = _encode(_resized(face, size), "WEBP")
    return files


def _open(data: bytes) -> Image.Image:
    """The first frame, decoded and upright; PortraitError when it is no image we take."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image: Image.Image = Image.open(io.BytesIO(data), formats=FORMATS)
            if image.width * image.height > MAX_PIXELS:
                raise PortraitError(_too_large())
            image.load()
    except PortraitError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise PortraitError(_too_large()) from None
    except Exception:  # Pillow raises many kinds on hostile bytes; all mean "not an image"
        raise PortraitError(_not_an_image()) from None
    with contextlib.suppress(Exception):  # a broken EXIF block: keep the image as stored
        ImageOps.exif_transpose(image, in_place=True)
    return image


def _too_large() -> str:
    limit = f"{MAX_PIXELS // 1_000_000}"
    return _("the image has too many pixels (at most %(limit)s megapixels)") % {"limit": limit}


def _not_an_image() -> str:
    return _("not an image (%(kinds)s expected)") % {"kinds": KINDS}


def _square(image: Image.Image, crop: CropBox | None) -> Image.Image:
    """The crop box, shrunk and moved to fit inside the image; the centre square without one."""
    width, height = image.size
    if crop is None:
        side = min(width, height)
        x, y = (width - side) // 2, (height - side) // 2
    else:
        side = max(1, min(crop.size, width, height))
        x = min(max(crop.x, 0), width - side)
        y = min(max(crop.y, 0), height - side)
    return image.crop((x, y, x + side, y + side))


def _resized(image: Image.Image, side: int) -> Image.Image:
    if image.width == side:
        return image
    return image.resize((side, side), Image.Resampling.LANCZOS, reducing_gap=3.0)


def _encode(image: Image.Image, kind: str) -> bytes:
    # A fresh image carries no ``info`` (ICC profile, EXIF, text) for the encoder to copy.
    clean = Image.new(image.mode, image.size)
    clean.paste(image)
    out = io.BytesIO()
    if kind == "PNG":
        clean.save(out, "PNG", optimize=True)
    else:
        clean.save(out, "WEBP", quality=85, method=4)
    return out.getvalue()


# --- files ----------------------------------------------------------------------------------


def read_upload(upload: UploadedFile[bytes]) -> bytes:
    """The uploaded bytes; PortraitError when the file is over ``MAX_PORTRAIT_BYTES``."""
    limit: int = settings.MAX_PORTRAIT_BYTES
    message = _("is larger than the %(limit)s limit") % {"limit": megabytes(limit)}
    if (upload.size or 0) > limit:
        raise PortraitError(message)
    upload.seek(0)
    data = bytes(upload.read(limit + 1))
    if len(data) > limit:
        raise PortraitError(message)
    return data


def store_portrait(files: dict[str, bytes]) -> str:
    """Save a portrait's files in a folder of their own; the PNG's storage name."""
    folder = f"{FOLDER}/{uuid.uuid4().hex}"
    for filename, body in files.items():
        default_storage.save(f"{folder}/{filename}", ContentFile(body))
    return f"{folder}/{PNG_NAME}"


def make_portrait(upload: UploadedFile[bytes], crop: CropBox | None = None) -> str:
    """Check, re-encode and store an upload; the stored PNG's name. Raises PortraitError."""
    return store_portrait(render_portrait(read_upload(upload), crop))


def delete_portrait_files(name: str) -> None:
    """Delete a portrait's files; names this module did not write are left alone."""
    path = PurePosixPath(name)
    if path.name != PNG_NAME or path.parts[:1] != (FOLDER,) or ".." in path.parts:
        return
    for filename in (PNG_NAME, *(f"{size}.webp" for size in THUMBNAILS)):
        default_storage.delete(str(path.parent / filename))


def discard_later(name: str) -> None:
    """Delete a portrait's files once the current transaction commits (never on a rollback)."""
    if name:
        transaction.on_commit(lambda: delete_portrait_files(name))


def swap_portrait(instance: models.Model, field: str, name: str, *also: str) -> None:
    """Point ``instance.<field>`` at the portrait ``name`` ("" removes it); the old files go."""
    old = getattr(instance, field).name or ""
    setattr(instance, field, name)
    try:
        with transaction.atomic():
            instance.save(update_fields=[field, *also])
            discard_later(old)
    except Exception:
        if name:
            delete_portrait_files(name)
        raise


def portrait_url(name: str, size: int = 256) -> str:
    """The URL of the thumbnail of ``size`` (64 or 256; any other size: the PNG); "" for none."""
    if not name:
        return ""
    filename = f"{size}.webp" if size in THUMBNAILS else PNG_NAME
    return default_storage.url(str(PurePosixPath(name).parent / filename))


def portrait_png(name: str) -> bytes | None:
    """The portrait's PNG, or None when there is none (or its file has gone)."""
    if not name:
        return None
    try:
        with default_storage.open(name, "rb") as stored:
            data: bytes = stored.read()
    except OSError:
        return None
    return data


# --- what a page shows ----------------------------------------------------------------------


def initials(label: str) -> str:
    """What stands in for a missing picture: "SR" for "Salt Road", "林" for "林黛玉", "?" for ""."""
    words = [word for word in re.split(r"[\s\-_.·]+", label.strip()) if word]
    if not words:
        return "?"
    if unicodedata.east_asian_width(words[0][0]) in ("W", "F"):
        return words[0][0]
    return "".join(word[0] for word in words[:2]).upper()


def face_info(name: str, label: str) -> dict[str, Any]:
    """A face as the templates and the play client draw it: URLs, or initials on a colour."""
    return {
        "name": label,
        "initials": initials(label),
        "hue": zlib.crc32(label.encode("utf-8")) % HUES,
        "icon": portrait_url(name, 64),
        "thumb": portrait_url(name, 256),
    }


# --- worlds and their characters ------------------------------------------------------------


def set_world_portrait(
    world: World, upload: UploadedFile[bytes], crop: CropBox | None = None
) -> World:
    """Make ``upload`` the world's portrait (the old one's files go). Raises PortraitError."""
    swap_portrait(world, "portrait", make_portrait(upload, crop), "updated")
    return world


def clear_world_portrait(world: World) -> World:
    swap_portrait(world, "portrait", "", "updated")
    return world


def world_characters(world: World) -> list[tuple[str, str]]:
    """(id, name) of each player character of the draft's gameMaster block; none without one."""
    block = game_master_data(world) or {}
    characters = block.get("characters") or []
    return [
        (str(c["id"]), str(c.get("name") or c["id"]))
        for c in characters
        if isinstance(c, dict) and c.get("id")
    ]


def character_portraits(world: World) -> dict[str, str]:
    """Character id → stored PNG name, for the characters that have a portrait."""
    rows = CharacterPortrait.objects.filter(world=world)
    return {row.key: row.portrait.name or "" for row in rows}


def set_character_portrait(
    world: World, key: str, upload: UploadedFile[bytes], crop: CropBox | None = None
) -> CharacterPortrait:
    """The portrait of the world's character ``key``; PortraitError for an unknown character."""
    if key not in dict(world_characters(world)):
        raise PortraitError(_("this world has no such character"), field="character")
    name = make_portrait(upload, crop)
    row = CharacterPortrait.objects.filter(world=world, key=key).first()
    if row is None:
        try:
            return CharacterPortrait.objects.create(world=world, key=key, portrait=name)
        except Exception:
            delete_portrait_files(name)
            raise
    swap_portrait(row, "portrait", name)
    return row


def clear_character_portrait(world: World, key: str) -> None:
    row = CharacterPortrait.objects.filter(world=world, key=key).first()
    if row is not None:
        with transaction.atomic():
            row.delete()  # the post_delete receiver below lets its files go


@receiver(post_delete, sender=World)
@receiver(post_delete, sender=CharacterPortrait)
def _forget_files(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A deleted world or character portrait (cascades included) leaves no files behind."""
    discard_later(instance.portrait.name or "")
