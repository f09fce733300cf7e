"""A failed replay audit is alerted once stored (issue #36): CRITICAL on ``casino.alerts``, one mail
to ``ADMINS``, one webhook POST; a passing one is not; a webhook that fails doesn't stop the store."""

from __future__ import annotations

import datetime as dt
import json
import logging
import urllib.error
from unittest import mock

import pytest
from django.core import mail
from django.test.utils import override_settings
from django.utils import timezone

from handflow import audit
from ledger.models import CheckSource, IntegrityCheck, IntegrityScope
from tests.fixtures.alerts import HOOK, WebhookAnswer, alerts_in

pytestmark = pytest.mark.django_db


def outcome(differences: int) -> audit.ReplayOutcome:
    now = timezone.now()
    return audit.ReplayOutcome(
        date_from=now.date(),
        date_to=now.date(),
        started_at=now - dt.timedelta(seconds=3),
        finished_at=now,
        seconds=3.0,
        hands=10,
        transactions=10,
        entries=40,
        differences=(),
        difference_count=differences,
        workers=1,
    )


@override_settings(ADMINS=["audit@example.com"], ALERT_WEBHOOK_URL=HOOK)
def test_a_failed_replay_audit_is_logged_mailed_and_posted(caplog: pytest.LogCaptureFixture) -> None:
    with (
        mock.patch("urllib.request.urlopen", return_value=WebhookAnswer()) as urlopen,
        caplog.at_level(logging.INFO, logger="casino.alerts"),
    ):
        assert audit.record_replay_check(outcome=outcome(0)).ok  # a passing audit: nobody bothered
        assert (alerts_in(caplog), mail.outbox) == ([], [])
        check = audit.record_replay_check(outcome=outcome(2), source=CheckSource.NIGHTLY)
    assert (check.ok, check.scope) == (False, IntegrityScope.REPLAY)
    assert len(alerts_in(caplog)) == 1
    assert f"Replay audit #{check.pk} failed" in alerts_in(caplog)[0]
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["audit@example.com"]
    assert "2 difference(s)" in mail.outbox[0].body
    urlopen.assert_called_once()
    assert json.loads(urlopen.call_args.args[0].data)["source"] == "replay audit"


@override_settings(ADMINS=["audit@example.com"], ALERT_WEBHOOK_URL=HOOK)
def test_a_webhook_that_fails_does_not_stop_the_audit_being_stored() -> None:
    with mock.patch("urllib.request.urlopen", side_effect=urllib.error.URLError("refused")):
        check = audit.record_replay_check(outcome=outcome(1))
    assert IntegrityCheck.objects.get(pk=check.pk).ok is False
    assert len(mail.outbox) == 1
