"""Celery tasks of the floor: thin wrappers around the same services the rest of the app calls.

Safe to run twice, and retried on database errors like the ledger's tasks
(:data:`casino.core.tasks.RETRY_OPTIONS`).
"""

from __future__ import annotations

import datetime
from typing import Any

from celery import shared_task
from django.db.models import Max, Min
from django.utils import timezone

from casino.core.tasks import RETRY_OPTIONS
from handflow import audit
from ledger.models import CheckpointKind, CheckpointPart, CheckSource, VerificationCheckpoint
from ledger.shifts import local_midnight, room_zone
from ledger.verification import rotation_slice
from tables.models import Hand


@shared_task(name="tables.replay_audit_nightly", **RETRY_OPTIONS)
def replay_audit_nightly(self: Any, days_back: int = 1) -> int:
    """Re-decide every settled hand of the business date ``days_back`` days ago (default: the day
    before) and store the outcome as a ``replay`` integrity check (:mod:`handflow.audit`); returns
    the check's id. Then the night's seventh of the older hands (by id,
    ``ledger.verification.rotation_slice``: every hand again within a week), stored as a check of
    its own only when it finds a difference. Each part is a ``replay`` checkpoint. Runs in the
    worker's own process (no sub-processes)."""
    today = timezone.localtime(timezone.now(), room_zone()).date()
    day = today - datetime.timedelta(days=days_back)
    outcome = audit.replay_audit(date_from=day, date_to=day)
    _checkpoint(CheckpointPart.SINCE, outcome, None)
    first = Hand.objects.order_by("pk").values_list("created_at", flat=True).first()
    older = rotation_slice(_last_before(day), today)
    if first is not None and older is not None:
        since = timezone.localtime(first, room_zone()).date()
        rotation = audit.replay_audit(date_from=since, date_to=day, hand_ids=older)
        _checkpoint(CheckpointPart.ROTATION, rotation, older)
        if not rotation.ok:
            audit.record_replay_check(outcome=rotation, source=CheckSource.NIGHTLY)
    return audit.record_replay_check(outcome=outcome, source=CheckSource.NIGHTLY).pk


def _last_before(day: datetime.date) -> int:
    """The id of the last hand started before ``day`` (0: none)."""
    found = (
        Hand.objects.filter(created_at__lt=local_midnight(day)).order_by("-pk").values_list("pk", flat=True)
    )
    return found.first() or 0


def _checkpoint(part: CheckpointPart, outcome: audit.ReplayOutcome, ids: tuple[int, int] | None) -> None:
    """A ``replay`` checkpoint of one part of the nightly audit (``ids`` None: the day's hands)."""
    start, end = (
        local_midnight(outcome.date_from),
        local_midnight(outcome.date_to + datetime.timedelta(days=1)),
    )
    bounds = Hand.objects.filter(created_at__gte=start, created_at__lt=end).aggregate(
        first=Min("pk"), last=Max("pk")
    )
    first, last = ids if ids is not None else (bounds["first"] or 0, bounds["last"] or 0)
    VerificationCheckpoint.objects.create(
        kind=CheckpointKind.REPLAY,
        part=part,
        first_id=first,
        last_id=last,
        rows=outcome.hands,
        at=outcome.finished_at,
        seconds=round(outcome.seconds, 3),
        ok=outcome.ok,
        problems=outcome.difference_count,
    )
