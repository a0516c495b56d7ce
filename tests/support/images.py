"""Images for the portrait and avatar tests: drawn with Pillow, small, with known pixels."""

from __future__ import annotations

import functools
import io
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

BLUE = (0, 0, 255)
RED = (255, 0, 0)


def halves(width: int = 300, height: int = 200) -> Image.Image:
    """Blue on the left third, red elsewhere: a crop shows which part it kept."""
    image = Image.new("RGB", (width, height), RED)
    image.paste(BLUE, (0, 0, width // 3, height))
    return image


def image_bytes(image: Image.Image | None = None, kind: str = "PNG", **options: Any) -> bytes:
    out = io.BytesIO()
    (image or halves()).save(out, kind, **options)
    return out.getvalue()


def image_upload(
    data: bytes | None = None, name: str = "face.png", content_type: str = "image/png"
) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, image_bytes() if data is None else data, content_type)


@functools.cache
def bomb_png(side: int = 10_000) -> bytes:
    """A PNG of side × side one-bit pixels: a few kilobytes that decode to 100 megapixels."""
    return image_bytes(Image.new("1", (side, side)), "PNG")


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image
