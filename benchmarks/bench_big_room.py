"""The biggest room on one small server: 240 dealer terminals at 2.5 hands a second in all and 10
floor screens, through the production server, on PostgreSQL.

    .venv/bin/python benchmarks/bench_big_room.py [--tables 240] [--rate 2.5] [--duration 60]
        [--play 20] [--confirm-after 3] [--floor-screens 10] [--floor-every 10]
        [--headroom 30] [--headroom-terminals 20] [--worker-class sync|gthread] [--workers N]
        [--threads N] [--pg postgres://postgres@127.0.0.1:5432] [--pg-db casino_bench_big_room]
        [--auditors N --auditor-parallel 8 --auditor-rate 60 --history-hands H --history-tables 30]

What it does:

1. makes the scratch database ``--pg-db`` (dropped and created), migrates it, loads the house data
   and opens ``--tables`` tables as ``bench_terminal.py`` does (hold'em at no limit, one Chinese
   poker table in five, six or four players bought in, a dealer of its own clocked in at each), and
   logs a floor manager in for the floor screens;
2. serves the app with the production command (``prod_server.py``: ``collectstatic``, then
   ``gunicorn -c deploy/gunicorn.conf.py``, as ``make serve-prod``); ``--worker-class``,
   ``--workers``, ``--threads`` are its WORKER_CLASS, WORKERS, THREADS (default: its own);
3. **the room**: one terminal per table, each sending what the dealer terminal's screen sends
   (``bench_terminal.Terminal``: the next-hand panel drawn again in one hand in four, the deal with
   the fees shown, the entry read, twice in one hand in four, the confirmation), with a dealer's
   time between taps: the hand is played for about ``--play`` seconds (0.5-1.5 times) between the
   deal and the reading, a corrected card takes 2-5 s, the confirmation comes about
   ``--confirm-after`` seconds after the reading. Each table starts a hand every ``--tables /
   --rate`` seconds (96 s by default: 37.5 hands an hour), the tables staggered over that interval,
   so the room deals ``--rate`` hands a second. Meanwhile ``--floor-screens`` floor screens load the
   floor overview (``/``, every open table with its hands and fees this shift) every
   ``--floor-every`` seconds (the page itself refreshes every 30 s; 10 s is three times that).
   The first ``--play + --confirm-after + 5`` seconds are not measured (until every kind of tap is
   being made), then ``--duration`` seconds are; after that no hand is started and the hands in
   play are finished;
4. **headroom** (``--headroom`` seconds, 0 skips): ``--headroom-terminals`` terminals play hands
   back to back without a pause, the most hands a second the server settles here, and the CPU a
   hand takes (server, PostgreSQL, this process's terminals);
5. prints, for the room, each tap's p50 / p95 / p99 / max and the floor page's, the hands a second
   reached, the server's resident memory (the sum over the gunicorn master and its workers, polled
   from ``/proc``, the peak), the most PostgreSQL connections to the database at once (polled from
   ``pg_stat_activity``), the CPU a hand took and how busy the machine was, next to the targets
   (p95 per tap < 150 ms, none over 1 s, < 2 GiB, <= 40 connections); then the headroom figures;
   then checks the books (``verify_ledger``, every hand settled, none left in progress, no request
   refused). Loopback only; bounded by ``--duration`` and ``--headroom``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import random
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_terminal  # noqa: E402
import big_room_auditors  # noqa: E402
from bench_hand_api import cpu_seconds, drop, machine_cpu, ms, recreate  # noqa: E402
from bench_terminal import INTERACTIONS, TableSetup, Terminal  # noqa: E402
from prod_server import Connection, Server  # noqa: E402
from prod_server import start as start_server  # noqa: E402

TARGET_P95_MS = 150.0
TARGET_MAX_MS = 1000.0
TARGET_RSS_BYTES = 2 * 1024**3
TARGET_PG_CONNECTIONS = 40
POLL_SECONDS = 0.5
MIB = 1024**2


# --- What is measured -------------------------------------------------------------------------------------


@dataclass
class Timeline(bench_terminal.Stats):
    """bench_terminal's per-kind latencies, and each answer's start time, to cut out a window."""

    taps: list[tuple[float, str, float]] = field(default_factory=list)

    def add(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.latencies.setdefault(kind, []).append(seconds)
            self.taps.append((time.perf_counter() - seconds, kind, seconds))

    def window(self, start: float, end: float) -> dict[str, list[float]]:
        """The latencies of the answers started in [start, end), by kind."""
        kinds: dict[str, list[float]] = {}
        with self.lock:
            for started, kind, seconds in self.taps:
                if start <= started < end:
                    kinds.setdefault(kind, []).append(seconds)
        return kinds


def summary(values: list[float]) -> tuple[int, float, float, float, float]:
    """(count, p50, p95, p99, max) in ms; zeros for no values."""
    if not values:
        return 0, 0.0, 0.0, 0.0, 0.0
    return len(values), ms(values, 0.5), ms(values, 0.95), ms(values, 0.99), 1000 * max(values)


def bench_key(purpose: str) -> str:
    """A 32-byte key for the scratch database's ledger, base64 (fixed: a benchmark's, not a secret)."""
    return base64.b64encode(hashlib.sha256(f"bench_big_room {purpose}".encode()).digest()).decode()


def verdict(met: bool) -> str:
    return "**met**" if met else "**missed**"


class Monitor(threading.Thread):
    """Polls, every :data:`POLL_SECONDS`, the server's resident memory (master + workers) and the
    connections to the benchmark's database in ``pg_stat_activity``, keeping the peaks, and reads
    each of those backends' CPU from ``/proc`` (a backend that went keeps its last reading)."""

    def __init__(self, server: Server, pg: str, db: str) -> None:
        super().__init__(daemon=True)
        self.server, self.db = server, db
        self.conn = psycopg.connect(f"{pg}/postgres", autocommit=True)
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.peak_rss = self.peak_connections = 0
        self.workers = 0
        self.backend_cpu: dict[int, float] = {}

    def poll(self) -> None:
        rss = self.server.rss_bytes()
        workers = len(self.server.workers())
        pids = [
            row[0]
            for row in self.conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [self.db]
            )
        ]
        with self.lock:
            self.peak_rss = max(self.peak_rss, rss)
            self.peak_connections = max(self.peak_connections, len(pids))
            self.workers = max(self.workers, workers)
            for pid in pids:
                seconds = cpu_seconds([pid])
                if seconds or pid not in self.backend_cpu:
                    self.backend_cpu[pid] = seconds

    def reset_peaks(self) -> None:
        with self.lock:
            self.peak_rss = self.peak_connections = self.workers = 0

    def postgres_cpu(self) -> float:
        """CPU seconds of the database's backends so far (polled now)."""
        self.poll()
        with self.lock:
            return sum(self.backend_cpu.values())

    def run(self) -> None:
        while not self.stopped.wait(POLL_SECONDS):
            self.poll()

    def stop(self) -> None:
        self.stopped.set()
        self.join()
        self.conn.close()


@dataclass
class Use:
    """CPU seconds over a window: the server (master and workers), PostgreSQL's backends, this
    process (terminals, floor screens, the monitor), and the share of the machine that was busy."""

    server: float
    postgres: float
    client: float
    busy: float
    load: tuple[float, float]


@contextmanager
def metered(server: Server, monitor: Monitor) -> Iterator[list[Use]]:
    """Meters the CPU used in the block; the :class:`Use` is in the yielded list afterwards."""
    out: list[Use] = []
    load = os.getloadavg()[0]
    start = (server.cpu_seconds(), monitor.postgres_cpu(), time.process_time(), machine_cpu())
    yield out
    (total, idle), (total_now, idle_now) = start[3], machine_cpu()
    out.append(
        Use(
            server=server.cpu_seconds() - start[0],
            postgres=monitor.postgres_cpu() - start[1],
            client=time.process_time() - start[2],
            busy=1 - (idle_now - idle) / max(total_now - total, 1),
            load=(load, os.getloadavg()[0]),
        )
    )


# --- The room --------------------------------------------------------------------------------------------


FLOOR_MANAGER_NAME = "bench-floor-manager"


def session_for(username: str) -> str:
    """A new logged-in session of the user ``username`` (as the login page makes one)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    user = get_user_model().objects.get(username=username)
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    assert session.session_key is not None
    return session.session_key


def set_up_room(tables: int) -> tuple[list[TableSetup], str]:
    """bench_terminal's floor of ``tables`` tables, and the session of a floor manager."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from tables.roles import FLOOR_MANAGER

    setups = bench_terminal.set_up_floor(tables)
    manager = get_user_model().objects.create_user(username=FLOOR_MANAGER_NAME, password=None)
    manager.groups.add(Group.objects.get(name=FLOOR_MANAGER))
    return setups, session_for(FLOOR_MANAGER_NAME)


def reuse_room(tables: int) -> tuple[list[TableSetup], str]:
    """The room a run with ``--keep`` left (every hand settled there): its first ``tables`` tables,
    each dealer and the floor manager logged in again."""
    from django.middleware.csrf import _get_new_csrf_string

    from tables.models import Table

    csrf = _get_new_csrf_string()
    setups = [
        TableSetup(table.number, table.game.slug, session_for(f"bench-dealer-{table.number}"), csrf)
        for table in Table.objects.filter(number__lte=tables).select_related("game").order_by("number")
    ]
    if len(setups) < tables:
        raise SystemExit(f"--reuse: the kept database has {len(setups)} tables, not {tables}")
    return setups, session_for(FLOOR_MANAGER_NAME)


def dealer_think(rng: random.Random, play: float, confirm_after: float) -> Callable[[str], None]:
    """The dealer's time before each tap after the deal (``Terminal.play_hand``'s ``think``)."""

    def think(tap: str) -> None:
        if tap == "read":  # the hand is played: the reading comes at the showdown
            time.sleep(rng.uniform(0.5, 1.5) * play)
        elif tap == "reread":  # a card tapped wrong, corrected
            time.sleep(rng.uniform(2, 5))
        else:  # the reading checked, then confirmed
            time.sleep(rng.uniform(0.5, 1.5) * confirm_after)

    return think


def floor_screen(
    port: int, session: str, stats: Timeline, first: float, every: float, stop: float
) -> Callable[[], None]:
    """A floor screen: ``GET /`` (the floor overview) at ``first``, then every ``every`` seconds."""

    def run() -> None:
        conn = Connection("127.0.0.1", port, timeout=30)
        headers = {"Cookie": f"sessionid={session}", "Host": "127.0.0.1"}
        next_load = first
        try:
            while True:
                delay = next_load - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                if time.perf_counter() >= stop:
                    return
                next_load += every
                started = time.perf_counter()
                response = conn.exchange("GET", "/", None, headers)
                body = response.read()
                stats.add("floor", time.perf_counter() - started)
                if response.status != 200 or b"refreshes every" not in body:
                    raise RuntimeError(f"floor overview: {response.status} {body[:200]!r}")
        except Exception as exc:
            with stats.lock:
                stats.errors.append(f"floor screen: {exc}")
        finally:
            conn.close()

    return run


def terminals_resent(terminals: list[Terminal]) -> int:
    return sum(t.conn.resent for t in terminals)


def run_room(
    port: int,
    setups: list[TableSetup],
    floor_session: str,
    args: argparse.Namespace,
    beside: Callable[[float, float], list[threading.Thread]] | None = None,
) -> tuple[Timeline, Timeline, float, float, list[Terminal]]:
    """The room: every terminal and floor screen until the measured window ends, then the hands in
    play finished; ``beside(begin, window_end)``'s threads (the auditors) run along. Returns the
    terminals' and floor screens' timelines, the window and the terminals."""
    taps, floor = Timeline(), Timeline()
    interval = len(setups) / args.rate
    begin = time.perf_counter()
    window_start = begin + args.play * 1.5 + args.confirm_after * 1.5 + 5
    window_end = window_start + args.duration
    terminals: list[Terminal] = []
    lock = threading.Lock()

    def terminal(i: int, setup: TableSetup) -> None:
        rng = random.Random(args.seed * 1000 + i)
        screen = Terminal(port, setup, taps, seed=args.seed + i)
        with lock:
            terminals.append(screen)
        think = dealer_think(rng, args.play, args.confirm_after)
        next_start = begin + interval * i / len(setups)
        played = i  # the terminals' redraws and second readings fall on different hands
        try:
            while True:
                delay = next_start - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                if time.perf_counter() >= window_end:
                    return
                next_start += interval
                played += 1
                screen.play_hand(
                    refresh=args.refresh_every > 0 and played % args.refresh_every == 0,
                    reread=args.reread_every > 0 and played % args.reread_every == 0,
                    think=think,
                )
        except Exception as exc:
            with taps.lock:
                taps.errors.append(f"table {setup.number}: {exc}")
        finally:
            screen.conn.close()

    threads = [
        threading.Thread(target=terminal, args=(i, setup), daemon=True) for i, setup in enumerate(setups)
    ]
    threads += [
        threading.Thread(
            target=floor_screen(
                port,
                floor_session,
                floor,
                begin + args.floor_every * k / max(args.floor_screens, 1),
                args.floor_every,
                window_end,
            ),
            daemon=True,
        )
        for k in range(args.floor_screens)
    ]
    if beside is not None:
        threads += beside(begin, window_end)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return taps, floor, window_start, window_end, terminals


def run_headroom(
    port: int, setups: list[TableSetup], seconds: float, seed: int
) -> tuple[Timeline, float, float]:
    """``setups``' terminals play hands back to back for 3 s unmeasured, then ``seconds``; returns
    the timeline and the measured window."""
    taps = Timeline()
    begin = time.perf_counter()
    window_start, window_end = begin + 3, begin + 3 + seconds

    def terminal(i: int, setup: TableSetup) -> None:
        screen = Terminal(port, setup, taps, seed=seed + 5000 + i)
        played = i
        try:
            while time.perf_counter() < window_end:
                played += 1
                screen.play_hand(refresh=played % 4 == 0, reread=played % 4 == 0)
        except Exception as exc:
            with taps.lock:
                taps.errors.append(f"headroom table {setup.number}: {exc}")
        finally:
            screen.conn.close()

    threads = [threading.Thread(target=terminal, args=(i, s), daemon=True) for i, s in enumerate(setups)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return taps, window_start, window_end


# --- Reporting -------------------------------------------------------------------------------------------


def print_latencies(
    title: str, kinds: dict[str, list[float]], *, floor: list[float] | None = None, targets: bool = False
) -> None:
    print(f"\n| {title} | answers | p50 ms | p95 ms | p99 ms | max ms | target |")
    print("|---|---:|---:|---:|---:|---:|---|")
    every = [s for kind in INTERACTIONS for s in kinds.get(kind, [])]
    for kind in (*INTERACTIONS, "all taps"):
        values = every if kind == "all taps" else kinds.get(kind, [])
        n, p50, p95, p99, top = summary(values)
        if not n:
            continue
        target = ""
        if kind == "all taps" and targets:
            target = (
                f"p95 < {TARGET_P95_MS:.0f} ms: {verdict(p95 < TARGET_P95_MS)}; "
                f"max < {TARGET_MAX_MS:.0f} ms: {verdict(top < TARGET_MAX_MS)}"
            )
        print(f"| {kind} | {n} | {p50:.1f} | {p95:.1f} | {p99:.1f} | {top:.1f} | {target} |")
    if floor:
        n, p50, p95, p99, top = summary(floor)
        print(f"| floor overview (`/`) | {n} | {p50:.1f} | {p95:.1f} | {p99:.1f} | {top:.1f} | |")


def cpu_line(use: Use, hands: int) -> str:
    return (
        f"server {1000 * use.server / hands:.1f} ms, PostgreSQL {1000 * use.postgres / hands:.1f} ms, "
        f"terminals {1000 * use.client / hands:.1f} ms"
    )


def report_room(
    args: argparse.Namespace,
    taps: Timeline,
    floor: Timeline,
    window: tuple[float, float],
    use: Use,
    peaks: tuple[int, int, int],
) -> None:
    """The room's figures, next to the targets."""
    kinds = taps.window(*window)
    every_tap = [s for kind in INTERACTIONS for s in kinds.get(kind, [])]
    _, _, p95, _, top = summary(every_tap)
    peak_rss, peak_connections, workers = peaks
    print_latencies("tap", kinds, floor=floor.window(*window).get("floor", []), targets=True)
    print("\n| figure | value | target |\n|---|---:|---|")
    reached = len(kinds.get("confirm", [])) / args.duration
    print(f"| hands/s reached (confirmed in the window) | {reached:.2f} of {args.rate:g} | |")
    print(
        f"| p95 / max per tap | {p95:.1f} / {top:.1f} ms | < {TARGET_P95_MS:.0f} ms: "
        f"{verdict(p95 < TARGET_P95_MS)}; < {TARGET_MAX_MS:.0f} ms: {verdict(top < TARGET_MAX_MS)} |"
    )
    print(
        f"| server resident memory, peak (master + {workers} workers) | {peak_rss / MIB:,.0f} MiB | "
        f"< {TARGET_RSS_BYTES / MIB:,.0f} MiB: {verdict(peak_rss < TARGET_RSS_BYTES)} |"
    )
    print(
        f"| PostgreSQL connections to the database, peak | {peak_connections} | "
        f"<= {TARGET_PG_CONNECTIONS}: {verdict(peak_connections <= TARGET_PG_CONNECTIONS)} |"
    )
    hands = max(len(taps.latencies.get("confirm", [])), 1)
    print(f"| CPU per hand over the whole room run | {cpu_line(use, hands)} | |")
    print(
        f"| machine busy (whole room run) / load average before, after | {100 * use.busy:.0f}% / "
        f"{use.load[0]:.2f}, {use.load[1]:.2f} | |"
    )


def report_headroom(taps: Timeline, start: float, end: float, use: Use, peaks: tuple[int, int, int]) -> None:
    """The headroom run's figures: hands/s settled, and what a hand costs."""
    print_latencies("tap (headroom)", taps.window(start, end))
    hands = max(len(taps.latencies.get("confirm", [])), 1)
    per_hand = (use.server + use.postgres) / hands
    cpus = os.cpu_count() or 1
    print("\n| figure | value |\n|---|---:|")
    print(f"| hands/s settled | {len(taps.window(start, end).get('confirm', [])) / (end - start):.1f} |")
    print(f"| CPU per hand | {cpu_line(use, hands)} |")
    bound = cpus / per_hand
    print(f"| hands/s the {cpus} CPUs allow the server and PostgreSQL alone at that cost | {bound:.1f} |")
    print(
        f"| machine busy / load average before, after | {100 * use.busy:.0f}% / "
        f"{use.load[0]:.2f}, {use.load[1]:.2f} |"
    )
    rss, connections = peaks[0] / MIB, peaks[1]
    print(f"| server resident memory, peak / PostgreSQL connections, peak | {rss:,.0f} MiB / {connections} |")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=240, help="dealer terminals, one per table")
    parser.add_argument("--rate", type=float, default=2.5, help="hands a second over all tables")
    parser.add_argument("--duration", type=float, default=60, help="measured seconds of the room")
    parser.add_argument("--play", type=float, default=20, help="mean seconds from the deal to the reading")
    parser.add_argument("--confirm-after", type=float, default=3, help="mean seconds from reading to confirm")
    parser.add_argument(
        "--refresh-every", type=int, default=4, help="one hand in N redraws the panel (0: never)"
    )
    parser.add_argument("--reread-every", type=int, default=4, help="one hand in N is read twice (0: never)")
    parser.add_argument("--floor-screens", type=int, default=10)
    parser.add_argument(
        "--floor-every", type=float, default=10, help="seconds between a floor screen's loads"
    )
    parser.add_argument("--headroom", type=float, default=30, help="seconds of hands back to back (0 skips)")
    parser.add_argument("--headroom-terminals", type=int, default=20)
    parser.add_argument("--worker-class", choices=["sync", "gthread"], help="the server's WORKER_CLASS")
    parser.add_argument("--workers", type=int, help="the server's WORKERS (default: the configuration's)")
    parser.add_argument("--threads", type=int, help="the server's THREADS (gthread)")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    parser.add_argument(
        "--pg-db", default="casino_bench_big_room", help="scratch database (dropped, created)"
    )
    parser.add_argument(
        "--auditors", type=int, default=0, help="auditors running the year's reports (big_room_auditors.py)"
    )
    parser.add_argument("--auditor-parallel", type=int, default=8, help="each auditor's connections")
    parser.add_argument(
        "--auditor-rate", type=float, default=60, help="reports a minute per auditor (the server allows 60)"
    )
    parser.add_argument(
        "--auditor-reports", default="collection", help="comma-separated: collection, dealer-downs, ..."
    )
    parser.add_argument(
        "--history-hands", type=int, default=0, help="a year of hands for the reports (bench_reports.py's)"
    )
    parser.add_argument("--history-tables", type=int, default=30, help="the history's tables")
    parser.add_argument("--reports-at-once", type=int, help="the server's REPORTS_AT_ONCE (default: its own)")
    parser.add_argument("--reports-per-user", type=int, help="the server's REPORTS_AT_ONCE_PER_USER")
    parser.add_argument(
        "--report-timeout-ms", type=int, help="the server's REPORT_STATEMENT_TIMEOUT_MS (default: its own)"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument(
        "--reuse", action="store_true", help="play in the room a run with --keep left (no set-up)"
    )
    args = parser.parse_args(argv[1:])
    if args.tables < 1 or args.rate <= 0 or args.duration <= 0 or args.headroom < 0:
        parser.error("--tables, --rate and --duration must be positive, --headroom not negative")

    if not args.reuse:
        recreate(args.pg, args.pg_db)
    os.environ.update(
        {
            "DATABASE_URL": f"{args.pg}/{args.pg_db}",
            "DEBUG": "0",
            "SECRET_KEY": "bench-" + uuid.uuid4().hex + uuid.uuid4().hex,  # DEBUG=0: 50+ characters
            "SECURE_SSL_REDIRECT": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "ERROR",
            "ACCESS_LOG": "off",
            "DJANGO_SETTINGS_MODULE": "casino.settings",
            # DEBUG=0 refuses the public development ledger keys. The benchmark's own, the same in
            # every run, so that --reuse verifies the chain an earlier run keyed.
            "LEDGER_KEYS": "bench:" + bench_key("chain"),
            "LEDGER_KEY_ID": "bench",
            "LEDGER_ANCHOR_SIGNING_KEY": "bench:" + bench_key("anchor"),
        }
    )
    for name in ("CONN_MAX_AGE", "DATABASE_POOL_MAX", "DATABASE_OWNER_URL", "CELERY_BROKER_URL"):
        os.environ.pop(name, None)  # the server's configuration pools its connections
    for name, value in (
        ("REPORTS_AT_ONCE", args.reports_at_once),
        ("REPORTS_AT_ONCE_PER_USER", args.reports_per_user),
        ("REPORT_STATEMENT_TIMEOUT_MS", args.report_timeout_ms),
    ):
        if value is not None:
            os.environ[name] = str(value)
    auditor_log = big_room_auditors.AuditorLog()
    scratch = Path(tempfile.mkdtemp(prefix="bench-big-room-"))
    server: Server | None = None
    monitor: Monitor | None = None
    headroom: tuple[Timeline, float, float] | None = None
    headroom_use: list[Use] = []
    headroom_peaks = (0, 0, 0)
    chosen: list[TableSetup] = []
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        started = time.perf_counter()
        from tables.choices import HandStatus
        from tables.models import Hand

        if args.reuse:
            setups, floor_session = reuse_room(args.tables)
        else:
            call_command("migrate", verbosity=0)
            if args.history_hands:
                big_room_auditors.back_date_house_data()
            setups, floor_session = set_up_room(args.tables)
            if args.history_hands:
                counts = big_room_auditors.add_history(args.history_hands, args.history_tables)
                print(
                    f"history: {counts['hands']:,} hands of a year over {args.history_tables} tables "
                    f"({counts['entries']:,} entries in all) in {counts['seconds']:.0f} s",
                    flush=True,
                )
        history = big_room_auditors.has_history()
        auditor_sessions = [session_for(name) for name in big_room_auditors.auditor_users(args.auditors)]
        settled_before = Hand.objects.filter(status=HandStatus.SETTLED).count()
        connections.close_all()  # only the server's connections count
        made = "reused" if args.reuse else "set up"
        print(f"{made} {args.tables} tables in {time.perf_counter() - started:.0f} s", flush=True)
        server = start_server(
            os.environ,
            log=scratch / "server.log",
            worker_class=args.worker_class,
            workers=args.workers,
            threads=args.threads,
        )
        monitor = Monitor(server, args.pg, args.pg_db)
        monitor.start()
        holdem = sum(s.game == "holdem" for s in setups)
        print(
            f"room: {args.tables} terminals ({holdem} hold'em, {args.tables - holdem} Chinese poker), "
            f"{args.rate:g} hands/s asked (a hand every {args.tables / args.rate:.0f} s a table), "
            f"{args.floor_screens} floor screens every {args.floor_every:g} s; gunicorn -c "
            f"deploy/gunicorn.conf.py, {server.describe()}; {os.cpu_count()} CPUs, load average "
            f"{os.getloadavg()[0]:.2f}",
            flush=True,
        )
        begin = time.perf_counter()
        with metered(server, monitor) as room_use:
            port = server.port
            taps, floor, window_start, window_end, terminals = run_room(
                port,
                setups,
                floor_session,
                args,
                beside=lambda begin, stop: big_room_auditors.auditor_threads(
                    port, auditor_sessions, auditor_log, args, begin, stop
                ),
            )
        print(f"room run took {time.perf_counter() - begin:.0f} s", flush=True)
        room_peaks = (monitor.peak_rss, monitor.peak_connections, monitor.workers)
        if args.headroom > 0:
            monitor.reset_peaks()
            chosen = setups[: args.headroom_terminals]
            with metered(server, monitor) as headroom_use:
                headroom = run_headroom(server.port, chosen, args.headroom, args.seed)
            headroom_peaks = (monitor.peak_rss, monitor.peak_connections, monitor.workers)
    finally:
        if monitor is not None:
            monitor.stop()
        if server is not None:
            server.stop()
        shutil.rmtree(scratch, ignore_errors=True)

    report, settled, in_progress = big_room_auditors.check_books(verify=not history)
    if not args.keep:
        drop(args.pg, args.pg_db)

    print(f"\n## The room: {args.duration:g} s measured (after {window_start - begin:.0f} s unmeasured)")
    report_room(args, taps, floor, (window_start, window_end), room_use[0], room_peaks)
    print(f"| requests sent again on a connection the server had closed | {terminals_resent(terminals)} | |")
    problems = taps.errors + floor.errors + auditor_log.errors
    if args.auditors:
        kinds = taps.window(window_start, window_end)
        every_tap = [s for kind in INTERACTIONS for s in kinds.get(kind, [])]
        big_room_auditors.report_auditors(
            auditor_log, (window_start, window_end), every_tap, TARGET_P95_MS, args
        )
    if headroom is not None:
        print(f"\n## Headroom: {len(chosen)} terminals, hands back to back, {args.headroom:g} s measured")
        report_headroom(*headroom, headroom_use[0], headroom_peaks)
        problems += headroom[0].errors
    verified = f"verify_ledger ok={report.ok}" if report is not None else "verify_ledger skipped (history)"
    print(f"\nbooks: {verified}, {settled} hands settled, {in_progress} left in progress")
    if problems:
        print(f"errors ({len(problems)}):", *problems[:10], sep="\n  ")
    played = len(taps.latencies.get("confirm", [])) + (
        len(headroom[0].latencies.get("confirm", [])) if headroom is not None else 0
    )
    ok = (
        (report is None or report.ok)
        and not problems
        and in_progress == 0
        and settled - settled_before == played
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
