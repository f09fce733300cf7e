"""Celery tasks of the web: the expiry of the API's replay records (:mod:`web.common.idempotency`).

Safe to run twice, and retried on database errors like the other apps' tasks
(:data:`casino.core.tasks.RETRY_OPTIONS`).
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from casino.core.tasks import RETRY_OPTIONS
from web.common import idempotency


# The task's name is the one it had as the floor's task: beat's schedule
# (backoffice.schedules.SCHEDULES, django-celery-beat's rows) and queued messages name it so.
@shared_task(name="tables.purge_idempotency_keys", **RETRY_OPTIONS)
def purge_idempotency_keys(self: Any) -> int:
    """Purge the API's expired replay records (the daily job); returns how many were deleted."""
    return idempotency.purge_expired()
