"""Report exports: the files the background jobs build, kept as records of what was handed out."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class ReportKind(models.TextChoices):
    COLLECTION = "collection", "Collection report"
    HAND_HISTORY = "hand_history", "Hand history"
    PLAYER_STATEMENT = "player_statement", "Player statement"
    JOURNAL = "journal", "Ledger journal"
    INTEGRITY = "integrity", "Integrity report"
    DROP_VARIANCE = "drop_variance", "Drop count variance"
    CONFIG_CHANGES = "config_changes", "Configuration change log"
    DEALER_DOWNS = "dealer_downs", "Dealers' downs"


class ExportFormat(models.TextChoices):
    CSV = "csv", "CSV"
    PDF = "pdf", "PDF"


class ExportStatus(models.TextChoices):
    PENDING = "pending", "Queued"
    RUNNING = "running", "Being built"
    DONE = "done", "Ready"
    FAILED = "failed", "Failed"
    EXPIRED = "expired", "Expired (file dropped)"


class ReportExport(models.Model):
    """A report export built in the background (``backoffice.tasks.build_export``): what was asked
    (``kind``, ``format``, ``params`` = the report's filters), by whom, and once ``done`` the file's
    sha256 and size; the file is on disk (``backoffice.exports.export_path``, ``content`` empty),
    or for an export built before files moved there, in ``content``. Never deleted (the database
    refuses it): after ``settings.EXPORT_RETENTION_DAYS`` the file is dropped (``content`` null,
    ``expired``) and the row, with the file's sha256 and size, stays
    (``backoffice.exports.purge_expired_exports``)."""

    kind = models.CharField(max_length=20, choices=ReportKind.choices)
    format = models.CharField(max_length=4, choices=ExportFormat.choices)
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=ExportStatus.choices, default=ExportStatus.PENDING)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    requested_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    filename = models.CharField(max_length=200, blank=True, default="")
    content = models.BinaryField(null=True, blank=True)
    sha256 = models.CharField(max_length=64, blank=True, default="")
    size = models.BigIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    software_version = models.CharField(max_length=100, blank=True, default="")

    class Meta:
        ordering = ["-requested_at", "-pk"]
        constraints = [
            models.CheckConstraint(name="ledger_export_kind_valid", condition=Q(kind__in=ReportKind.values)),
            models.CheckConstraint(
                name="ledger_export_format_valid", condition=Q(format__in=ExportFormat.values)
            ),
            models.CheckConstraint(
                name="ledger_export_done_has_file",
                condition=~Q(status=ExportStatus.DONE) | (Q(content__isnull=False) & ~Q(sha256="")),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.format}) export {self.pk}: {self.status}"

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("report exports are kept; they are never deleted")
