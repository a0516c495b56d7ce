"""studio.tokens: shown once, stored hashed, revocable."""

from __future__ import annotations

import hashlib

from studio.models import ApiToken
from studio.tokens import authenticate_token, create_token, revoke_token


def test_a_token_is_stored_only_as_its_digest(alice):
    token, raw = create_token(alice, "ci")
    assert raw.startswith("fab_")
    assert token.digest == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in str(ApiToken.objects.values_list().get())
    assert token.prefix == raw[:12]


def test_a_token_authenticates_its_user_and_records_use(alice):
    token, raw = create_token(alice, "ci")
    assert authenticate_token(raw) == alice
    token.refresh_from_db()
    assert token.last_used is not None


def test_a_revoked_or_unknown_token_fails(alice):
    token, raw = create_token(alice, "ci")
    revoke_token(token)
    assert authenticate_token(raw) is None
    assert authenticate_token("fab_not-a-token") is None
    assert authenticate_token("something-else") is None


def test_an_inactive_users_token_fails(alice):
    _, raw = create_token(alice, "ci")
    alice.is_active = False
    alice.save()
    assert authenticate_token(raw) is None
