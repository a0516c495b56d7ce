"""Uploaded audio: checked by size and by magic bytes, never by the name or the client's type."""

from __future__ import annotations

import hashlib
import uuid

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext

from engine.world import WorldValidationError
from studio.models import Asset, World

AUDIO_TYPES = "WAV, MP3, OGG, FLAC or M4A"


def sniff_audio(head: bytes) -> str | None:
    """The MIME type of an audio file from its first bytes, or None when it is not audio."""
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio/wav"
    if head[:4] == b"OggS":
        return "audio/ogg"
    if head[:4] == b"fLaC":
        return "audio/flac"
    if head[:3] == b"ID3" or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    if head[4:8] == b"ftyp" and head[8:11] in (b"M4A", b"M4B", b"mp4", b"iso", b"dash"):
        return "audio/mp4"
    return None


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):g} MB"


def store_audio_asset(world: World, upload: UploadedFile[bytes]) -> Asset:
    """Save an uploaded audio file for ``world``; referenced as ``asset.ref`` (``@asset:<uid>``).

    A file that is too large or not WAV/MP3/OGG/FLAC/M4A raises WorldValidationError on ``file``.
    """
    limit = settings.MAX_AUDIO_BYTES
    size = upload.size or 0
    if size > limit:
        message = gettext("is larger than the %(size)s limit") % {"size": _mb(limit)}
        raise WorldValidationError([f"file: {message}"])
    upload.seek(0)
    head = upload.read(16)
    content_type = sniff_audio(head)
    if content_type is None:
        message = gettext("not an audio file (%(types)s expected)") % {"types": AUDIO_TYPES}
        raise WorldValidationError([f"file: {message}"])
    upload.seek(0)
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    name = (upload.name or "audio").rsplit("/", 1)[-1][:255]
    asset = Asset(
        world=world,
        original_name=name,
        content_type=content_type,
        size=size,
        sha256=digest.hexdigest(),
    )
    asset.file.save(name, upload, save=False)
    asset.save()
    return asset


# A track's url is creator text; only these may reach an ``src`` (no javascript:, data:…).
SAFE_URL_PREFIXES = ("https://", "http://", "/")


def resolve_asset_url(ref: str) -> str:
    """The URL a browser fetches for ``@asset:<uid>``; http(s) and site paths pass through.

    Anything else (``javascript:``, ``data:``, an unknown asset) gives "".
    """
    if not ref.startswith("@asset:"):
        return ref if ref.lower().startswith(SAFE_URL_PREFIXES) else ""
    try:
        uid = uuid.UUID(ref.removeprefix("@asset:"))
    except ValueError:
        return ""
    asset = Asset.objects.filter(uid=uid).first()
    return asset.file.url if asset else ""
