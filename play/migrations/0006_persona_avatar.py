from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("play", "0005_message_tools"),
    ]

    operations = [
        migrations.AddField(
            model_name="persona",
            name="avatar",
            field=models.FileField(blank=True, default="", max_length=300, upload_to="portraits/"),
        ),
    ]
