"""API tokens get a scope and an expiry; failed logins are kept for the login throttle.

Tokens made before this migration keep working for 90 days from their creation, with the
``write`` scope they had in effect (they could do everything).
"""

from datetime import timedelta

from django.db import migrations, models
from django.db.models import F

LEGACY_LIFETIME = timedelta(days=90)


def expire_legacy_tokens(apps, schema_editor):
    ApiToken = apps.get_model("studio", "ApiToken")
    ApiToken.objects.update(expires=F("created") + LEGACY_LIFETIME, scope="write")


class Migration(migrations.Migration):
    dependencies = [
        ("studio", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="scope",
            field=models.CharField(
                choices=[("read", "read"), ("write", "write")],
                default="read",
                help_text="read: GET only; write: every method.",
                max_length=5,
            ),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="expires",
            field=models.DateTimeField(null=True),
        ),
        migrations.RunPython(expire_legacy_tokens, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="apitoken",
            name="expires",
            field=models.DateTimeField(),
        ),
        migrations.CreateModel(
            name="LoginFailure",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("username", models.CharField(db_index=True, max_length=150)),
                ("address", models.CharField(blank=True, db_index=True, max_length=45)),
                ("created", models.DateTimeField(db_index=True)),
            ],
        ),
    ]
