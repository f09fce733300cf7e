"""The configuration history: one append-only :class:`ConfigChange` row per change to games,
stakes, tables or schedules (written by :func:`tables.history.record_change`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone


class ConfigAction(models.TextChoices):
    CREATE = "create", "Created"
    UPDATE = "update", "Changed"
    OPEN = "open", "Opened"
    CLOSE = "close", "Closed"
    NEW_VERSION = "new_version", "New schedule version"
    DELETE = "delete", "Deleted"


class AppendOnlyQuerySet(models.QuerySet["ConfigChange"]):
    """Bulk update and delete are refused: history is append-only."""

    def update(self, **kwargs: Any) -> int:
        raise TypeError("ConfigChange rows are append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError("ConfigChange rows are append-only")


class ConfigChange(models.Model):
    """One change to the configuration (games, stakes, tables, schedules): who, when, what, why.

    Written by :mod:`tables.services` (and the admin) in the same transaction as the change;
    ``before``/``after`` are JSON snapshots (None for a creation/deletion). Append-only.
    """

    at = models.DateTimeField(default=timezone.now, db_index=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    by_username = models.CharField(max_length=150, blank=True, help_text="Kept as it was at the time.")
    action = models.CharField(max_length=20, choices=ConfigAction)
    content_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    object_id = models.CharField(max_length=64)
    object_repr = models.CharField(max_length=200)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    reason = models.TextField(blank=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ("-at", "-id")
        indexes = (models.Index(fields=("content_type", "object_id"), name="configchange_object_idx"),)

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.by_username or 'system'} {self.action} {self.object_repr}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError("ConfigChange rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("ConfigChange rows are append-only")
