"""The Celery app; in embedded mode tasks run eagerly in the calling process."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("fabula")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
