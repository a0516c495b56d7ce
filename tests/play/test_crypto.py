"""API keys at rest (play.crypto)."""

from __future__ import annotations

from play.crypto import decrypt_secret, encrypt_secret, mask_secret


def test_it_round_trips_and_never_stores_the_plain_key(settings):
    token = encrypt_secret("sk-live-1234567890")
    assert "sk-live" not in token
    assert decrypt_secret(token) == "sk-live-1234567890"


def test_another_secret_cannot_read_the_key(settings):
    token = encrypt_secret("sk-live-1234567890")
    settings.FABULA_KEY_ENCRYPTION_SECRET = "rotated"
    assert decrypt_secret(token) == ""
    assert decrypt_secret("garbage") == ""


def test_the_hint_shows_only_the_ends():
    assert mask_secret("sk-ant-api03-abcdef9f3a") == "sk-…9f3a"
    assert mask_secret("short") == "…rt"
    assert mask_secret("") == ""
    assert encrypt_secret("") == ""
