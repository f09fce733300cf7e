"""The scheduled checks that didn't run: a nightly check whose newest stored result is too old.

The nightly ledger check (``ledger.verify_ledger_nightly``) and the replay audit
(``tables.replay_audit_nightly``) each store an ``IntegrityCheck`` a night. When beat or the worker is
down, or the job died before storing, nothing is stored and nothing fails: :func:`alert_overdue_checks`
(the hourly job ``ledger.alert_overdue_checks``) finds the scopes whose newest nightly check finished
more than ``settings.CHECK_OVERDUE_HOURS`` ago and alerts each (``casino.core.alerts``), every hour
until one is stored. A scope with no nightly check at all (a new room) is not overdue.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from casino.core.alerts import alert
from ledger.models import CheckSource, IntegrityCheck, IntegrityScope

JOBS = {
    IntegrityScope.LEDGER: ("Nightly ledger check", "ledger.verify_ledger_nightly"),
    IntegrityScope.REPLAY: ("Replay audit", "tables.replay_audit_nightly"),
}
"""Each scope's nightly job: what the alert calls it, and its Celery task."""


def overdue_checks(*, now: dt.datetime | None = None) -> dict[IntegrityScope, dt.datetime]:
    """Each scope whose newest nightly check finished more than ``CHECK_OVERDUE_HOURS`` before
    ``now``, with when it finished."""
    now = now or timezone.now()
    limit = now - dt.timedelta(hours=settings.CHECK_OVERDUE_HOURS)
    newest = dict(
        IntegrityCheck.objects.filter(source=CheckSource.NIGHTLY)
        .values_list("scope")
        .annotate(last=Max("finished_at"))
        .values_list("scope", "last")
    )
    return {scope: last for scope in JOBS if (last := newest.get(scope.value)) is not None and last < limit}


def alert_overdue_checks(*, now: dt.datetime | None = None) -> list[str]:
    """Alert each overdue scope (:func:`overdue_checks`); returns their names. Safe to run any time."""
    overdue = overdue_checks(now=now)
    for scope, last in overdue.items():
        name, task = JOBS[scope]
        alert(
            subject=f"{name} didn't run",
            detail=f"{name} ({task}): none was stored since {last.isoformat()}, more than "
            f"{settings.CHECK_OVERDUE_HOURS} hours ago. Is beat (casino-beat) or the worker "
            "(casino-worker) down? See their logs; run the job by hand once they are back.",
            source="scheduled check",
        )
    return [scope.value for scope in overdue]
