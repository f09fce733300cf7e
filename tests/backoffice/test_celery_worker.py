"""A real Celery worker: a subprocess (``celery -A casino worker --pool=solo``) on the machine's
Redis, pointed at this test's database, closes a shift; the test waits for the result and checks
the ShiftClose row. Sending the same job again returns the same close (safe to run twice).

PostgreSQL only: pytest-django's SQLite test database is in memory, which another process can't
open. Skipped when Redis isn't reachable. Each run uses its own queue name (and a Redis database
number of its own, ``LEDGER_TEST_REDIS_DB``, default 13), so parallel runs don't collide.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from django.db import connection

from ledger.models import ShiftClose
from ledger.shifts import Shift, ShiftCode
from tests.factories import ReportRoom, at_local, rpt_fee

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).with_name("celery")


@pytest.fixture
def redis_url() -> str:
    import redis

    url = f"redis://127.0.0.1:6379/{int(os.environ.get('LEDGER_TEST_REDIS_DB', '13'))}"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis is not reachable at {url}: {exc}")
    return url


def _database_url() -> str:
    settings = connection.settings_dict
    user = settings.get("USER") or "postgres"
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    host = settings.get("HOST") or "127.0.0.1"
    port = settings.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


@pytest.fixture
def worker(redis_url: str) -> Iterator[dict[str, Any]]:
    """A worker subprocess on its own queue, and a client app to send it jobs; stopped after."""
    queue = f"ledger-test-{uuid.uuid4().hex}"
    log = tempfile.NamedTemporaryFile(prefix="celery-worker-", suffix=".log", delete=False)  # noqa: SIM115
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "DATABASE_URL": _database_url(),
        "CELERY_BROKER_URL": redis_url,
        "CELERY_RESULT_BACKEND": redis_url,
    }
    process = subprocess.Popen(
        [
            str(CELERY),
            "-A",
            "casino",
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "-Q",
            queue,
            "-n",
            f"{queue}@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-l",
            "info",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    client = Celery("ledger-test-client", broker=redis_url, backend=redis_url)
    client.conf.task_default_queue = queue
    try:
        yield {"client": client, "queue": queue, "process": process, "log": log.name}
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        import redis

        redis.Redis.from_url(redis_url).delete(queue)
        client.close()
        log.close()
        Path(log.name).unlink(missing_ok=True)


@pytest.mark.django_db(transaction=True)
def test_a_worker_closes_a_shift(room: ReportRoom, a_past_day: dt.date, worker: dict[str, Any]) -> None:
    table = room.table(141, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C"])
    for minute in (0, 20, 40):
        room.hand(table, players, at=at_local(a_past_day, 10, minute))
    shift = Shift(a_past_day, ShiftCode.DAY)

    result = worker["client"].send_task("ledger.close_shift", args=[str(shift)], queue=worker["queue"])
    try:
        close_id = result.get(timeout=120)
    except Exception:
        print(Path(worker["log"]).read_text(), file=sys.stderr)  # the worker's log, to see why
        raise
    close = ShiftClose.objects.get(pk=close_id)
    assert close.shift == shift
    assert close.closed_by is None
    assert close.report["totals"]["hands"] == 3
    assert close.report["totals"]["fees_collected_cents"] == 3 * rpt_fee(3)
    assert worker["process"].poll() is None  # still running: it was the worker, not an eager call

    again = worker["client"].send_task("ledger.close_shift", args=[str(shift)], queue=worker["queue"])
    assert again.get(timeout=60) == close_id
    assert ShiftClose.objects.count() == 1
