"""API auth: session with CSRF for the browser, Bearer tokens for scripts."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from studio.models import ApiToken, World
from studio.tokens import create_token, revoke_token
from tests.factories import make_token, world_data


@pytest.fixture
def csrf_client():
    return Client(enforce_csrf_checks=True)


def bearer(token):
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def test_a_token_authenticates_reads_and_writes(client, alice, world):
    token = make_token(alice)
    assert client.get("/api/worlds", **bearer(token)).json()[0]["id"] == world.pk
    response = client.post("/api/worlds", {"name": "Scripted"}, "application/json", **bearer(token))
    assert response.status_code == 201


def test_tokens_do_not_need_csrf(csrf_client, alice):
    token = make_token(alice)
    response = csrf_client.post(
        "/api/worlds", {"name": "Scripted"}, "application/json", **bearer(token)
    )
    assert response.status_code == 201


def test_a_revoked_token_fails(client, alice, world):
    token, raw = create_token(alice, "ci")
    revoke_token(token)
    response = client.get("/api/worlds", **bearer(raw))
    assert response.status_code == 401


def test_a_wrong_token_fails(client, alice):
    assert client.get("/api/worlds", **bearer("fab_wrong")).status_code == 401
    assert client.get("/api/worlds", HTTP_AUTHORIZATION="Basic abc").status_code == 401


def test_a_token_sees_only_its_users_worlds(client, charlie, world):
    token = make_token(charlie)
    assert client.get(f"/api/worlds/{world.pk}", **bearer(token)).status_code == 404


def test_session_writes_need_the_csrf_token(csrf_client, alice):
    csrf_client.force_login(alice)
    refused = csrf_client.post("/api/worlds", {"name": "No token"}, "application/json")
    assert refused.status_code == 403
    assert refused.json() == {"detail": "CSRF check Failed", "errors": []}
    assert World.objects.count() == 0
    assert csrf_client.get("/api/worlds").status_code == 200


def test_session_writes_with_the_csrf_token_work(csrf_client, alice):
    csrf_client.force_login(alice)
    csrf_client.get("/api/worlds")
    from django.middleware.csrf import _get_new_csrf_string, _mask_cipher_secret

    secret = _get_new_csrf_string()
    csrf_client.cookies["csrftoken"] = secret
    response = csrf_client.post(
        "/api/worlds/import",
        world_data(),
        "application/json",
        HTTP_X_CSRFTOKEN=_mask_cipher_secret(secret),
    )
    assert response.status_code == 201


def test_anonymous_writes_get_401_not_a_csrf_error(csrf_client, db):
    response = csrf_client.post("/api/worlds", {"name": "x"}, "application/json")
    assert response.status_code == 401


# --- managing tokens -------------------------------------------------------------------------


def test_create_list_and_revoke_tokens(client, alice):
    client.force_login(alice)
    created = client.post("/api/tokens", {"name": "laptop"}, "application/json")
    assert created.status_code == 201
    body = created.json()
    assert body["token"].startswith("fab_")
    listed = client.get("/api/tokens").json()
    assert [t["name"] for t in listed] == ["laptop"]
    assert "token" not in listed[0]
    assert client.delete(f"/api/tokens/{body['id']}").status_code == 204
    assert ApiToken.objects.get().revoked is not None
    client.logout()
    assert client.get("/api/worlds", **bearer(body["token"])).status_code == 401


def test_token_name_is_required(client, alice):
    client.force_login(alice)
    response = client.post("/api/tokens", {"name": ""}, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ["name: string should have at least 1 character"]


def test_others_tokens_are_404(client, alice, bob):
    token, _ = create_token(alice, "mine")
    client.force_login(bob)
    assert client.delete(f"/api/tokens/{token.pk}").status_code == 404
    assert client.get("/api/tokens").json() == []


def test_tokens_need_auth(client, db):
    assert client.get("/api/tokens").status_code == 401


def test_openapi_schema_and_docs_are_served(client, db):
    schema = client.get("/api/openapi.json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/worlds/{world_id}/entries/{pk}" in paths
    assert schema.json()["components"]["securitySchemes"] == {
        "TokenAuth": {"type": "http", "scheme": "bearer"},
        "BrowserSessionAuth": {"type": "apiKey", "in": "cookie", "name": "sessionid"},
    }
    assert client.get("/api/docs").status_code == 200


# --- token scope, expiry, minting ------------------------------------------------------------


def read_token(user) -> str:
    return create_token(user, "reader", scope="read")[1]


def test_a_read_token_reads(client, alice, world):
    assert client.get("/api/worlds", **bearer(read_token(alice))).json()[0]["id"] == world.pk


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/worlds"),
        ("put", "/api/worlds/{pk}/content"),
        ("patch", "/api/worlds/{pk}"),
        ("delete", "/api/worlds/{pk}"),
    ],
)
def test_a_read_token_cannot_write_and_the_403_names_the_scope(client, alice, world, method, path):
    token = read_token(alice)
    call = getattr(client, method)
    response = call(
        path.format(pk=world.pk), {"name": "Hijacked"}, "application/json", **bearer(token)
    )
    assert response.status_code == 403
    assert response.json() == {
        "detail": (
            f"this token's scope is 'read': it may only read (GET); "
            f"{method.upper()} needs a token with the 'write' scope"
        ),
        "errors": [],
    }
    world.refresh_from_db()
    assert world.name == "The Salt Road"
    assert World.objects.count() == 1


def test_a_token_cannot_mint_tokens(client, alice):
    writer = make_token(alice)
    response = client.post(
        "/api/tokens", {"name": "successor", "scope": "write"}, "application/json", **bearer(writer)
    )
    assert response.status_code == 403
    assert response.json() == {
        "detail": "API tokens cannot create tokens; sign in and use the account page.",
        "errors": [],
    }
    assert ApiToken.objects.count() == 1


def test_an_expired_token_gets_401(client, alice):
    token, raw = create_token(alice, "old", scope="write", days=1)
    ApiToken.objects.filter(pk=token.pk).update(expires=timezone.now() - timedelta(minutes=1))
    assert client.get("/api/worlds", **bearer(raw)).status_code == 401


def test_a_new_api_token_takes_a_scope_and_an_expiry(client, alice):
    client.force_login(alice)
    before = timezone.now()
    body = client.post(
        "/api/tokens", {"name": "ci", "scope": "write", "expires_in_days": 7}, "application/json"
    ).json()
    assert body["scope"] == "write"
    expires = datetime.fromisoformat(body["expires"])
    assert before + timedelta(days=7) <= expires <= timezone.now() + timedelta(days=7)
    assert client.get("/api/tokens").json()[0]["scope"] == "write"


def test_a_new_api_token_is_read_only_for_30_days_unless_asked(client, alice):
    client.force_login(alice)
    body = client.post("/api/tokens", {"name": "ci"}, "application/json").json()
    assert body["scope"] == "read"
    token = ApiToken.objects.get()
    assert token.expires - token.created == pytest.approx(
        timedelta(days=30), abs=timedelta(seconds=5)
    )
    client.logout()
    refused = client.post("/api/worlds", {"name": "x"}, "application/json", **bearer(body["token"]))
    assert refused.status_code == 403


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        ({"scope": "admin"}, "scope: input should be 'read' or 'write'"),
        ({"expires_in_days": 0}, "expires_in_days: input should be greater than or equal to 1"),
        ({"expires_in_days": 366}, "expires_in_days: input should be less than or equal to 365"),
    ],
)
def test_a_new_api_token_refuses_a_bad_scope_or_lifetime(client, alice, payload, error):
    client.force_login(alice)
    response = client.post("/api/tokens", {"name": "ci", **payload}, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == [error]
    assert not ApiToken.objects.exists()
