"""API keys at rest: Fernet with a key derived from settings.FABULA_KEY_ENCRYPTION_SECRET.

Rotating the secret makes stored keys unreadable; ``decrypt_secret`` then returns "" and the user
is asked for the key again, rather than the site failing.
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


def _fernet() -> Fernet:
    secret = str(settings.FABULA_KEY_ENCRYPTION_SECRET).encode()
    digest = hashlib.sha256(b"fabula-provider-key:" + secret).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def encrypt_secret(plain: str) -> str:
    """Encrypt ``plain`` for storage; the empty string stays empty."""
    if not plain:
        return ""
    return _fernet().encrypt(plain.encode()).decode()


def decrypt_secret(token: str) -> str:
    """Decrypt a stored secret; a token from another secret (or garbage) gives ""."""
    if not token:
        return ""
    try:
        return _fernet().decrypt(token.encode()).decode()
    except (InvalidToken, ValueError):
        return ""


def mask_secret(plain: str) -> str:
    """A hint that tells keys apart without revealing them: ``sk-…9f3a``."""
    if not plain:
        return ""
    if len(plain) <= 8:
        return "…" + plain[-2:]
    prefix = plain[:3] if plain[:3].isascii() else ""
    return f"{prefix}…{plain[-4:]}"
