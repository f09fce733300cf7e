"""Settled hands per second through the dealer terminals' HTTP API, on PostgreSQL, next to
pgbench's own TPS on the same machine.

    .venv/bin/python benchmarks/bench_hand_api.py [--tables 10] [--duration 20] [--rate 20]
        [--paced-duration 15] [--worker-class sync|gthread] [--workers N] [--threads N]
        [--pg postgres://postgres@127.0.0.1:5432]

What it does:

1. creates a fresh database ``casino_bench`` (dropped at the end), migrates it, loads the house
   data, opens ``--tables`` tables (hold'em at no limit $100-no max, and one Chinese poker table
   in five, $1 a point, collection option 2) with six (Chinese poker: four) players bought in;
2. serves the app with the production command (``prod_server.py``: ``collectstatic``, then
   ``gunicorn -c deploy/gunicorn.conf.py``, as ``make serve-prod``), Django with ``DEBUG=0`` and
   each worker's connection pool; ``--worker-class``, ``--workers`` and ``--threads`` are the
   configuration's WORKER_CLASS, WORKERS and THREADS (default: the configuration's own). The
   server's settings are the project's with the no-op route below in front of its URLs
   (``benchmarks/floor_settings.py``);
3. runs one dealer terminal per table, each a client thread with an ``http.client`` connection
   (``prod_server.Connection``) and a session cookie, playing hands: ``POST .../hands/`` (deal in, collect the
   fees), ``POST .../showdown/`` (a random deal: hold'em put-ins and folds, Chinese poker
   settings), ``POST .../confirm/`` (settle), each with its own ``Idempotency-Key``:
   * a free run for ``--duration`` seconds, as fast as the terminals go: settled hands per second;
   * a paced run at ``--rate`` hands per second over all tables (open loop: each terminal starts
     a hand on a fixed schedule, so a slow response delays nothing that comes after it):
     p50/p99 latency per request;
4. measures the stack's floor (``--floor-duration`` seconds, 0 to skip): the same terminals send
   ``POST /bench/noop/`` (``benchmarks/api_floor_urls.py``: the same middleware, session
   authentication, CSRF and ``tables.run_hand`` permission check as "start hand", a parsed JSON
   body, no rows read or written) three at a time, as a hand would; the requests/s, the CPU per
   request (server, PostgreSQL, this client process) and how busy the machine was give the most
   hands per second that three authenticated requests allow on this machine before any work;
5. checks the books afterwards (``verify_ledger``; every hand settled, no request failed);
6. runs ``pgbench -i`` and ``pgbench -c 10 -j 2 -T 10`` against a scratch database and prints its
   TPS next to the figures. Targets: settled hands/s >= pgbench TPS / 10; p99 < 50 ms at 20 hands/s.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The production server (this folder's module).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from prod_server import Connection, Server  # noqa: E402
from prod_server import start as start_server  # noqa: E402

BENCH_DB = "casino_bench"
PGBENCH_DB = "casino_bench_pgbench"
DECK = [rank + suit for rank in "23456789TJQKA" for suit in "shdc"]
RANK = {r: i for i, r in enumerate("23456789TJQKA")}


# --- Databases ------------------------------------------------------------------------------------


def psql(base_url: str, sql: str) -> None:
    subprocess.run(["psql", f"{base_url}/postgres", "-qc", sql], check=True, capture_output=True)


def recreate(base_url: str, name: str) -> None:
    psql(base_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    psql(base_url, f"CREATE DATABASE {name}")


def drop(base_url: str, name: str) -> None:
    psql(base_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def pgbench_tps(base_url: str, clients: int, seconds: int) -> float:
    """pgbench's TPC-B-like TPS with ``clients`` clients for ``seconds`` on a scratch database."""
    recreate(base_url, PGBENCH_DB)
    try:
        url = f"{base_url}/{PGBENCH_DB}"
        subprocess.run(["pgbench", "-i", "-q", url], check=True, capture_output=True)
        out = subprocess.run(
            ["pgbench", "-c", str(clients), "-j", "2", "-T", str(seconds), url],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        match = re.search(r"tps = ([\d.]+)", out)
        if match is None:
            raise RuntimeError(f"no tps in pgbench's output:\n{out}")
        return float(match.group(1))
    finally:
        drop(base_url, PGBENCH_DB)


def postgres_backends(base_url: str) -> list[int]:
    """Process ids of the PostgreSQL backends serving the benchmark's database."""
    out = subprocess.run(
        [
            "psql",
            f"{base_url}/postgres",
            "-Atc",
            f"SELECT pid FROM pg_stat_activity WHERE datname = '{BENCH_DB}'",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [int(line) for line in out.split()]


def cpu_seconds(pids: Iterable[int]) -> float:
    """User + system CPU seconds used so far by ``pids`` (Linux /proc); a vanished pid counts 0."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[int, int]:
    """(all, idle) jiffies of the whole machine so far (Linux /proc/stat, every CPU)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(values), values[3] + values[4]  # idle + iowait


@dataclass
class CpuUse:
    """CPU seconds used over one run: the server (master and workers), PostgreSQL's backends, this
    process (the terminals), and the share of the whole machine that was busy."""

    server: float
    postgres: float
    client: float
    busy: float


class CpuMeter:
    def __init__(self, server: Server, pg_url: str) -> None:
        self.server, self.pg_url = server, pg_url

    def __enter__(self) -> CpuMeter:
        self.pg_pids = postgres_backends(self.pg_url)
        self.start = (
            self.server.cpu_seconds(),
            cpu_seconds(self.pg_pids),
            time.process_time(),
            machine_cpu(),
        )
        return self

    def __exit__(self, *exc: object) -> None:
        server, pg, client, (total, idle) = self.start
        total_now, idle_now = machine_cpu()
        self.use = CpuUse(
            server=self.server.cpu_seconds() - server,
            postgres=cpu_seconds(self.pg_pids) - pg,
            client=time.process_time() - client,
            busy=1 - (idle_now - idle) / max(total_now - total, 1),
        )


# --- The floor: tables, players, a dealer's session --------------------------------------------------------


@dataclass
class TableSetup:
    number: int
    game: str
    seats: list[int]
    session: str = ""  # the session of the table's dealer, clocked in there


def set_up_floor(tables: int) -> tuple[list[TableSetup], str, str]:
    """Tables with players bought in, each with its own dealer clocked in (only they, or the
    floor, run the table's hands) and that dealer's session; returns them with the first table's
    session (for the floor's no-op requests) and a CSRF token."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.auth.models import Group
    from django.contrib.sessions.backends.db import SessionStore
    from django.middleware.csrf import _get_new_csrf_string

    from handflow import services as hand_flow
    from tables import services
    from tables.house_data import load_house_data
    from tables.models import CollectionSchedule, Game, Stakes
    from tables.roles import DEALER, sync_roles

    load_house_data()
    sync_roles()
    setups = []
    for number in range(1, tables + 1):
        chinese = number % 5 == 0
        game, stakes, schedule = (
            ("chinese-poker", "points-1", "CP2") if chinese else ("holdem", "nl-100-nomax", "A")
        )
        table = services.create_table(
            number=number,
            game=Game.objects.get(slug=game),
            stakes=Stakes.objects.get(code=stakes),
            collection_schedule=CollectionSchedule.objects.get(code=schedule),
            by=None,
        )
        services.open_table(table=table, by=None)
        seats = [1, 2, 3, 4] if chinese else [1, 2, 3, 4, 5, 6]
        for seat in seats:
            player = services.create_player(name=f"T{number} S{seat}")
            hand_flow.buy_in(
                table=table,
                player=player,
                amount_cents=1_000_000,
                seat_number=seat,
                by=None,
                idempotency_key=f"bench-{number}-{seat}",
            )
        # No password (never hashed: that took most of a big floor's set-up); the session logs in.
        dealer = get_user_model().objects.create_user(username=f"bench-dealer-{number}", password=None)
        dealer.groups.add(Group.objects.get(name=DEALER))
        services.clock_in(table=table, dealer=dealer, by=dealer)
        session = SessionStore()
        session[SESSION_KEY] = str(dealer.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        session[HASH_SESSION_KEY] = dealer.get_session_auth_hash()
        session.create()
        assert session.session_key is not None
        setups.append(TableSetup(number=number, game=game, seats=seats, session=session.session_key))
    return setups, setups[0].session, _get_new_csrf_string()


# --- The dealer terminals ----------------------------------------------------------------------------------


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    settled: int = 0
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, endpoint: str, seconds: float) -> None:
        with self.lock:
            self.latencies.setdefault(endpoint, []).append(seconds)

    def all(self) -> list[float]:
        return [s for values in self.latencies.values() for s in values]


def showdown(game: str, players: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    deck = rng.sample(DECK, len(DECK))
    seats = [p["seat_number"] for p in players]
    if game == "chinese-poker":
        entries = []
        for k, seat in enumerate(seats):
            cards = sorted(deck[13 * k : 13 * k + 13], key=lambda c: RANK[c[0]], reverse=True)
            entries.append({"seat": seat, "back": cards[:5], "middle": cards[5:10], "front": cards[10:]})
        return {"players": entries}
    live = [rng.random() < 0.6 for _ in seats]
    live[rng.randrange(len(seats))] = True
    bet = rng.choice([200, 400, 1_000, 2_500])
    entries = [
        {
            "seat": seat,
            "cards": deck[5 + 2 * k : 7 + 2 * k],
            "put_in": bet if alive else rng.choice([0, 100, 200]),
        }
        | ({} if alive else {"folded": True})
        for k, (seat, alive) in enumerate(zip(seats, live, strict=True))
    ]
    empty = [e for e in entries if not e["put_in"]]
    if empty and len(empty) == len(entries) - 1:  # a blind in: the engine refuses a pot paying nobody
        empty[0]["put_in"] = 100
    return {"board": deck[:5], "players": entries}


class Terminal:
    """One dealer terminal: a keep-alive connection and the dealer's session."""

    def __init__(
        self, port: int, session: str, csrf: str, setup: TableSetup, stats: Stats, seed: int
    ) -> None:
        self.conn = Connection("127.0.0.1", port, timeout=30)
        self.headers = {
            "Cookie": f"sessionid={setup.session or session}; csrftoken={csrf}",
            "X-CSRFToken": csrf,
            "Content-Type": "application/json",
            "Host": "127.0.0.1",
        }
        self.setup, self.stats, self.rng = setup, stats, random.Random(seed)

    def post(self, endpoint: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
        headers = self.headers | {"Idempotency-Key": uuid.uuid4().hex}
        started = time.perf_counter()
        response = self.conn.exchange("POST", path, json.dumps(body), headers)
        data = response.read()
        self.stats.add(endpoint, time.perf_counter() - started)
        if response.status >= 300:
            raise RuntimeError(f"{endpoint} {path}: {response.status} {data[:300]!r}")
        return dict(json.loads(data))

    def get(self, endpoint: str, path: str) -> dict[str, Any]:
        started = time.perf_counter()
        response = self.conn.exchange("GET", path, None, self.headers)
        data = response.read()
        self.stats.add(endpoint, time.perf_counter() - started)
        if response.status >= 300:
            raise RuntimeError(f"{endpoint} {path}: {response.status} {data[:300]!r}")
        return dict(json.loads(data))

    def play_hand(self) -> None:
        # The terminal shows the next hand's fees and the deal carries them (what was shown is
        # what is taken).
        table = self.setup.number
        fees = self.get("fees", f"/api/terminal/tables/{table}/fees/")
        hand = self.post("start", f"/api/terminal/tables/{table}/hands/", {"expected_fees": fees["dealt"]})
        body = showdown(self.setup.game, hand["players"], self.rng)
        read = self.post("showdown", f"/api/terminal/hands/{hand['id']}/showdown/", body)
        self.post(
            "confirm", f"/api/terminal/hands/{hand['id']}/confirm/", {"revision": read["reading"]["revision"]}
        )
        with self.stats.lock:
            self.stats.settled += 1

    def play_noop(self) -> None:
        """A hand's three requests with no work behind them (the floor; api_floor_urls.py)."""
        for endpoint in ("start", "showdown", "confirm"):
            self.post(endpoint, "/bench/noop/", {"table": self.setup.number})
        with self.stats.lock:
            self.stats.settled += 1


def check_books() -> tuple[Any, int, int]:
    """After a run: ``verify_ledger()``'s report, the hands settled and the hands left in progress
    (then every connection is closed, so the scratch database can be dropped)."""
    from django.db import connections

    from ledger.verification import verify_ledger
    from tables.choices import HandStatus
    from tables.models import Hand

    report = verify_ledger()
    settled = Hand.objects.filter(status=HandStatus.SETTLED).count()
    in_progress = Hand.objects.filter(status__in=HandStatus.in_progress()).count()
    connections.close_all()
    return report, settled, in_progress


def run_terminals(
    port: int,
    session: str,
    csrf: str,
    setups: list[TableSetup],
    seconds: float,
    rate: float | None,
    *,
    noop: bool = False,
) -> tuple[Stats, float]:
    """Every terminal plays hands for ``seconds``: as fast as it can (``rate`` None) or starting
    hands on a fixed schedule, ``rate`` hands per second over all tables. ``noop``: each "hand"
    is three requests to the no-op endpoint instead (the floor)."""
    stats = Stats()
    stop = time.perf_counter() + seconds
    interval = None if rate is None else len(setups) / rate

    def run(i: int, setup: TableSetup) -> None:
        terminal = Terminal(port, session, csrf, setup, stats, seed=i)
        next_start = time.perf_counter() + (0 if interval is None else interval * i / len(setups))
        try:
            while True:
                if interval is not None:
                    delay = next_start - time.perf_counter()
                    if delay > 0:
                        time.sleep(delay)
                    next_start += interval
                if time.perf_counter() >= stop:
                    return
                terminal.play_noop() if noop else terminal.play_hand()
        except Exception as exc:
            with stats.lock:
                stats.errors.append(f"table {setup.number}: {exc}")

    threads = [threading.Thread(target=run, args=(i, s)) for i, s in enumerate(setups)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return stats, time.perf_counter() - started


def ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str]) -> int:
    global BENCH_DB, PGBENCH_DB
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--duration", type=float, default=20, help="free run, seconds")
    parser.add_argument("--rate", type=float, default=20, help="paced run, settled hands per second")
    parser.add_argument("--paced-duration", type=float, default=15)
    parser.add_argument("--worker-class", choices=["sync", "gthread"], help="the server's WORKER_CLASS")
    parser.add_argument("--workers", type=int, help="the server's WORKERS (default: the configuration's)")
    parser.add_argument("--threads", type=int, help="the server's THREADS (gthread)")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    parser.add_argument(
        "--floor-duration", type=float, default=8, help="no-op requests (the stack's floor), seconds; 0 skips"
    )
    parser.add_argument("--pgbench-seconds", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help=f"keep the {BENCH_DB} database")
    parser.add_argument(
        "--db", default=BENCH_DB, help="scratch database (dropped, created); runs at once need their own"
    )
    args = parser.parse_args(argv[1:])
    BENCH_DB, PGBENCH_DB = args.db, f"{args.db}_pgbench"

    recreate(args.pg, BENCH_DB)
    os.environ.update(
        {
            "DATABASE_URL": f"{args.pg}/{BENCH_DB}",
            "DEBUG": "0",
            "SECRET_KEY": "bench-" + uuid.uuid4().hex + uuid.uuid4().hex,  # DEBUG=0: 50+ characters
            "SECURE_SSL_REDIRECT": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "ERROR",
            "DJANGO_SETTINGS_MODULE": "casino.settings",
            # Production settings refuse the public development ledger keys: fresh ones for the run.
            "LEDGER_KEYS": "bench:" + base64.b64encode(os.urandom(32)).decode(),
            "LEDGER_KEY_ID": "bench",
            "LEDGER_ANCHOR_SIGNING_KEY": "bench:" + base64.b64encode(os.urandom(32)).decode(),
        }
    )
    for name in ("CONN_MAX_AGE", "DATABASE_POOL_MAX", "DATABASE_OWNER_URL"):
        os.environ.pop(name, None)  # the server's configuration pools its connections
    server: Server | None = None
    log = Path(tempfile.mkdtemp(prefix="bench-hand-api-")) / "server.log"
    try:
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        setups, session, csrf = set_up_floor(args.tables)
        from django.db import connections

        connections.close_all()
        # The project's URLs with the no-op floor endpoint in front (benchmark code only).
        server = start_server(
            os.environ | {"DJANGO_SETTINGS_MODULE": "benchmarks.floor_settings"},
            log=log,
            worker_class=args.worker_class,
            workers=args.workers,
            threads=args.threads,
        )
        port = server.port
        print(
            f"{args.tables} tables ({sum(s.game == 'holdem' for s in setups)} hold'em, "
            f"{sum(s.game != 'holdem' for s in setups)} Chinese poker); gunicorn -c deploy/gunicorn.conf.py: "
            f"{server.describe()}; one terminal per table",
            flush=True,
        )
        warm, _ = run_terminals(port, session, csrf, setups, 2, None)  # imports, connections, caches
        with CpuMeter(server, args.pg) as free_cpu:
            free, free_elapsed = run_terminals(port, session, csrf, setups, args.duration, None)
        paced, paced_elapsed = run_terminals(port, session, csrf, setups, args.paced_duration, args.rate)
        floor: Stats | None = None
        if args.floor_duration > 0:
            floor_warm, _ = run_terminals(port, session, csrf, setups, 1, None, noop=True)  # warm the route
            with CpuMeter(server, args.pg) as floor_cpu:
                floor, floor_elapsed = run_terminals(
                    port, session, csrf, setups, args.floor_duration, None, noop=True
                )
        problems = warm.errors + free.errors + paced.errors
        if floor is not None:
            problems += floor_warm.errors + floor.errors
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(log.parent, ignore_errors=True)

    report, settled_in_db, in_progress = check_books()
    tps = pgbench_tps(args.pg, clients=10, seconds=args.pgbench_seconds)
    if not args.keep:
        drop(args.pg, BENCH_DB)

    rate = free.settled / free_elapsed
    requests = free.all()
    print(f"\nfree run: {free.settled} hands settled in {free_elapsed:.1f} s, {len(requests)} requests")
    print(f"paced run: {paced.settled} hands settled in {paced_elapsed:.1f} s (target {args.rate:g}/s)")
    print(
        f"books: verify_ledger ok={report.ok}, {settled_in_db} hands settled, {in_progress} left in progress"
    )
    if problems:
        print("errors:", *problems[:10], sep="\n  ")
    print()
    print("| figure | value | target |\n|---|---:|---|")
    print(
        f"| settled hands/s (free run, {args.tables} terminals) | {rate:,.1f} | "
        f">= {tps / 10:,.1f} (pgbench / 10) |"
    )
    print(f"| pgbench TPS (-c 10 -j 2 -T {args.pgbench_seconds}, TPC-B) | {tps:,.1f} | ceiling |")
    print(f"| requests/s (free run) | {len(requests) / free_elapsed:,.1f} | |")
    cpus = os.cpu_count() or 1
    if free.settled:
        use = free_cpu.use
        print(
            f"| CPU per settled hand (free run): app / PostgreSQL / terminals | "
            f"{1000 * use.server / free.settled:,.1f} / {1000 * use.postgres / free.settled:,.1f} / "
            f"{1000 * use.client / free.settled:,.1f} ms | machine {100 * use.busy:.0f}% busy, {cpus} CPUs |"
        )
    if floor is not None and floor.settled:
        use, n = floor_cpu.use, len(floor.all())
        floor_rate = floor.settled / floor_elapsed
        print(
            f'| floor: 3 authenticated no-op requests as a hand (free run) | {floor_rate:,.1f} "hands"/s, '
            f"{n / floor_elapsed:,.0f} requests/s | machine {100 * use.busy:.0f}% busy |"
        )
        print(
            f"| floor CPU per request: server / PostgreSQL / terminals | {1000 * use.server / n:.2f} / "
            f"{1000 * use.postgres / n:.2f} / {1000 * use.client / n:.2f} ms | |"
        )
        per_hand = 3 * (use.server + use.postgres + use.client) / n
        print(
            f"| floor: the most hands/s {cpus} CPUs allow for three such requests and nothing else | "
            f"{cpus / per_hand:,.1f} | vs target {tps / 10:,.1f} |"
        )
    print(f"| latency p50 / p99, free run | {ms(requests, 0.5):.1f} / {ms(requests, 0.99):.1f} ms | |")
    paced_all = paced.all()
    print(
        f"| latency p50 / p99 at {paced.settled / paced_elapsed:.1f} hands/s (paced) | "
        f"{ms(paced_all, 0.5):.1f} / {ms(paced_all, 0.99):.1f} ms | p99 < 50 ms |"
    )
    for endpoint in ("fees", "start", "showdown", "confirm"):
        values = paced.latencies.get(endpoint, [])
        if values:
            print(
                f"| paced {endpoint}: p50 / p99 / mean | {ms(values, 0.5):.1f} / {ms(values, 0.99):.1f} / "
                f"{1000 * statistics.fmean(values):.1f} ms | |"
            )
    played = warm.settled + free.settled + paced.settled
    ok = report.ok and not problems and in_progress == 0 and settled_in_db == played
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
