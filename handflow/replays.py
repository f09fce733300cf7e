"""The API's replay records (:class:`tables.models.IdempotentRequest`, written by
:func:`web.idempotency.idempotent`) expire: kept ``settings.IDEMPOTENCY_KEY_RETENTION_HOURS``,
then purged daily. Past that a retry is a new request, and the ledger's keys, kept forever, still
make every posting exactly-once."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from tables.models import IdempotentRequest

PURGE_BATCH = 5_000


def purge_expired(*, now: datetime.datetime | None = None) -> int:
    """Delete the replay records older than ``settings.IDEMPOTENCY_KEY_RETENTION_HOURS``; returns
    how many. Batches of :data:`PURGE_BATCH` rows, each its own transaction, so a large backlog
    never holds locks for long. Safe to run twice (the second run finds nothing)."""
    cutoff = (now or timezone.now()) - datetime.timedelta(hours=settings.IDEMPOTENCY_KEY_RETENTION_HOURS)
    purged = 0
    while True:
        with transaction.atomic():
            batch = list(
                IdempotentRequest.objects.filter(created_at__lt=cutoff)
                .order_by("created_at")
                .values_list("pk", flat=True)[:PURGE_BATCH]
            )
            if not batch:
                return purged
            purged += IdempotentRequest.objects.filter(pk__in=batch).delete()[0]
