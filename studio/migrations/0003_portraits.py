import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("studio", "0002_token_scope"),
    ]

    operations = [
        migrations.AddField(
            model_name="world",
            name="portrait",
            field=models.FileField(blank=True, default="", max_length=300, upload_to="portraits/"),
        ),
        migrations.CreateModel(
            name="CharacterPortrait",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "key",
                    models.CharField(help_text="The character's id in gameMaster.", max_length=100),
                ),
                ("portrait", models.FileField(max_length=300, upload_to="portraits/")),
                (
                    "world",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="character_portraits",
                        to="studio.world",
                    ),
                ),
            ],
            options={
                "ordering": ["world", "key"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("world", "key"), name="characterportrait_unique_key"
                    )
                ],
            },
        ),
    ]
