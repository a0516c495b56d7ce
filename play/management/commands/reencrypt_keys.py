"""``manage.py reencrypt_keys``: move every stored API key to the current encryption secret.

Run it after rotating FABULA_KEY_ENCRYPTION_SECRET (the old value listed in
FABULA_KEY_ENCRYPTION_OLD_SECRETS); once it reports no unreadable key, the old value can go.
A key none of the configured secrets reads is left as it is, so adding the missing old secret and
running the command again still saves it.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from play.crypto import reencrypt_secret
from play.models import ProviderSetting


class Command(BaseCommand):
    help = "Re-encrypt users' stored API keys with FABULA_KEY_ENCRYPTION_SECRET."

    def handle(self, *args: Any, **options: Any) -> None:
        moved = unreadable = 0
        with transaction.atomic():
            rows = ProviderSetting.objects.select_for_update().exclude(api_key_encrypted="")
            for row in rows.only("pk", "api_key_encrypted"):
                token = reencrypt_secret(row.api_key_encrypted)
                if token is None:
                    unreadable += 1
                    continue
                ProviderSetting.objects.filter(pk=row.pk).update(api_key_encrypted=token)
                moved += 1
        self.stdout.write(f"{moved} key(s) re-encrypted, {unreadable} unreadable (left as is)")
        if unreadable:
            self.stderr.write(
                "Some keys match no configured secret: add the secret they were encrypted "
                "with to FABULA_KEY_ENCRYPTION_OLD_SECRETS and run this again."
            )
