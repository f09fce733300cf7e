"""Alerts (casino.core.alerts, issue #36): a failed check is logged at CRITICAL on ``casino.alerts``,
mailed to ``ADMINS`` and POSTed to the optional webhook; a channel that fails is logged, never raised."""

from __future__ import annotations

import json
import logging
import urllib.error
from typing import Any
from unittest import mock

import pytest
from django.core import mail
from django.core.exceptions import ImproperlyConfigured
from django.test.utils import override_settings

from casino.core.alerts import alert
from casino.settings import env_admins
from tests.fixtures.alerts import HOOK, WebhookAnswer

ADMINS = ["Floor <floor@example.com>", "audit@example.com"]


@override_settings(ADMINS=ADMINS, ALERT_WEBHOOK_URL=HOOK, ALERT_WEBHOOK_TIMEOUT=3)
def test_an_alert_is_logged_mailed_and_posted(caplog: pytest.LogCaptureFixture) -> None:
    with (
        mock.patch("urllib.request.urlopen", return_value=WebhookAnswer()) as urlopen,
        caplog.at_level(logging.INFO, logger="casino.alerts"),
    ):
        alert(subject="Integrity check #7 failed", detail="2 problem(s)", source="integrity check")
    critical = [r for r in caplog.records if r.name == "casino.alerts" and r.levelno == logging.CRITICAL]
    assert len(critical) == 1
    assert "Integrity check #7 failed" in critical[0].getMessage()
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ADMINS
    assert "Integrity check #7 failed" in mail.outbox[0].subject
    assert mail.outbox[0].body == "2 problem(s)"
    urlopen.assert_called_once()
    request, kwargs = urlopen.call_args.args[0], urlopen.call_args.kwargs
    assert (request.full_url, request.get_method(), kwargs["timeout"]) == (HOOK, "POST", 3.0)
    document: dict[str, Any] = json.loads(request.data)
    assert document["subject"] == "Integrity check #7 failed"
    assert (document["detail"], document["source"]) == ("2 problem(s)", "integrity check")


@override_settings(ADMINS=ADMINS, ALERT_WEBHOOK_URL=HOOK)
def test_a_channel_that_fails_is_logged_and_the_others_still_run(caplog: pytest.LogCaptureFixture) -> None:
    with (
        mock.patch("urllib.request.urlopen", side_effect=urllib.error.URLError("refused")),
        caplog.at_level(logging.INFO, logger="casino.alerts"),
    ):
        alert(subject="Backup failed", detail="disk full", source="backup")  # doesn't raise
    assert len(mail.outbox) == 1
    assert any(r.levelno == logging.ERROR and "webhook" in r.getMessage() for r in caplog.records)

    with (
        mock.patch("casino.core.alerts.mail_admins", side_effect=OSError("no mail server")),
        mock.patch("urllib.request.urlopen", return_value=WebhookAnswer()) as urlopen,
    ):
        alert(subject="Backup failed", detail="disk full", source="backup")
    urlopen.assert_called_once()  # the mail failed, the webhook was still posted


@override_settings(ADMINS=[], ALERT_WEBHOOK_URL="")
def test_without_admins_or_a_webhook_it_only_logs(caplog: pytest.LogCaptureFixture) -> None:
    with mock.patch("urllib.request.urlopen") as urlopen, caplog.at_level(logging.INFO, "casino.alerts"):
        alert(subject="Restore drill failed", detail="checksum", source="restore drill")
    assert mail.outbox == []
    urlopen.assert_not_called()
    assert [r.levelno for r in caplog.records if r.name == "casino.alerts"] == [logging.CRITICAL]


def test_admins_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMINS", "Floor Manager <floor@example.com>, audit@example.com")
    assert env_admins("ADMINS") == ["Floor Manager <floor@example.com>", "audit@example.com"]
    monkeypatch.setenv("ADMINS", "")
    assert env_admins("ADMINS") == []
    monkeypatch.delenv("ADMINS")
    assert env_admins("ADMINS") == []  # the safe default: nobody mailed
    monkeypatch.setenv("ADMINS", "Floor Manager")
    with pytest.raises(ImproperlyConfigured, match="is not like"):
        env_admins("ADMINS")
