"""API keys at rest (play.crypto)."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from play.crypto import decrypt_secret, encrypt_secret, mask_secret, reencrypt_secret
from play.models import ProviderSetting


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


# --- rotation -----------------------------------------------------------------------------


def test_after_a_rotation_old_keys_still_decrypt_and_new_ones_use_the_new_secret(settings):
    settings.FABULA_KEY_ENCRYPTION_SECRET = "first"
    old = encrypt_secret("sk-old-key")
    settings.FABULA_KEY_ENCRYPTION_SECRET = "second"
    settings.FABULA_KEY_ENCRYPTION_OLD_SECRETS = ["first"]
    assert decrypt_secret(old) == "sk-old-key"
    new = encrypt_secret("sk-new-key")
    settings.FABULA_KEY_ENCRYPTION_OLD_SECRETS = []
    assert decrypt_secret(new) == "sk-new-key"  # the current secret alone reads it
    assert decrypt_secret(old) == ""  # once the old secret is gone, so is what only it read


def test_reencrypting_moves_a_key_to_the_current_secret(settings):
    settings.FABULA_KEY_ENCRYPTION_SECRET = "first"
    old = encrypt_secret("sk-old-key")
    settings.FABULA_KEY_ENCRYPTION_SECRET = "second"
    settings.FABULA_KEY_ENCRYPTION_OLD_SECRETS = ["first"]
    moved = reencrypt_secret(old)
    settings.FABULA_KEY_ENCRYPTION_OLD_SECRETS = []
    assert moved and decrypt_secret(moved) == "sk-old-key"
    assert reencrypt_secret(old) is None  # no configured secret reads it: left alone
    assert reencrypt_secret("") == ""


def test_the_reencrypt_command_moves_every_stored_key(settings, alice, bob, charlie):
    settings.FABULA_KEY_ENCRYPTION_SECRET = "first"
    kept = {alice: "sk-alice-key", bob: "sk-bob-key"}
    for user, key in kept.items():
        ProviderSetting.objects.create(user=user, api_key_encrypted=encrypt_secret(key))
    settings.FABULA_KEY_ENCRYPTION_SECRET = "lost"
    ProviderSetting.objects.create(user=charlie, api_key_encrypted=encrypt_secret("sk-lost"))
    settings.FABULA_KEY_ENCRYPTION_SECRET = "second"
    settings.FABULA_KEY_ENCRYPTION_OLD_SECRETS = ["first"]
    out, err = StringIO(), StringIO()
    call_command("reencrypt_keys", stdout=out, stderr=err)
    assert "2 key(s) re-encrypted, 1 unreadable" in out.getvalue()
    assert "FABULA_KEY_ENCRYPTION_OLD_SECRETS" in err.getvalue()
    settings.FABULA_KEY_ENCRYPTION_OLD_SECRETS = []
    for user, key in kept.items():
        assert decrypt_secret(ProviderSetting.objects.get(user=user).api_key_encrypted) == key
    settings.FABULA_KEY_ENCRYPTION_OLD_SECRETS = ["lost"]  # the forgotten secret, found again
    assert decrypt_secret(ProviderSetting.objects.get(user=charlie).api_key_encrypted) == "sk-lost"
