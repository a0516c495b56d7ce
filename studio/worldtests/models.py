"""The rows of world tests (issue 13 §3; the format is ``engine.worldtests``).

``WorldTest`` is one test of a world draft, in the creator's order; its JSON is exactly one
entry of a suite's ``tests``. ``WorldTestRun`` is one run on Celery: it freezes the world and
the tests as they were when the creator pressed "Run tests", so a run reports on what was asked
even if the draft changes meanwhile, and a task delivered twice finds it already finished.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

RUN_STATUSES = ("queued", "running", "passed", "failed", "error")
RUN_FINAL = ("passed", "failed", "error")


class WorldTest(models.Model):
    world = models.ForeignKey("studio.World", models.CASCADE, related_name="world_tests")
    position = models.PositiveIntegerField(default=0)
    name = models.CharField(max_length=200)
    definition = models.JSONField(default=dict, help_text="The test's JSON, name included.")
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["world", "position", "pk"]

    def __str__(self) -> str:
        return self.name

    @property
    def step_count(self) -> int:
        steps: Any = self.definition.get("steps")
        return len(steps) if isinstance(steps, list) else 0


class WorldTestRun(models.Model):
    world = models.ForeignKey("studio.World", models.CASCADE, related_name="world_test_runs")
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, blank=True, related_name="+"
    )
    status = models.CharField(
        max_length=7, choices=[(s, s) for s in RUN_STATUSES], default="queued"
    )
    definition = models.JSONField(help_text="The world's JSON when the run was asked for.")
    suite = models.JSONField(help_text="The tests when the run was asked for.")
    results = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"test run {self.pk} of world {self.world_id}: {self.status}"

    @property
    def is_final(self) -> bool:
        return self.status in RUN_FINAL

    @property
    def tests(self) -> list[dict[str, Any]]:
        """Each test's result (``engine.worldtests.TestResult`` as JSON)."""
        tests = self.results.get("tests") if isinstance(self.results, dict) else None
        return [t for t in tests if isinstance(t, dict)] if isinstance(tests, list) else []

    @property
    def passed_count(self) -> int:
        return sum(t.get("status") == "passed" for t in self.tests)
