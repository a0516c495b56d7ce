"""The Celery app; in embedded mode tasks run eagerly in the calling process.

Celery beat (``make beat``) runs the periodic work of issue 13 §4: the guest-session purge, NPC
memory decay by game day, and the clean-up of evaluations whose workers stopped reporting.
"""

import os

from celery import Celery
from celery.schedules import crontab

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("fabula")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.autodiscover_tasks(["studio.evaluations"])  # studio.evaluations.tasks
app.autodiscover_tasks(["play"], related_name="periodic")  # play.periodic

app.conf.beat_schedule = {
    "purge-guest-sessions": {"task": "play.purge_guests", "schedule": crontab(minute=17)},
    "decay-npc-memories": {"task": "play.decay_npc_memories", "schedule": crontab(minute=47)},
    "clean-stale-evaluations": {
        "task": "studio.evaluations.clean_stale",
        "schedule": crontab(minute="*/10"),
    },
}
