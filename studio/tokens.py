"""Personal API tokens for scripts: shown once, stored as a SHA-256 digest, revocable."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.contrib.auth.models import User
from django.utils import timezone

from studio.models import ApiToken

TOKEN_PREFIX = "fab_"


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def create_token(user: User, name: str) -> tuple[ApiToken, str]:
    """Make a token; the returned secret is never stored and cannot be shown again."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name.strip()[:100] or "token", prefix=raw[:12], digest=_digest(raw)
    )
    return token, raw


def revoke_token(token: ApiToken) -> None:
    if token.revoked is None:
        token.revoked = timezone.now()
        token.save(update_fields=["revoked"])


def authenticate_token(raw: str) -> User | None:
    """The active user owning ``raw``, or None for an unknown or revoked token."""
    if not raw.startswith(TOKEN_PREFIX):
        return None
    digest = _digest(raw)
    # Looked up by the digest of the secret, never the secret, so the lookup's timing says
    # nothing about it; the final comparison is constant-time all the same.
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=digest, revoked__isnull=True, user__is_active=True)
        .first()
    )
    if token is None or not hmac.compare_digest(token.digest, digest):
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used=timezone.now())
    return token.user
