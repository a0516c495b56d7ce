"""The API's OpenAPI document: Swagger UI reads it as YAML, which refuses a repeated key."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.django_db


def test_the_openapi_document_repeats_no_key(client):
    repeated: list[list[str]] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        repeated.extend([key] for key in keys if keys.count(key) > 1)
        return dict(pairs)

    response = client.get("/api/openapi.json")

    assert response.status_code == 200
    document = json.loads(response.content, object_pairs_hook=pairs_hook)
    assert repeated == []
    card = document["paths"]["/api/worlds/{world_id}/export/card"]["get"]["responses"]["200"]
    assert set(card["content"]) == {"application/json", "image/png"}
