import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("play", "0006_persona_avatar"),
        ("studio", "0002_token_scope"),
    ]

    operations = [
        migrations.CreateModel(
            name="WorldDemo",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("title", models.CharField(blank=True, default="", max_length=200)),
                ("data", models.JSONField()),
                ("published_at", models.DateTimeField()),
                (
                    "world",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="demo",
                        to="studio.world",
                    ),
                ),
            ],
        ),
    ]
