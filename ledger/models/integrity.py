"""Stored integrity checks: each run of the ledger's verification or of the replay audit."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from ledger.models.base import AppendOnlyModel


class CheckSource(models.TextChoices):
    NIGHTLY = "nightly", "Nightly job"
    MANUAL = "manual", "Run by a user"


class IntegrityScope(models.TextChoices):
    LEDGER = "ledger", "Ledger and books"
    REPLAY = "replay", "Replay audit"


class IntegrityCheck(AppendOnlyModel):
    """One stored run of ``verify_ledger`` plus the database-guard check (the nightly job's result).

    ``ok`` is False when the ledger failed any check or a guard is missing or let an edit through;
    ``ledger.selectors.latest_integrity_failure()`` reads the latest row of each ``scope`` for the
    floor overview. ``anchors`` is the signed list of chain heads the check saw
    (``ledger.anchors``), published in its report so that a later check can compare."""

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    source = models.CharField(max_length=10, choices=CheckSource.choices, default=CheckSource.NIGHTLY)
    scope = models.CharField(max_length=10, choices=IntegrityScope.choices, default=IntegrityScope.LEDGER)
    triggered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    ok = models.BooleanField()
    transactions = models.BigIntegerField(default=0)
    entries = models.BigIntegerField(default=0)
    accounts = models.BigIntegerField(default=0)
    chains = models.BigIntegerField(default=0)
    problems = models.JSONField(default=list)
    guards = models.JSONField(default=list)
    anchors = models.JSONField(default=dict, blank=True, help_text="Signed chain heads the check saw.")
    software_version = models.CharField(max_length=100)

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [
            models.Index(fields=["-started_at"], name="ledger_integrity_started"),
            models.Index(fields=["scope", "-started_at"], name="ledger_integrity_scope"),
        ]

    def __str__(self) -> str:
        return (
            f"integrity check {self.pk} at {self.started_at:%Y-%m-%d %H:%M}: {'OK' if self.ok else 'FAILED'}"
        )
