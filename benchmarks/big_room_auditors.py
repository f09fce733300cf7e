"""The big room's auditors (``bench_big_room.py --auditors N``): back-office users running the
year's reports through the API at their allowed rate while the terminals play, and the history
those reports read (issue: "Reports that can't starve the terminals").

* **The history** (``--history-hands``, ``--history-tables``): ``bench_reports.py``'s year (last
  year; hands, players dealt in, fees, settlements and misdeals written with set-based SQL) on
  tables numbered from :data:`FIRST_HISTORY_TABLE`, closed once written, so that the floor overview
  and the terminals see the room they saw before. The house data is loaded back-dated first, so
  that its schedules were in force over that year. The generated rows are not hash-chained:
  ``verify_ledger`` is skipped in a room with a history (every hand played is still checked).
* **The auditors**: each is a user of the Auditor role with ``--auditor-parallel`` connections,
  sending ``GET /api/ledger/reports/<report>/?date_from=<Jan 1>&date_to=<Dec 31>`` of the
  history's year (``--auditor-reports``, in turn) at ``--auditor-rate`` requests a minute in all
  (the server's ``RATE_REPORTS``, 60 a minute by default: the most it allows), each connection
  sending its next one on time whether the last was answered or refused. Every answer is 200, 429
  (``throttled``, ``reports_running``) or 503 (``reports_busy``, ``report_timeout``); anything else
  is an error of the run.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import bench_hand_api
from bench_hand_api import ms
from prod_server import Connection

FIRST_HISTORY_TABLE = 1001
REPORT_PATHS = {
    "collection": "/api/ledger/reports/collection/",
    "dealer-downs": "/api/ledger/reports/dealer-downs/",
    "drop-variance": "/api/ledger/reports/drop-variance/",
    "config-changes": "/api/ledger/reports/config-changes/",
}
ALLOWED = {200, 429, 503}


def back_date_house_data() -> None:
    """The house data in force since 2000 (before the history's year), as bench_reports loads it."""
    from tables.house_data import load_house_data

    load_house_data(effective_from=dt.datetime(2000, 1, 1, tzinfo=dt.UTC))


def add_history(hands: int, tables: int) -> dict[str, Any]:
    """bench_reports' year of ``hands`` hands over ``tables`` tables (numbered from
    :data:`FIRST_HISTORY_TABLE`), then those tables closed. Returns its counts."""
    import bench_reports
    from django.db import connection

    counts = bench_reports.generate(hands, tables, first_number=FIRST_HISTORY_TABLE)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE tables_table SET status = 'closed' WHERE number >= %s", [FIRST_HISTORY_TABLE])
    return counts


def has_history() -> bool:
    from tables.models import Table

    return Table.objects.filter(number__gte=FIRST_HISTORY_TABLE).exists()


def history_year() -> tuple[dt.date, dt.date]:
    """The history's year: last year (bench_reports generates it there)."""
    year = dt.date.today().year - 1
    return dt.date(year, 1, 1), dt.date(year, 12, 31)


def auditor_users(count: int) -> list[str]:
    """``count`` users of the Auditor role (made if missing); their usernames."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from tables.roles import AUDITOR

    names = [f"bench-auditor-{k}" for k in range(1, count + 1)]
    for name in names:
        user, made = get_user_model().objects.get_or_create(username=name)
        if made:
            user.set_unusable_password()
            user.save()
            user.groups.add(Group.objects.get(name=AUDITOR))
    return names


@dataclass
class AuditorLog:
    """Each answer: when it was asked, its status and code, how long it took."""

    answers: list[tuple[float, int, str, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def window(self, start: float, end: float) -> list[tuple[float, int, str, float]]:
        with self.lock:
            return [answer for answer in self.answers if start <= answer[0] < end]


def auditor_threads(
    port: int,
    sessions: list[str],
    log: AuditorLog,
    args: Any,
    begin: float,
    stop: float,
) -> list[threading.Thread]:
    """The auditors' connections (not started): ``len(sessions)`` auditors, ``args.auditor_parallel``
    connections each, the auditor's requests every ``60 / args.auditor_rate`` seconds spread over
    its connections, until ``stop``."""
    first, last = history_year()
    kinds = [kind.strip() for kind in args.auditor_reports.split(",") if kind.strip()]
    query = f"?date_from={first.isoformat()}&date_to={last.isoformat()}"
    interval = 60 / args.auditor_rate
    parallel = args.auditor_parallel

    def connection(auditor: int, lane: int, session: str) -> None:
        conn = Connection("127.0.0.1", port, timeout=120)
        headers = {"Cookie": f"sessionid={session}", "Host": "127.0.0.1"}
        next_at = begin + interval * (lane + auditor / max(len(sessions), 1))
        sent = lane
        try:
            while True:
                delay = next_at - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                if time.perf_counter() >= stop:
                    return
                next_at = max(next_at + interval * parallel, time.perf_counter())
                path = REPORT_PATHS[kinds[sent % len(kinds)]] + query
                sent += 1
                started = time.perf_counter()
                response = conn.exchange("GET", path, None, headers)
                body = response.read()
                seconds = time.perf_counter() - started
                code = ""
                if response.status != 200:
                    try:
                        code = str(json.loads(body).get("code", ""))
                    except ValueError:
                        code = "?"
                with log.lock:
                    log.answers.append((started, response.status, code, seconds))
                    if response.status not in ALLOWED:
                        log.errors.append(f"auditor {auditor}: {response.status} {body[:200]!r}")
        except Exception as exc:
            with log.lock:
                log.errors.append(f"auditor {auditor}: {exc}")
        finally:
            conn.close()

    return [
        threading.Thread(target=connection, args=(k, lane, session), daemon=True)
        for k, session in enumerate(sessions)
        for lane in range(parallel)
    ]


def summary(values: list[float]) -> tuple[int, float, float, float, float]:
    """(count, p50, p95, p99, max) in ms, as bench_big_room prints them; zeros for no values."""
    if not values:
        return 0, 0.0, 0.0, 0.0, 0.0
    return len(values), ms(values, 0.5), ms(values, 0.95), ms(values, 0.99), 1000 * max(values)


def report_auditors(
    log: AuditorLog, window: tuple[float, float], every_tap: list[float], target_ms: float, args: Any
) -> None:
    """The auditors' answers in the window, and the terminals' p95 beside the target."""
    answers = log.window(*window)
    first, last = history_year()
    print(
        f"\n## Auditors: {args.auditors} x {args.auditor_parallel} connections, {args.auditor_rate:g} "
        f"reports a minute each ({args.auditor_reports}, {first} to {last})"
    )
    print("\n| answers | count | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|---:|")
    by_kind: dict[str, list[float]] = {}
    for _, status, code, seconds in answers:
        by_kind.setdefault(f"{status} {code}".strip(), []).append(seconds)
    for kind in sorted(by_kind):
        n, p50, p95, _, top = summary(by_kind[kind])
        print(f"| {kind} | {n} | {p50:.1f} | {p95:.1f} | {top:.1f} |")
    n, p50, p95, _, top = summary([a[3] for a in answers])
    print(f"| all | {n} | {p50:.1f} | {p95:.1f} | {top:.1f} |")
    statuses = Counter(status for _, status, _, _ in answers)
    print(f"\nstatuses: {dict(sorted(statuses.items()))}; other than 200/429/503: {len(log.errors)}")
    _, _, tap_p95, _, tap_max = summary(every_tap)
    print(
        f"\n| terminal taps while the auditors ran | p95 {tap_p95:.1f} ms, max {tap_max:.1f} ms | "
        f"p95 < {target_ms:.0f} ms: {'**met**' if tap_p95 < target_ms else '**missed**'} |"
    )


def check_books(*, verify: bool) -> tuple[Any, int, int]:
    """bench_hand_api's check: ``verify_ledger()``'s report (``None`` when not ``verify``: a
    generated history is not hash-chained), the hands settled and those left in progress."""
    from django.db import connections

    from tables.choices import HandStatus
    from tables.models import Hand

    if verify:
        return bench_hand_api.check_books()
    settled = Hand.objects.filter(status=HandStatus.SETTLED).count()
    in_progress = Hand.objects.filter(status__in=HandStatus.in_progress()).count()
    connections.close_all()
    return None, settled, in_progress
