"""Nobody is told no more (issue #36): a failed integrity check is alerted (CRITICAL on
``casino.alerts``, one mail to ``ADMINS``, one webhook POST) once stored, a webhook that fails doesn't
stop it being stored, and a nightly check that didn't run is alerted by the hourly job."""

from __future__ import annotations

import datetime as dt
import json
import logging
import urllib.error
from typing import Any
from unittest import mock

import pytest
from django.core import mail
from django.test.utils import override_settings
from django.utils import timezone

from backoffice import tasks
from backoffice.integrity_checks import run_nightly_check
from backoffice.overdue_checks import alert_overdue_checks, overdue_checks
from backoffice.schedules import SCHEDULES
from ledger.models import CheckSource, IntegrityCheck, IntegrityScope, JournalTransaction
from tests.factories import ReportRoom, at_local
from tests.fixtures.alerts import HOOK, WebhookAnswer, alerts_in
from tests.ledger.forgery import sql, triggers_off

pytestmark = pytest.mark.django_db

ADMINS = ["Floor <floor@example.com>"]


@pytest.fixture
def tampered(room: ReportRoom, a_past_day: dt.date) -> JournalTransaction:
    """A room with a few hands, one journal row altered behind the system's back."""
    table = room.table(83, schedule=room.limit_schedule())
    players = room.seat(table, ["83A", "83B", "83C"])
    for i in range(2):
        room.hand(table, players, at=at_local(a_past_day, 10, i))
    altered = JournalTransaction.objects.order_by("pk").first()
    assert altered is not None
    with triggers_off():
        sql("UPDATE ledger_journaltransaction SET memo = %s WHERE id = %s", ["edited", altered.pk])
    return altered


@pytest.mark.tamper
@override_settings(ADMINS=ADMINS, ALERT_WEBHOOK_URL=HOOK)
def test_a_failed_integrity_check_is_logged_mailed_and_posted(
    tampered: JournalTransaction, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        mock.patch("urllib.request.urlopen", return_value=WebhookAnswer()) as urlopen,
        caplog.at_level(logging.INFO, logger="casino.alerts"),
    ):
        check = run_nightly_check()
    assert not check.ok
    assert len(alerts_in(caplog)) == 1
    assert f"Integrity check #{check.pk} failed" in alerts_in(caplog)[0]
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ADMINS
    assert f"Integrity check #{check.pk} failed" in mail.outbox[0].subject
    assert "problem(s) in the rows" in mail.outbox[0].body
    urlopen.assert_called_once()
    document: dict[str, Any] = json.loads(urlopen.call_args.args[0].data)
    assert (document["source"], document["subject"]) == (
        "integrity check",
        f"Integrity check #{check.pk} failed",
    )


@pytest.mark.tamper
@override_settings(ADMINS=ADMINS, ALERT_WEBHOOK_URL=HOOK)
def test_a_webhook_that_fails_does_not_stop_the_check_being_stored(
    tampered: JournalTransaction, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        mock.patch("urllib.request.urlopen", side_effect=urllib.error.URLError("refused")),
        caplog.at_level(logging.INFO, logger="casino.alerts"),
    ):
        check_id = tasks.verify_ledger_nightly.apply().get()
    check = IntegrityCheck.objects.get(pk=check_id)
    assert (check.ok, check.source) == (False, CheckSource.NIGHTLY)
    assert len(alerts_in(caplog)) == 1
    assert len(mail.outbox) == 1  # the mail still went
    assert any("webhook could not be reached" in r.getMessage() for r in caplog.records)


def stored(scope: IntegrityScope, finished: dt.datetime, source: CheckSource = CheckSource.NIGHTLY) -> None:
    IntegrityCheck.objects.create(
        started_at=finished - dt.timedelta(minutes=5),
        finished_at=finished,
        source=source,
        scope=scope,
        ok=True,
        software_version="test",
    )


@override_settings(ADMINS=ADMINS, ALERT_WEBHOOK_URL="", CHECK_OVERDUE_HOURS=26)
def test_a_nightly_check_that_did_not_run_is_alerted(caplog: pytest.LogCaptureFixture) -> None:
    now = timezone.now()
    assert alert_overdue_checks(now=now) == []  # a new room: nothing to be late on
    stored(IntegrityScope.LEDGER, now - dt.timedelta(hours=25))
    stored(IntegrityScope.REPLAY, now - dt.timedelta(hours=27))
    stored(IntegrityScope.REPLAY, now - dt.timedelta(hours=1), source=CheckSource.MANUAL)  # not the job
    with caplog.at_level(logging.INFO, logger="casino.alerts"):
        assert alert_overdue_checks(now=now) == ["replay"]
    assert len(alerts_in(caplog)) == 1
    assert "Replay audit didn't run" in alerts_in(caplog)[0]
    assert len(mail.outbox) == 1
    assert "tables.replay_audit_nightly" in mail.outbox[0].body
    # A night later with no new ledger check either: both; once stored, neither.
    assert set(overdue_checks(now=now + dt.timedelta(hours=2))) == {
        IntegrityScope.LEDGER,
        IntegrityScope.REPLAY,
    }
    stored(IntegrityScope.LEDGER, now)
    stored(IntegrityScope.REPLAY, now)
    assert overdue_checks(now=now + dt.timedelta(hours=2)) == {}


def test_the_overdue_job_is_a_task_run_hourly(caplog: pytest.LogCaptureFixture) -> None:
    stored(IntegrityScope.LEDGER, timezone.now() - dt.timedelta(days=3))
    with caplog.at_level(logging.INFO, logger="casino.alerts"):
        assert tasks.alert_overdue_checks.apply().get() == ["ledger"]
    assert "Nightly ledger check didn't run" in alerts_in(caplog)[0]
    [schedule] = [s for s in SCHEDULES if s.task == "ledger.alert_overdue_checks"]
    assert schedule.hour == "*"
