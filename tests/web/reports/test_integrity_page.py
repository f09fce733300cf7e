"""The integrity page never verifies inside the request: it shows the stored checks with the first
problems and their count, a bounded answer however damaged the ledger; the full check is queued for
the worker (on commit) and the page polls for its result (htmx, no inline script)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from backoffice.reports import integrity
from ledger.models import CheckSource, IntegrityCheck, JournalTransaction
from tests.factories import ReportRoom, at_local
from tests.ledger.forgery import sql, triggers_off

pytestmark = [pytest.mark.django_db, pytest.mark.tamper]  # the damage is done as the attacker


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


SHOWN = 12  # the page's cap, lowered so that a few dozen damaged rows are "a year" of them


@pytest.fixture
def damaged(room: ReportRoom, a_past_day: dt.date, monkeypatch: pytest.MonkeyPatch) -> int:
    """A ledger whose every row disagrees with its hash, well over the page's cap of problems."""
    monkeypatch.setattr(integrity, "SHOWN_PROBLEMS", SHOWN)
    table = room.table(91, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C"])
    for i in range(30):
        room.hand(table, players, at=at_local(a_past_day, 11, i))
    with triggers_off():
        sql("UPDATE ledger_journaltransaction SET memo = %s", ["edited"])
    rows = JournalTransaction.objects.count()
    assert rows > 2 * SHOWN
    return rows


def test_a_damaged_ledger_gives_a_bounded_page_without_reading_the_journal(
    damaged: int, users: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    client = logged_in(users["auditor"])
    url = reverse("reports:integrity")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        queued = client.post(url)
    assert queued.status_code == 302
    assert callbacks  # the full check was queued on commit (and run then: no broker in tests)
    check = IntegrityCheck.objects.get()
    assert (check.source, check.ok) == (CheckSource.MANUAL, False)

    with CaptureQueriesContext(connection) as queries:
        page = client.get(queued["Location"])
    assert page.status_code == 200
    read = " ".join(query["sql"] for query in queries.captured_queries)
    assert "ledger_entry" not in read
    assert "ledger_journaltransaction" not in read
    assert len(queries.captured_queries) <= 25
    html = page.content.decode()
    assert html.count('<li class="flag">[hash_mismatch]') == SHOWN
    total = int(html.split("<h3>Problems: ")[1].split("<")[0])
    assert total >= damaged  # every row counted, a hundred shown
    assert f"The first {SHOWN} are shown" in html
    assert len(page.content) < 60_000
    assert "<script>" not in html
    assert "hx-get" not in html
    assert f"Full check {check.pk} finished" in html


def test_the_page_polls_until_the_full_check_is_stored(
    damaged: int, users: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    client = logged_in(users["auditor"])
    url = reverse("reports:integrity")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        queued = client.post(url)
    assert len(callbacks) == 2  # the pending mark, then the job
    assert not IntegrityCheck.objects.exists()
    waiting = client.get(queued["Location"]).content.decode()
    assert 'hx-get="' in waiting
    assert 'hx-trigger="every 3s"' in waiting
    assert "htmx.min.js" in waiting
    fragment = client.get(url, {"status": "1", "after": "0"})
    assert fragment.status_code == 200
    assert b"running in the background" in fragment.content
    for callback in callbacks:  # the request commits: the mark is set, the worker runs the job
        callback()
    done = client.get(url, {"status": "1", "after": "0"}).content.decode()
    assert "hx-get" not in done
    assert "FAILED" in done
    assert str(IntegrityCheck.objects.get().pk) in done
