"""The report jobs' schedule, as django-celery-beat ``PeriodicTask`` rows (beat runs with
``DatabaseScheduler``; see docs/reports.md).

``sync_periodic_tasks()`` creates or updates the rows named in ``SCHEDULES`` and changes nothing
else; it is idempotent and runs after every ``migrate`` (``LedgerConfig.ready``) and from
``manage.py sync_report_schedules``. A floor manager may disable a task in the admin: its
``enabled`` flag is left as they set it.

The crontab times are on the card room's clock (``settings.TIME_ZONE``):

* ``ledger.close_ended_shifts`` at 00:15, 08:15 and 16:15: a quarter of an hour after each shift
  ends, close it (and any shift missed before);
* ``ledger.verify_ledger_nightly`` at 04:30: verify the rows since the last checkpoint and a rotating
  seventh of history (every row again at least once a week), and the database guards; store it;
* ``ledger.alert_overdue_checks`` every hour at :50: alert the nightly ledger check or the replay
  audit when its newest stored result is older than ``settings.CHECK_OVERDUE_HOURS`` (it didn't run);
* ``tables.purge_idempotency_keys`` at 05:00: drop the API's replay records older than
  ``settings.IDEMPOTENCY_KEY_RETENTION_HOURS`` (the ledger's own keys are never dropped);
* ``tables.replay_audit_nightly`` at 04:45: re-decide every settled hand of the day before from its
  stored input and compare it with what was recorded and posted (``handflow.audit``), stored as an
  ``IntegrityCheck`` of scope ``replay``;
* ``tables.expire_waiting_lists`` every minute: record the waiting lists' time limits passed (a
  call-in not arrived, a call not taken; docs/waiting-lists.md). They take effect when due anyway:
  this only writes them into the day's record while nobody touches the lists.
* ``ledger.purge_expired_exports`` at 05:15: drop the files of report exports built more than
  ``settings.EXPORT_RETENTION_DAYS`` ago (their rows stay, ``expired``).

Tasks are named here by their Celery names only: the back office doesn't import the hand's money.
"""

from __future__ import annotations

import dataclasses
import json

from django.apps import apps
from django.conf import settings
from django.db import transaction


@dataclasses.dataclass(frozen=True, slots=True)
class Schedule:
    name: str
    task: str
    minute: str
    hour: str
    description: str


SCHEDULES = (
    Schedule(
        name="ledger: close ended shifts",
        task="ledger.close_ended_shifts",
        minute="15",
        hour="0,8,16",
        description="Freeze the collection report of each shift that has ended (ShiftClose).",
    ),
    Schedule(
        name="ledger: verify the ledger nightly",
        task="ledger.verify_ledger_nightly",
        minute="30",
        hour="4",
        description="verify_ledger of the rows since the last checkpoint and a seventh of history, and the "
        "database-guard check, stored as an IntegrityCheck with its checkpoints.",
    ),
    Schedule(
        name="tables: replay audit of the day before",
        task="tables.replay_audit_nightly",
        minute="45",
        hour="4",
        description="Re-decide the day's settled hands from their stored input; stored as a replay check.",
    ),
    Schedule(
        name="ledger: alert the nightly checks that didn't run",
        task="ledger.alert_overdue_checks",
        minute="50",
        hour="*",
        description="Alert (mail to ADMINS, the webhook) when the newest nightly ledger check or replay "
        "audit "
        "is older than CHECK_OVERDUE_HOURS.",
    ),
    Schedule(
        name="tables: purge expired idempotency keys",
        task="tables.purge_idempotency_keys",
        minute="0",
        hour="5",
        description="Delete the API's replay records (IdempotentRequest) past their retention.",
    ),
    Schedule(
        name="tables: waiting lists' time limits",
        task="tables.expire_waiting_lists",
        minute="*",
        hour="*",
        description="Record the call-ins not arrived and the calls not taken in time (the lists' record).",
    ),
    Schedule(
        name="ledger: drop expired report exports' files",
        task="ledger.purge_expired_exports",
        minute="15",
        hour="5",
        description="Drop the file of each ReportExport past EXPORT_RETENTION_DAYS; the row stays.",
    ),
)


def sync_periodic_tasks(*, using: str = "default") -> int:
    """Create or update the ``SCHEDULES`` rows; returns how many were created. No-op (0) when
    django-celery-beat isn't installed."""
    if not apps.is_installed("django_celery_beat"):
        return 0
    from django_celery_beat.models import CrontabSchedule, PeriodicTask

    created = 0
    with transaction.atomic(using=using):
        for schedule in SCHEDULES:
            crontab, _ = CrontabSchedule.objects.using(using).get_or_create(
                minute=schedule.minute,
                hour=schedule.hour,
                day_of_week="*",
                day_of_month="*",
                month_of_year="*",
                timezone=settings.TIME_ZONE,
            )
            _, was_created = PeriodicTask.objects.using(using).update_or_create(
                name=schedule.name,
                defaults={
                    "task": schedule.task,
                    "crontab": crontab,
                    "interval": None,
                    "solar": None,
                    "clocked": None,
                    "args": "[]",
                    "kwargs": json.dumps({}),
                    "description": schedule.description,
                },
                create_defaults={
                    "task": schedule.task,
                    "crontab": crontab,
                    "args": "[]",
                    "kwargs": json.dumps({}),
                    "description": schedule.description,
                    "enabled": True,
                },
            )
            created += was_created
    return created
