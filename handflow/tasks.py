"""Celery tasks of the floor: thin wrappers around the same services the rest of the app calls.

Safe to run twice, and retried on database errors like the ledger's tasks
(:data:`casino.core.tasks.RETRY_OPTIONS`).
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from casino.core.tasks import RETRY_OPTIONS
from handflow import replays


@shared_task(name="tables.purge_idempotency_keys", **RETRY_OPTIONS)
def purge_idempotency_keys(self: Any) -> int:
    """Purge the API's expired replay records (the daily job); returns how many were deleted."""
    return replays.purge_expired()
