from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("play", "0003_session_fencing"),
    ]

    operations = [
        migrations.AddField(
            model_name="session",
            name="character_id",
            field=models.CharField(blank=True, default="", max_length=100),
        ),
        migrations.AddField(
            model_name="message",
            name="source",
            field=models.CharField(
                choices=[("model", "model"), ("engine", "engine")], default="model", max_length=6
            ),
        ),
    ]
