"""The Celery jobs, run in-process (``CELERY_TASK_ALWAYS_EAGER``): closing shifts (frozen report,
checksums, idempotent), the nightly integrity check and ``latest_integrity_failure``, exports,
retries with backoff, queueing on commit, and the periodic tasks' schedule rows."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from celery import current_app
from django.conf import settings
from django.db import OperationalError, connection, transaction
from django_celery_beat.models import PeriodicTask

from backoffice import closing, tasks
from backoffice.reports.collection import build_collection_report
from backoffice.reports.common import ReportFilters, content_sha256
from backoffice.schedules import SCHEDULES, sync_periodic_tasks
from ledger import selectors
from ledger.errors import RecordConflict
from ledger.hashing import sha256_hex
from ledger.models import CheckSource, IntegrityCheck, JournalTransaction, ShiftClose
from ledger.services import reverse
from ledger.shifts import Shift, ShiftCode
from tests.factories import ReportRoom, at_local, rpt_fee

pytestmark = pytest.mark.django_db


@pytest.fixture
def played_day(room: ReportRoom, a_past_day: dt.date) -> dict[str, Any]:
    table = room.table(71, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C", "D", "E"])
    hands = [room.hand(table, players[: 2 + i % 4], at=at_local(a_past_day, 9, 5 * i)) for i in range(6)]
    return {"day": a_past_day, "table": table, "hands": hands, "shift": Shift(a_past_day, ShiftCode.DAY)}


def test_close_shift_freezes_the_report_with_its_checksums(played_day: dict[str, Any]) -> None:
    shift = played_day["shift"]
    close_id = tasks.close_shift.delay(str(shift)).get()
    close = ShiftClose.objects.get(pk=close_id)
    live = build_collection_report(ReportFilters.for_shift(shift))
    expected_fees = sum(rpt_fee(2 + i % 4) for i in range(6))
    assert close.report["totals"]["fees_collected_cents"] == expected_fees == live.net_collected_cents
    assert close.report["totals"]["hands"] == 6
    assert close.report_sha256 == content_sha256(live)
    assert close.export_sha256 == sha256_hex(bytes(close.export_zip))
    assert close.last_transaction_id == JournalTransaction.objects.order_by("-pk").first().pk
    assert closing.frozen_matches_live(close)


def test_closing_twice_returns_the_first(played_day: dict[str, Any], staff: dict[str, Any]) -> None:
    shift = played_day["shift"]
    first = closing.close_shift(shift=shift, by=staff["manager"])
    assert first.replayed is False
    again = closing.close_shift(shift=shift)
    assert (again.close.pk, again.replayed, again.close.closed_by_id) == (
        first.close.pk,
        True,
        staff["manager"].pk,
    )
    assert tasks.close_shift.delay(str(shift)).get() == first.close.pk
    assert ShiftClose.objects.count() == 1


def test_a_shift_that_has_not_ended_is_not_closed() -> None:
    with pytest.raises(RecordConflict) as caught:
        closing.close_shift(shift=Shift.current())
    assert caught.value.code == "shift_not_ended"
    assert not ShiftClose.objects.exists()


def test_a_late_change_shows_against_the_frozen_report(played_day: dict[str, Any], room: ReportRoom) -> None:
    close = closing.close_shift(shift=played_day["shift"]).close
    hand = played_day["hands"][0]
    reverse(
        transaction=JournalTransaction.objects.get(idempotency_key=f"hand:{hand.pk}:fees"),
        user=room.user,
        reason="late correction",
        idempotency_key="late",
    )
    assert not closing.frozen_matches_live(close)
    close.refresh_from_db()  # the frozen figures did not move
    assert close.report["totals"]["fees_returned_cents"] == 0


def test_close_ended_shifts_from_the_first_hand(played_day: dict[str, Any]) -> None:
    day = played_day["day"]
    now = Shift(day + dt.timedelta(days=1), ShiftCode.DAY).bounds()[0]  # next day, 08:00
    ended = closing.ended_unclosed_shifts(now=now)
    assert [str(s) for s in ended] == [
        f"{day}/grave",
        f"{day}/day",
        f"{day}/swing",
        f"{day + dt.timedelta(days=1)}/grave",
    ]
    made = closing.close_ended_shifts(now=now)
    assert len(made) == 4
    assert closing.ended_unclosed_shifts(now=now) == []
    # The next run goes on from the last close and closes nothing twice.
    later = now + dt.timedelta(hours=8)
    assert [str(c.shift) for c in closing.close_ended_shifts(now=later)] == [
        f"{day + dt.timedelta(days=1)}/day"
    ]
    assert ShiftClose.objects.count() == 5


def test_the_periodic_close_job(played_day: dict[str, Any]) -> None:
    ids = tasks.close_ended_shifts.delay().get()
    # Every shift from the first hand's up to the last ended one (today's running shift excluded).
    assert len(ids) == ShiftClose.objects.count() >= 3
    assert tasks.close_ended_shifts.delay().get() == []


@pytest.mark.usefixtures("as_the_app_role")  # a superuser's connection fails the guard line, rightly
def test_nightly_integrity_check_and_latest_failure(played_day: dict[str, Any]) -> None:
    assert selectors.latest_integrity_failure() is None
    check = IntegrityCheck.objects.get(pk=tasks.verify_ledger_nightly.delay().get())
    assert check.ok
    assert check.source == CheckSource.NIGHTLY
    assert check.transactions == JournalTransaction.objects.count()
    assert selectors.latest_integrity_failure() is None

    # Break a cached balance behind the ledger's back (the account identity trigger allows a
    # balance update), run the job again: the failure is what the floor overview gets.
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE ledger_account SET balance = balance + 1 WHERE id = "
            "(SELECT MIN(id) FROM ledger_account WHERE kind = 'cage')"
        )
    failed = IntegrityCheck.objects.get(pk=tasks.verify_ledger_nightly.delay().get())
    assert not failed.ok
    # The next night sees that the balances no longer sum to zero; which account is off is named by
    # the night whose seventh of the accounts holds it, and by the full check at once.
    assert "ledger_not_zero" in {problem["code"] for problem in failed.problems}
    assert selectors.latest_integrity_failure() == failed
    full = IntegrityCheck.objects.get(pk=tasks.verify_ledger_full.delay().get())
    assert full.source == CheckSource.MANUAL
    assert {problem["code"] for problem in full.problems} >= {"balance_mismatch", "ledger_not_zero"}


def test_tasks_retry_database_errors(played_day: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    real = closing.close_shift

    def flaky(**kwargs: Any) -> closing.Closed:
        calls["n"] += 1
        if calls["n"] == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(**kwargs)

    monkeypatch.setattr(closing, "close_shift", flaky)
    # In-process, a retry runs again at once when the error isn't propagated (a worker waits for
    # the backoff first); the first attempt's OperationalError is retried, the second succeeds.
    result = tasks.close_shift.apply(args=[str(played_day["shift"])], throw=False)
    close_id = result.get()
    assert calls["n"] == 2
    assert ShiftClose.objects.filter(pk=close_id).exists()
    for task in (
        tasks.close_shift,
        tasks.close_ended_shifts,
        tasks.verify_ledger_nightly,
        tasks.verify_ledger_full,
        tasks.build_export,
    ):
        assert OperationalError in task.autoretry_for
        assert task.retry_backoff
        assert task.max_retries == 8
        assert task.retry_jitter


def test_jobs_are_queued_on_commit(
    played_day: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks, transaction.atomic():
        tasks.enqueue_close_shift(played_day["shift"])
        tasks.enqueue_integrity_check()
    assert len(callbacks) == 2
    assert not ShiftClose.objects.exists()  # nothing ran before the commit
    for callback in callbacks:
        callback()
    assert ShiftClose.objects.count() == 1
    assert IntegrityCheck.objects.count() == 1


def test_periodic_tasks_exist_and_sync_is_idempotent() -> None:
    names = {schedule.name for schedule in SCHEDULES}
    rows = {task.name: task for task in PeriodicTask.objects.filter(name__in=names)}
    assert set(rows) == names  # created by the post-migrate sync
    close = rows["ledger: close ended shifts"]
    assert (close.task, close.crontab.minute, close.crontab.hour) == (
        "ledger.close_ended_shifts",
        "15",
        "0,8,16",
    )
    assert str(close.crontab.timezone) == settings.TIME_ZONE
    assert json.loads(close.kwargs) == {}
    # A floor manager disabled one; syncing again keeps that and creates nothing.
    PeriodicTask.objects.filter(pk=close.pk).update(enabled=False)
    assert sync_periodic_tasks() == 0
    assert PeriodicTask.objects.filter(name__in=names).count() == len(names)
    assert PeriodicTask.objects.get(pk=close.pk).enabled is False
    # What a worker registers: it imports every app's tasks.py at start (autodiscover_tasks).
    current_app.loader.import_default_modules()
    registered = set(current_app.tasks)
    assert {schedule.task for schedule in SCHEDULES} <= registered
