"""A published version's opt-in to being exported and forked with its game master's secrets
(issue 32): off for every version already published, so none of them changes hands."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("studio", "0008_gallery_search_vector"),
    ]

    operations = [
        migrations.AddField(
            model_name="worldversion",
            name="remixable_secrets",
            field=models.BooleanField(default=False),
        ),
    ]
