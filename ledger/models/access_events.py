"""The access log: every way in, on record (docs/security.md)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from ledger.models.base import AppendOnlyModel


class AccessEventKind(models.TextChoices):
    LOGIN = "login", "Logged in"
    LOGIN_FAILED = "login_failed", "Login failed"
    LOCKED_OUT = "locked_out", "Locked out"
    LOGOUT = "logout", "Logged out"
    SESSION_EXPIRED = "session_expired", "Session ended after inactivity"
    PASSWORD_CHANGED = "password_changed", "Password set or changed"


class AccessEvent(AppendOnlyModel):
    """A login, a failed login, a lock-out, a logout, an idle session ended or a password set, with the
    client's address (``casino.core.client_address``: behind the trusted proxy, the client's own) and
    browser. Recorded by signals (``ledger.access_log``); append-only (migration 0010's triggers refuse
    UPDATE and DELETE, the app's database role may only INSERT and SELECT). Who it concerns is kept as
    ``username`` and ``user_id``, not a foreign key: the record outlives the user, and a failed login may
    name no user at all. Group and permission changes are ``AuthChange`` records; the access log page
    shows both."""

    at = models.DateTimeField(default=timezone.now, db_index=True)
    kind = models.CharField(max_length=20, choices=AccessEventKind.choices)
    username = models.CharField(max_length=150, blank=True, help_text="as typed, for a failed login")
    user_id = models.BigIntegerField(null=True, blank=True, help_text="the user's id, when there is one")
    address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=255, blank=True)
    path = models.CharField(max_length=255, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["username", "at"], name="ledger_access_user_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.kind} {self.username or '-'} from {self.address or '-'}"
