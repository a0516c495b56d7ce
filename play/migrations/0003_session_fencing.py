from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("play", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="session",
            name="turn_owner",
            field=models.CharField(blank=True, default="", editable=False, max_length=255),
        ),
        migrations.AddField(
            model_name="session",
            name="turn_heartbeat",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="session",
            name="turn_version",
            field=models.PositiveBigIntegerField(default=0, editable=False),
        ),
    ]
