"""Account rows of the studio: personal API tokens and failed logins (for the login throttle).

They belong to users, not to worlds, so they sit apart from the world's rows; Django registers
them under the ``studio`` app because ``studio.models`` imports them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ApiToken(models.Model):
    """A personal API token; only its SHA-256 is stored, the secret is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(
        max_length=12, help_text="The first characters, to tell tokens apart."
    )
    digest = models.CharField(max_length=64, unique=True)
    scope = models.CharField(
        max_length=5,
        choices=[("read", "read"), ("write", "write")],
        default="read",
        help_text="read: GET only; write: every method.",
    )
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked is None and not self.is_expired

    @property
    def is_expired(self) -> bool:
        return self.expires <= timezone.now()


class LoginFailure(models.Model):
    """One failed login; a few recent ones lock the account name, or the address, for a while."""

    username = models.CharField(max_length=150, db_index=True)
    address = models.CharField(max_length=45, blank=True, db_index=True)
    created = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.username} from {self.address or '?'} at {self.created}"
