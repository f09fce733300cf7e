"""The access-change log: users, groups and permissions changed, from wherever."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from ledger.models.base import AppendOnlyModel


class AuthChangeAction(models.TextChoices):
    USER_CREATED = "user_created", "User created"
    USER_CHANGED = "user_changed", "User changed"
    GROUPS_ADDED = "groups_added", "Added to groups"
    GROUPS_REMOVED = "groups_removed", "Removed from groups"
    PERMISSIONS_ADDED = "permissions_added", "Permissions granted"
    PERMISSIONS_REMOVED = "permissions_removed", "Permissions withdrawn"
    GROUP_CREATED = "group_created", "Group created"


class AuthChange(AppendOnlyModel):
    """A change to users, groups or permissions, recorded by signals (``ledger.signals``) from
    wherever it was made (admin, shell, role sync). Who made it is not known to a signal; the
    configuration change log adds the admin's own log entries, which name the user."""

    at = models.DateTimeField(default=timezone.now, db_index=True)
    action = models.CharField(max_length=30, choices=AuthChangeAction.choices)
    subject_type = models.CharField(max_length=10, help_text="user or group")
    subject_id = models.BigIntegerField()
    subject_repr = models.CharField(max_length=200)
    detail = models.JSONField(default=dict)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.subject_repr}"
