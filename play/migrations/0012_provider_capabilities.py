"""ProviderSetting.capabilities: what "Test connection" found a server and model to accept of
tool calling (issue 37 §3)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("play", "0011_model_pins"),
    ]

    operations = [
        migrations.AddField(
            model_name="providersetting",
            name="capabilities",
            field=models.JSONField(blank=True, default=dict, editable=False),
        ),
    ]
