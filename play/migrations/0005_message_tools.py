from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("play", "0004_session_character"),
    ]

    operations = [
        migrations.AddField(
            model_name="message",
            name="tools",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
