"""NUL characters against real PostgreSQL (issue 9 §6): it refuses U+0000 in text and in jsonb,
so each door refuses it first, with a 400 naming the field, and nothing is stored."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import DataError, connection, transaction

from studio.models import Entry, World
from tests.factories import make_user, make_world, world_data

pytestmark = pytest.mark.django_db

NUL = "contains a NUL character (U+0000), which cannot be stored"


@pytest.fixture
def as_alice(client):
    alice = make_user("alice")
    client.force_login(alice)
    return client, make_world(alice)


def test_postgresql_itself_refuses_nul_in_text_and_jsonb():
    assert connection.vendor == "postgresql"
    world = make_world(make_user("bob"))
    with pytest.raises(DataError, match="NUL"), transaction.atomic():
        Entry.objects.create(world=world, key="e", content="a\0b")
    with pytest.raises(DataError), transaction.atomic():
        World.objects.filter(pk=world.pk).update(settings={"playerName": "a\0b"})


@pytest.mark.parametrize(
    ("method", "tail", "body", "field"),
    [
        ("post", "/entries", {"id": "well", "content": "a\0b"}, "content"),
        ("patch", "/settings", {"playerName": "Al\0"}, "playerName"),
        ("put", "/content", world_data(entries=[{"id": "e", "name": "\0"}]), "entries[0].name"),
    ],
)
def test_a_nul_through_the_api_is_a_400_and_nothing_reaches_the_database(
    as_alice, method, tail, body, field
):
    client, world = as_alice
    before = list(Entry.objects.values_list("pk", "content"))

    response = getattr(client, method)(
        f"/api/worlds/{world.pk}{tail}", json.dumps(body), "application/json"
    )

    assert response.status_code == 400
    assert response.json() == {"detail": "bad input", "errors": [f"{field}: {NUL}"]}
    assert list(Entry.objects.values_list("pk", "content")) == before


def test_a_nul_in_an_imported_file_is_a_422_naming_the_field(as_alice):
    client, _world = as_alice
    data = json.dumps(world_data(id="", description="a\0b")).encode()

    response = client.post("/api/worlds/import", {"file": SimpleUploadedFile("w.json", data)})

    assert response.status_code == 422
    assert response.json()["errors"] == [f"description: {NUL}"]
    assert World.objects.count() == 1
