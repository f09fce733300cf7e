"""Reports that can't starve the terminals (docs/reports.md, "Bounded work"; docs/decisions.md,
"Reports can't starve the terminals"): a report built in a request takes a slot, per user and in
all (``web.common.slots``), and is held to a time limit (``backoffice.reports.time_limit``); when
either is reached the answer is a clear 429/503 with the documented body, never a 500, while a
dealer terminal's request is answered as ever."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import sys
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client, override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from backoffice.reports import collection, time_limit
from backoffice.reports.common import ReportFilters, report_snapshot
from tables.models import Table
from tests.casino.test_deploy import documented_environment, run
from tests.factories import ReportRoom, at_local
from web.common import slots

pytestmark = pytest.mark.django_db

COLLECTION = "/api/ledger/reports/collection/"


@pytest.fixture
def day(room: ReportRoom, a_past_day: dt.date) -> dict[str, str]:
    """A day with hands at table 91: the query of a collection report."""
    table = room.table(91, schedule=room.limit_schedule())
    players = room.seat(table, ["Ann", "Ben", "Cy"])
    for hour in (10, 11):
        room.hand(table, players, at=at_local(a_past_day, hour))
    return {"date_from": a_past_day.isoformat()}


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def _page(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _slots_in_cache() -> list[str]:
    keys = [f"{slots.PREFIX}:all:{i}" for i in range(8)]
    return [key for key in keys if cache.get(key) is not None]


def _chips(staff: dict[str, Any]) -> int:
    """A dealer terminal's request (the chips at table 91): its status."""
    number = Table.objects.get(number=91).number
    return _api(staff["dealer"]).get(f"/api/terminal/tables/{number}/chips/").status_code


@override_settings(REPORTS_AT_ONCE=2, REPORTS_AT_ONCE_PER_USER=1)
def test_with_the_servers_slots_held_a_report_answers_503_and_a_terminal_still_answers(
    day: dict[str, str], staff: dict[str, Any]
) -> None:
    held = [slots.take(staff["manager"]), slots.take(staff["counter"])]
    busy = _api(staff["auditor"]).get(COLLECTION, day)
    assert busy.status_code == 503
    assert busy.json()["code"] == "reports_busy"
    assert set(busy.json()) == {"code", "detail"}
    assert "export" in busy.json()["detail"]
    assert 1 <= int(busy["Retry-After"]) <= 10
    page = _page(staff["auditor"]).get(reverse("reports:collection"), day)
    assert page.status_code == 503
    assert int(page["Retry-After"]) >= 1
    assert b"Reports are busy" in page.content
    # The terminal is answered meanwhile.
    assert _chips(staff) == 200
    # A refused request holds nothing; a slot given back is taken by the next report.
    held.pop().release()
    assert _api(staff["auditor"]).get(COLLECTION, day).status_code == 200
    held.pop().release()
    assert _slots_in_cache() == []


@override_settings(REPORTS_AT_ONCE=2, REPORTS_AT_ONCE_PER_USER=1)
def test_a_users_own_report_running_answers_429_theirs_alone(
    day: dict[str, str], staff: dict[str, Any]
) -> None:
    running = slots.take(staff["auditor"])
    mine = _api(staff["auditor"]).get(COLLECTION, day)
    assert mine.status_code == 429
    assert mine.json()["code"] == "reports_running"
    assert set(mine.json()) == {"code", "detail"}
    assert int(mine["Retry-After"]) >= 1
    page = _page(staff["auditor"]).get(reverse("reports:journal"), day)
    assert page.status_code == 429
    assert int(page["Retry-After"]) >= 1
    # Another user isn't held back by it (one slot of the server's is still free).
    assert _api(staff["manager"]).get(COLLECTION, day).status_code == 200
    assert _chips(staff) == 200
    running.release()
    assert _api(staff["auditor"]).get(COLLECTION, day).status_code == 200


@override_settings(REPORTS_AT_ONCE=1, REPORTS_AT_ONCE_PER_USER=1)
def test_a_slot_is_given_back_however_the_request_ends(
    day: dict[str, str], staff: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    api = _api(staff["auditor"])
    assert api.get(COLLECTION, day).status_code == 200
    assert api.get(COLLECTION, {"date_from": "2025-13-01"}).status_code == 400
    assert _page(staff["auditor"]).get(reverse("reports:collection"), day).status_code == 200
    assert _page(staff["auditor"]).get(reverse("reports:hands"), {**day, "limit": "0"}).status_code == 400

    def fails(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug in a report")

    monkeypatch.setattr(collection, "build_collection_report", fails)
    crashing = APIClient(raise_request_exception=False)
    crashing.force_login(staff["auditor"])
    assert crashing.get(COLLECTION, day).status_code == 500
    assert _slots_in_cache() == []
    slots.take(staff["auditor"]).release()  # the user's slot and the server's one are free


@override_settings(REPORTS_AT_ONCE=1, REPORTS_AT_ONCE_PER_USER=1, REPORT_STATEMENT_TIMEOUT_MS=10_000)
def test_a_killed_workers_slot_is_free_again_when_its_lease_expires(
    day: dict[str, str], staff: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    slots.take(staff["manager"])  # never given back: its worker was killed mid-report
    assert _api(staff["auditor"]).get(COLLECTION, day).status_code == 503
    assert slots.lease_seconds() == 50
    import django.core.cache.backends.locmem as locmem

    later = locmem.time.time() + slots.lease_seconds() + 1
    monkeypatch.setattr(locmem.time, "time", lambda: later)
    assert _api(staff["auditor"]).get(COLLECTION, day).status_code == 200


def test_the_terminals_and_the_integrity_status_take_no_slot(
    day: dict[str, str], staff: dict[str, Any]
) -> None:
    with override_settings(REPORTS_AT_ONCE=1, REPORTS_AT_ONCE_PER_USER=1):
        held = slots.take(staff["auditor"])
        assert _chips(staff) == 200
        assert _api(staff["auditor"]).get("/api/ledger/reports/integrity/").status_code == 200
        held.release()


def _ticking(monkeypatch: pytest.MonkeyPatch) -> None:
    """``time.monotonic`` as the time limit reads it: one second later at each reading."""
    ticks = itertools.count()
    monkeypatch.setattr(time_limit, "clock", lambda: float(next(ticks)))


@override_settings(REPORT_STATEMENT_TIMEOUT_MS=1_500)
def test_a_report_past_its_time_limit_answers_the_clear_503_on_the_api_and_the_page(
    day: dict[str, str], staff: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _ticking(monkeypatch)
    stopped = _api(staff["auditor"]).get(COLLECTION, day)
    assert stopped.status_code == 503
    assert stopped.json()["code"] == "report_timeout"
    assert set(stopped.json()) == {"code", "detail"}
    assert "fewer dates" in stopped.json()["detail"]
    assert "export it in the background" in stopped.json()["detail"]
    page = _page(staff["auditor"]).get(reverse("reports:collection"), day)
    assert page.status_code == 503
    assert b"took too long" in page.content
    assert b"export it in the background" in page.content
    assert _slots_in_cache() == []


def test_without_a_time_limit_a_report_runs_to_the_end(
    day: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background exports and the shift closes ask for no limit."""
    _ticking(monkeypatch)
    report = collection.build_collection_report(ReportFilters.from_params(day))
    assert report.totals.hands == 2
    with time_limit.time_limit(1_500), pytest.raises(time_limit.ReportTimedOut):
        collection.build_collection_report(ReportFilters.from_params(day))


# --- PostgreSQL: the statement timeout itself --------------------------------------------------------


def _setting(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting(%s)", [name])
        return str(cursor.fetchone()[0])


@pytest.mark.postgres
def test_postgres_cancels_a_report_statement_past_the_timeout_and_it_changes_nothing(
    day: dict[str, str], staff: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _setting("statement_timeout")

    def slow(filters: ReportFilters) -> Any:
        with report_snapshot(), connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(2)")
        raise AssertionError("not cancelled")

    with time_limit.time_limit(100), pytest.raises(time_limit.ReportTimedOut) as stopped:
        slow(ReportFilters.from_params(day))
    assert isinstance(stopped.value.__cause__, Exception)
    assert time_limit.was_cancelled(stopped.value.__cause__)
    # The test's transaction goes on, its timeout as before (the report's savepoint rolled back).
    assert _setting("statement_timeout") == before
    assert Table.objects.filter(number=91).exists()

    monkeypatch.setattr(collection, "build_collection_report", slow)
    with override_settings(REPORT_STATEMENT_TIMEOUT_MS=100):
        answer = _api(staff["auditor"]).get(COLLECTION, day)
    assert answer.status_code == 503
    assert answer.json()["code"] == "report_timeout"
    assert _setting("statement_timeout") == before


@pytest.mark.postgres
def test_postgres_a_report_in_time_leaves_the_timeout_as_it_found_it(day: dict[str, str]) -> None:
    before = _setting("statement_timeout")
    seen: list[str] = []
    with time_limit.time_limit(5_000):
        with report_snapshot():
            seen.append(_setting("statement_timeout"))
        report = collection.build_collection_report(ReportFilters.from_params(day))
    assert seen == ["5s"]
    assert report.totals.hands == 2
    assert _setting("statement_timeout") == before


# --- Across the server's processes: the slots are in the cache they share ------------------------------

SLOT_SCRIPT = """
import json, sys
import django
django.setup()
from web.common import slots

class Account:
    is_authenticated = True
    pk = int(sys.argv[1])
    date_joined = None

if sys.argv[2] == "hold":  # taken, never given back: the process ends as a killed worker would
    slots.take(Account())
    print(json.dumps("held"))
else:
    try:
        slots.take(Account()).release()
        print(json.dumps("taken"))
    except slots.SlotsFull as full:
        print(json.dumps([full.status_code, full.wait]))
"""


def _in_a_process(account: int, action: str, env: dict[str, str]) -> Any:
    result = run([sys.executable, "-c", SLOT_SCRIPT, str(account), action], env)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_slot_taken_in_one_process_is_held_in_another(tmp_path: Any) -> None:
    """The production settings' cache (files by default; Redis with CACHE_URL) is the processes':
    a slot one gunicorn worker took is full for the other, per user and in all."""
    env = documented_environment() | {
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "CACHE_URL": f"file://{tmp_path}",
        "REPORTS_AT_ONCE": "1",
        "REPORTS_AT_ONCE_PER_USER": "1",
    }
    assert _in_a_process(1, "hold", env) == "held"
    status, wait = _in_a_process(2, "try", env)
    assert status == 503
    assert 1 <= wait <= 10
    more = env | {"REPORTS_AT_ONCE": "2"}
    assert _in_a_process(1, "try", more)[0] == 429
    assert _in_a_process(2, "try", more) == "taken"
