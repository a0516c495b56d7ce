from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("play", "0009_ui_storage")]

    operations = [
        migrations.AddField(
            model_name="message",
            name="speech",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
