"""studio.tokens: shown once, stored hashed, scoped, expiring, revocable."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from studio.models import ApiToken
from studio.tokens import (
    authenticate_token,
    check_can_mint,
    check_token_scope,
    create_token,
    revoke_token,
)


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


# --- scope and expiry ------------------------------------------------------------------------


def test_a_token_has_a_scope_and_an_expiry(alice):
    before = timezone.now()
    token, _ = create_token(alice, "reader", scope="read", days=7)
    assert token.scope == "read"
    assert before + timedelta(days=7) <= token.expires <= timezone.now() + timedelta(days=7)
    assert token.is_active and not token.is_expired


def test_an_expired_token_fails(alice):
    token, raw = create_token(alice, "old", days=1)
    ApiToken.objects.filter(pk=token.pk).update(expires=timezone.now() - timedelta(seconds=1))
    assert authenticate_token(raw) is None
    token.refresh_from_db()
    assert token.is_expired and not token.is_active
    assert token.last_used is None


@pytest.mark.parametrize(
    ("scope", "days", "error"),
    [
        ("admin", 30, "unknown token scope 'admin'"),
        ("read", 0, "a token lives 1 to 365 days, not 0"),
        ("write", 366, "a token lives 1 to 365 days, not 366"),
    ],
)
def test_create_token_refuses_an_unknown_scope_or_lifetime(alice, scope, days, error):
    with pytest.raises(ValueError, match=error):
        create_token(alice, "x", scope=scope, days=days)
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "post"])
def test_a_read_token_may_not_use_an_unsafe_method(alice, method):
    token, _ = create_token(alice, "reader", scope="read")
    with pytest.raises(PermissionDenied) as refused:
        check_token_scope(token, method)
    assert str(refused.value) == (
        f"this token's scope is 'read': it may only read (GET); "
        f"{method.upper()} needs a token with the 'write' scope"
    )


def test_a_read_token_may_read_and_a_write_token_may_do_anything(alice):
    reader, _ = create_token(alice, "reader", scope="read")
    writer, _ = create_token(alice, "writer", scope="write")
    for method in ("GET", "HEAD", "OPTIONS"):
        check_token_scope(reader, method)
    for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        check_token_scope(writer, method)


def test_no_token_may_mint_another(alice):
    writer, _ = create_token(alice, "writer", scope="write")
    with pytest.raises(PermissionDenied, match="API tokens cannot create tokens"):
        check_can_mint(writer)
    check_can_mint(None)  # a signed-in person may
