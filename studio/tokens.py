"""Personal API tokens for scripts: shown once, stored as a SHA-256 digest, scoped, expiring.

A ``read`` token may only look (GET, HEAD, OPTIONS); a ``write`` token may do what its user can
through the API, except mint more tokens: a leaked token must not be able to outlive its own
revocation or expiry by making a successor.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Literal

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from studio.models import ApiToken

TOKEN_PREFIX = "fab_"
Scope = Literal["read", "write"]
SCOPES: tuple[Scope, ...] = ("read", "write")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LIFETIME_DAYS = (7, 30, 90, 365)
DEFAULT_LIFETIME_DAYS = 30
MINT_REFUSED = "API tokens cannot create tokens; sign in and use the account page."


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def create_token(
    user: User, name: str, *, scope: Scope = "write", days: int = DEFAULT_LIFETIME_DAYS
) -> tuple[ApiToken, str]:
    """Make a token; the returned secret is never stored and cannot be shown again.

    An unknown scope or a lifetime outside 1..365 days raises ValueError.
    """
    if scope not in SCOPES:
        raise ValueError(f"unknown token scope {scope!r}")
    if not 1 <= days <= max(LIFETIME_DAYS):
        raise ValueError(f"a token lives 1 to {max(LIFETIME_DAYS)} days, not {days}")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name.strip()[:100] or "token",
        prefix=raw[:12],
        digest=_digest(raw),
        scope=scope,
        expires=timezone.now() + timedelta(days=days),
    )
    return token, raw


def revoke_token(token: ApiToken) -> None:
    if token.revoked is None:
        token.revoked = timezone.now()
        token.save(update_fields=["revoked"])


def find_token(raw: str) -> ApiToken | None:
    """The live token ``raw`` names (with its user), or None: unknown, revoked, expired."""
    if not raw.startswith(TOKEN_PREFIX):
        return None
    digest = _digest(raw)
    now = timezone.now()
    # Looked up by the digest of the secret, never the secret, so the lookup's timing says
    # nothing about it; the final comparison is constant-time all the same.
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=digest, revoked__isnull=True, expires__gt=now, user__is_active=True)
        .first()
    )
    if token is None or not hmac.compare_digest(token.digest, digest):
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used=now)
    return token


def authenticate_token(raw: str) -> User | None:
    """The active user owning ``raw``, or None for an unknown, revoked or expired token."""
    token = find_token(raw)
    return token.user if token is not None else None


def check_token_scope(token: ApiToken, method: str) -> None:
    """Refuse (PermissionDenied, naming the scope) a method the token's scope does not allow."""
    if token.scope != "write" and method.upper() not in SAFE_METHODS:
        raise PermissionDenied(
            f"this token's scope is '{token.scope}': it may only read (GET); "
            f"{method.upper()} needs a token with the 'write' scope"
        )


def check_can_mint(token: ApiToken | None) -> None:
    """Only a signed-in person makes tokens; a token-authenticated request never does."""
    if token is not None:
        raise PermissionDenied(MINT_REFUSED)
