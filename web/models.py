"""The web's one model: the API writes made under an ``Idempotency-Key``, with the responses they
got (:mod:`web.common.idempotency` writes and purges them).

It was the floor's (``tables.IdempotentRequest``) and kept its table, ``tables_idempotentrequest``:
the move was a change of Django's migration state only (``tables`` migration 0008, ``web`` 0001),
no table was created, renamed or dropped.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class IdempotentRequest(models.Model):
    """One API write made under a client's ``Idempotency-Key``, and the response it got.

    The row is inserted (claiming the key) in the same database transaction as the write, so a
    retry or a concurrent duplicate either finds the stored response or waits for the first to
    commit. ``request_digest`` (method, path, body) tells a retry from a conflicting reuse.
    Only successful responses are kept: a refused request leaves its key unused.
    """

    key = models.CharField(max_length=100, unique=True)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=300)
    request_digest = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField(null=True, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        db_table = "tables_idempotentrequest"  # the table it had as the floor's model
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.method} {self.path} [{self.key}] -> {self.status_code}"
