"""Celery tasks of the reports: thin wrappers that take ids (and shift keys), call the same
services as the pages (``backoffice.closing``, ``backoffice.exports``) and return ids.

Each is safe to run twice (closing a closed shift returns the first close; a built export is
returned as it is; an integrity check is just run again: a nightly one finds nothing new to read)
and retries database errors (``OperationalError``, ``InterfaceError``) with exponential backoff and
jitter, capped at ``settings.LEDGER_TASK_RETRY_BACKOFF_MAX`` seconds, at most
``settings.LEDGER_TASK_MAX_RETRIES`` times. Queue them with the ``enqueue_*`` helpers, which send
them only once the caller's transaction commits (``transaction.on_commit``), so a worker never
looks for rows that aren't there yet. Without a broker (``CELERY_TASK_ALWAYS_EAGER``) they run
in-process at that commit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from celery import shared_task
from django.contrib.auth import get_user_model
from django.db import transaction

from backoffice import closing, exports, integrity_checks, overdue_checks
from casino.core.tasks import RETRY_OPTIONS
from ledger.models import CheckSource, ReportExport
from ledger.shifts import Shift

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def _user(user_id: int | None) -> User | None:
    if user_id is None:
        return None
    return get_user_model().objects.filter(pk=user_id).first()


@shared_task(name="ledger.close_shift", **RETRY_OPTIONS)
def close_shift(self: Any, shift_key: str, user_id: int | None = None) -> int:
    """Close the shift ``shift_key`` (``YYYY-MM-DD/code``); returns the ShiftClose id."""
    return closing.close_shift(shift=Shift.parse(shift_key), by=_user(user_id)).close.pk


@shared_task(name="ledger.close_ended_shifts", **RETRY_OPTIONS)
def close_ended_shifts(self: Any) -> list[int]:
    """Close every shift that has ended and isn't closed (the periodic job); returns the ids."""
    return [close.pk for close in closing.close_ended_shifts()]


@shared_task(name="ledger.verify_ledger_nightly", **RETRY_OPTIONS)
def verify_ledger_nightly(self: Any, user_id: int | None = None) -> int:
    """The nightly check (``integrity_checks.run_nightly_check``): the rows since the last checkpoint and a
    rotating seventh of history, with the database guards, stored with the chain heads it saw,
    signed; returns the check's id. (``user_id`` is accepted for jobs queued before the full check
    had a task of its own: such a job runs the full check.)"""
    if user_id is not None:
        return integrity_checks.run_full_check(source=CheckSource.MANUAL, by=_user(user_id)).pk
    return integrity_checks.run_nightly_check(source=CheckSource.NIGHTLY).pk


@shared_task(name="ledger.verify_ledger_full", **RETRY_OPTIONS)
def verify_ledger_full(self: Any, user_id: int | None = None) -> int:
    """The full check of every row (``integrity_checks.run_full_check``), asked for on the integrity
    page or the API (``integrity_status.queue_full_check``); returns the check's id. Run twice, it
    stores two checks: it only reads, and the one polled for is the first stored."""
    return integrity_checks.run_full_check(source=CheckSource.MANUAL, by=_user(user_id)).pk


@shared_task(name="ledger.alert_overdue_checks", **RETRY_OPTIONS)
def alert_overdue_checks(self: Any) -> list[str]:
    """Alert the nightly checks that didn't run within ``settings.CHECK_OVERDUE_HOURS``
    (``overdue_checks.alert_overdue_checks``, the hourly job); returns their scopes."""
    return overdue_checks.alert_overdue_checks()


@shared_task(name="ledger.build_export", **RETRY_OPTIONS)
def build_export(self: Any, export_id: int) -> int:
    """Build the file of a requested export; returns its id."""
    return exports.build_export(export_id).pk


@shared_task(name="ledger.purge_expired_exports", **RETRY_OPTIONS)
def purge_expired_exports(self: Any) -> int:
    """Drop the files of exports past ``settings.EXPORT_RETENTION_DAYS`` (the rows stay); returns
    how many (the daily job)."""
    return exports.purge_expired_exports()


def enqueue_close_shift(shift: Shift, *, by: User | AnonymousUser | None = None) -> None:
    """Queue ``close_shift`` for ``shift`` once the current transaction commits."""
    user_id = by.pk if by is not None and by.is_authenticated else None
    key = str(shift)
    transaction.on_commit(lambda: close_shift.delay(key, user_id))


def enqueue_export(export: ReportExport) -> None:
    """Queue ``build_export`` for ``export`` once the current transaction commits."""
    export_id = export.pk
    transaction.on_commit(lambda: build_export.delay(export_id))


def enqueue_integrity_check(*, by: User | AnonymousUser | None = None) -> None:
    """Queue a full, stored integrity check (asked for by ``by``) once the transaction commits."""
    user_id = by.pk if by is not None and by.is_authenticated else None
    transaction.on_commit(lambda: verify_ledger_full.delay(user_id))
