import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("studio", "0003_portraits"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="WorldTest",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("position", models.PositiveIntegerField(default=0)),
                ("name", models.CharField(max_length=200)),
                (
                    "definition",
                    models.JSONField(default=dict, help_text="The test's JSON, name included."),
                ),
                ("updated", models.DateTimeField(auto_now=True)),
                (
                    "world",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="world_tests",
                        to="studio.world",
                    ),
                ),
            ],
            options={"ordering": ["world", "position", "pk"]},
        ),
        migrations.CreateModel(
            name="WorldTestRun",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "queued"),
                            ("running", "running"),
                            ("passed", "passed"),
                            ("failed", "failed"),
                            ("error", "error"),
                        ],
                        default="queued",
                        max_length=7,
                    ),
                ),
                (
                    "definition",
                    models.JSONField(help_text="The world's JSON when the run was asked for."),
                ),
                ("suite", models.JSONField(help_text="The tests when the run was asked for.")),
                ("results", models.JSONField(blank=True, default=dict)),
                ("error", models.TextField(blank=True, default="")),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("finished", models.DateTimeField(blank=True, null=True)),
                (
                    "started_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "world",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="world_test_runs",
                        to="studio.world",
                    ),
                ),
            ],
            options={"ordering": ["-created", "-pk"]},
        ),
    ]
