"""API keys at rest: Fernet with keys derived from settings.FABULA_KEY_ENCRYPTION_SECRET.

Rotation: the current secret encrypts; FABULA_KEY_ENCRYPTION_OLD_SECRETS still decrypt, so a new
secret can go live before the stored keys move to it (``manage.py reencrypt_keys``). A key no
configured secret can read gives ""; the user is asked for it again, rather than the site failing.
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


def _fernet() -> MultiFernet:
    current = str(settings.FABULA_KEY_ENCRYPTION_SECRET)
    old = [str(secret) for secret in getattr(settings, "FABULA_KEY_ENCRYPTION_OLD_SECRETS", [])]
    return MultiFernet([_key(secret) for secret in [current, *old] if secret])


def _key(secret: str) -> Fernet:
    digest = hashlib.sha256(b"fabula-provider-key:" + secret.encode()).digest()
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


def reencrypt_secret(token: str) -> str | None:
    """``token`` encrypted with the current secret; None when no configured secret reads it."""
    if not token:
        return token
    try:
        return _fernet().rotate(token.encode()).decode()
    except (InvalidToken, ValueError):
        return None


def mask_secret(plain: str) -> str:
    """A hint that tells keys apart without revealing them: ``sk-…9f3a``."""
    if not plain:
        return ""
    if len(plain) <= 8:
        return "…" + plain[-2:]
    prefix = plain[:3] if plain[:3].isascii() else ""
    return f"{prefix}…{plain[-4:]}"
