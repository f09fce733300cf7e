"""Verification checkpoints: how far each nightly check has verified (docs/retention.md)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from ledger.models.base import AppendOnlyModel


class CheckpointKind(models.TextChoices):
    LEDGER = "ledger", "Journal rows (hash chains, double entry)"
    HANDS = "hands", "Hands against their postings and fees"
    REPLAY = "replay", "Replay audit of settled hands"


class CheckpointPart(models.TextChoices):
    SINCE = "since", "Rows since the last checkpoint"
    ROTATION = "rotation", "A seventh of history (rotating)"
    FULL = "full", "All rows"


class VerificationCheckpoint(AppendOnlyModel):
    """One verified id range of one kind of row: rows ``first_id..last_id`` were checked at ``at``
    and found ``ok`` (``problems`` counts what was not). For the journal, ``heads`` holds each
    chain's last ``[sequence, hash]`` within the rows verified so far, so the next incremental check
    starts from a verified hash (a row's hash covers the previous one). The nightly job verifies the
    rows after the last ``since`` or ``full`` checkpoint plus a rotating seventh of the older rows
    (``backoffice.reports.integrity.run_nightly_checks``). Append-only (migration 0011's triggers)."""

    kind = models.CharField(max_length=10, choices=CheckpointKind.choices)
    part = models.CharField(max_length=10, choices=CheckpointPart.choices)
    first_id = models.BigIntegerField(help_text="first row id of the range verified")
    last_id = models.BigIntegerField(help_text="last row id of the range verified")
    rows = models.BigIntegerField(default=0, help_text="rows found in the range")
    heads = models.JSONField(default=dict, blank=True, help_text="chain -> [sequence, hash] at the end")
    at = models.DateTimeField(default=timezone.now)
    seconds = models.FloatField(default=0.0)
    ok = models.BooleanField()
    problems = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["kind", "part", "-at"], name="ledger_checkpoint_kind")]

    def __str__(self) -> str:
        return f"{self.kind} {self.part} {self.first_id}..{self.last_id} at {self.at:%Y-%m-%d %H:%M}"
