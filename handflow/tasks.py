"""Celery tasks of the floor: thin wrappers around the same services the rest of the app calls.

Safe to run twice, and retried on database errors like the ledger's tasks
(:data:`casino.core.tasks.RETRY_OPTIONS`).
"""

from __future__ import annotations

import datetime
from typing import Any

from celery import shared_task
from django.utils import timezone

from casino.core.tasks import RETRY_OPTIONS
from handflow import audit
from ledger.models import CheckSource
from ledger.shifts import room_zone


@shared_task(name="tables.replay_audit_nightly", **RETRY_OPTIONS)
def replay_audit_nightly(self: Any, days_back: int = 1) -> int:
    """Re-decide every settled hand of the business date ``days_back`` days ago (default: the day
    before) and store the outcome as a ``replay`` integrity check (:mod:`handflow.audit`); returns
    the check's id. Runs in the worker's own process (no sub-processes)."""
    day = timezone.localtime(timezone.now(), room_zone()).date() - datetime.timedelta(days=days_back)
    outcome = audit.replay_audit(date_from=day, date_to=day)
    return audit.record_replay_check(outcome=outcome, source=CheckSource.NIGHTLY).pk
