"""The API's replay records expire (web.common.idempotency.purge_expired, the daily
``tables.purge_idempotency_keys`` job, web.tasks); the money they guarded stays exactly-once through
the ledger's own keys."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from celery import current_app
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone
from rest_framework.test import APIClient

from backoffice.schedules import SCHEDULES
from ledger.models import JournalTransaction
from tables.models import ChipMovement, Player, Table
from web.common import idempotency
from web.models import IdempotentRequest
from web.tasks import purge_idempotency_keys

NOW = datetime.datetime(2026, 11, 25, 12, 0, tzinfo=datetime.UTC)


def record(key: str, hours_old: float) -> IdempotentRequest:
    return IdempotentRequest.objects.create(
        key=key,
        method="POST",
        path="/api/terminal/tables/1/hands/",
        request_digest="0" * 64,
        status_code=201,
        response={"id": 1},
        created_at=NOW - datetime.timedelta(hours=hours_old),
    )


@pytest.mark.django_db
def test_only_records_past_the_retention_are_purged(settings: Any) -> None:
    settings.IDEMPOTENCY_KEY_RETENTION_HOURS = 48
    record("key-expired-1", 48.01)
    record("key-kept-0001", 47.99)
    record("key-kept-0002", 0)

    assert idempotency.purge_expired(now=NOW) == 1
    assert idempotency.purge_expired(now=NOW) == 0  # safe to run twice
    assert sorted(IdempotentRequest.objects.values_list("key", flat=True)) == [
        "key-kept-0001",
        "key-kept-0002",
    ]

    settings.IDEMPOTENCY_KEY_RETENTION_HOURS = 1
    assert idempotency.purge_expired(now=NOW) == 1
    assert list(IdempotentRequest.objects.values_list("key", flat=True)) == ["key-kept-0002"]


@pytest.mark.django_db
def test_a_backlog_is_purged_in_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(idempotency, "PURGE_BATCH", 2)
    for n in range(5):
        record(f"key-backlog-{n}", 100 + n)
    record("key-recent-01", 1)

    assert idempotency.purge_expired(now=NOW) == 5
    assert list(IdempotentRequest.objects.values_list("key", flat=True)) == ["key-recent-01"]


@pytest.mark.django_db
def test_the_daily_task_purges(settings: Any) -> None:
    settings.IDEMPOTENCY_KEY_RETENTION_HOURS = 48
    old = timezone.now() - datetime.timedelta(hours=49)
    IdempotentRequest.objects.create(
        key="key-task-0001",
        method="POST",
        path="/x/",
        request_digest="0" * 64,
        status_code=201,
        created_at=old,
    )
    assert purge_idempotency_keys.delay().get() == 1
    assert purge_idempotency_keys.delay().get() == 0
    assert not IdempotentRequest.objects.exists()


def test_the_task_keeps_the_name_beat_schedules_it_by(db: None) -> None:
    # A worker imports every app's tasks.py (autodiscover); the name beat's rows and queued
    # messages carry is the web's task, the one name it has had since it was the floor's.
    current_app.loader.import_default_modules()
    assert purge_idempotency_keys.name == "tables.purge_idempotency_keys"
    assert current_app.tasks["tables.purge_idempotency_keys"].run.__module__ == "web.tasks"
    assert "tables.purge_idempotency_keys" in {schedule.task for schedule in SCHEDULES}


def test_a_buy_in_retried_after_the_purge_is_not_posted_twice(
    make_table: Callable[..., Table],
    make_player: Callable[..., Player],
    users: dict[str, AbstractBaseUser],
) -> None:
    table, player = make_table(stakes="nl-20-100"), make_player()
    client = APIClient()
    client.force_authenticate(users["floor"])
    path = f"/api/terminal/tables/{table.number}/buy-in/"
    body = {"player": player.pk, "amount_cents": 5_000, "seat_number": 2}
    headers = {"Idempotency-Key": "buy-in-retried-late"}

    first = client.post(path, body, format="json", headers=headers)
    assert first.status_code == 201, first.json()
    assert idempotency.purge_expired(now=timezone.now() + datetime.timedelta(days=30)) == 1

    late = client.post(path, body, format="json", headers=headers)

    # The replay record is gone, so the request runs again; the ledger's key req:<key> replays it.
    assert late.status_code == 200, late.json()
    assert late.json()["id"] == first.json()["id"]
    assert ChipMovement.objects.filter(player=player).count() == 1
    assert JournalTransaction.objects.filter(idempotency_key="req:buy-in-retried-late").count() == 1
