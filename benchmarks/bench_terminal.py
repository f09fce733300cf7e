"""How fast the dealer terminal's screen answers a tap while 10 terminals play 20 hands a second.

    .venv/bin/python benchmarks/bench_terminal.py [--db sqlite|postgres] [--tables 10] [--rate 20]
        [--duration 20] [--warmup 3] [--refresh-every 4] [--reread-every 4]
        [--worker-class sync|gthread] [--workers N] [--threads N]
        [--pg postgres://postgres@127.0.0.1:5432] [--pg-db casino_bench_terminal]

What it does:

1. makes a scratch database (``--db sqlite``: a new file in a temporary folder, the project's
   default engine, dropped at the end; ``--db postgres``: ``--pg-db`` on ``--pg``, dropped and
   created), migrates it, loads the house data and opens ``--tables`` tables (hold'em at no limit,
   and one Chinese poker table in five, as ``bench_hand_api.py``) with six (four) players bought
   in, and clocks a dealer of its own in at each table (only the dealer on duty deals there);
2. serves the app with the production command, as ``bench_hand_api.py`` does (``prod_server.py``:
   ``collectstatic``, then ``gunicorn -c deploy/gunicorn.conf.py``), Django with ``DEBUG=0`` and
   each worker's connection pool on PostgreSQL; ``--worker-class``, ``--workers``, ``--threads``
   are the configuration's WORKER_CLASS, WORKERS, THREADS (default: its own);
3. runs one terminal per table, each a connection with its dealer's session cookie,
   sending exactly the requests the page sends (htmx: ``HX-Request: true``, form-encoded bodies
   with the page's CSRF token, each answered by the screen's body): per hand, the deal with the
   fees the screen shows (``POST /tables/<n>/start/``), the showdown entry read
   (``POST /hands/<id>/showdown/``: a seeded random deal, as the screen posts it once the last card
   is tapped) and the confirmation (``POST /hands/<id>/confirm/`` with the revision shown), whose
   answer is the next hand's screen; and in one hand in ``--refresh-every`` the next-hand panel
   drawn again first (``GET /tables/<n>/``, as a game picked or a seat sitting out does), in one
   hand in ``--reread-every`` a second reading (a card corrected: ``POST .../showdown/`` again).
   ``--refresh-every 1 --reread-every 1`` is the heaviest dealer: both on every hand. Hands
   start on a fixed schedule, ``--rate`` a second over all tables (open loop: a slow answer delays
   nothing that comes after it), for ``--warmup`` seconds unmeasured, then ``--duration`` seconds;
4. prints, per interaction and overall, the answers' p50 / p95 / p99 / max in ms beside the target
   (p95 < 150 ms), the hands per second reached, the CPU a hand took (the server, and
   PostgreSQL's backends) with how busy the whole machine was, and checks the books
   (``verify_ledger``, every hand settled, no request refused); on PostgreSQL then pgbench's TPS
   (``--pgbench-seconds``), as ``bench_hand_api.py`` prints it: how much machine there was.
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The floor, the databases and the CPU meters are the hand API benchmark's, the server the
# production one (this folder's modules).
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_hand_api  # noqa: E402
from bench_hand_api import (  # noqa: E402
    DECK,
    RANK,
    check_books,
    cpu_seconds,
    drop,
    machine_cpu,
    ms,
    pgbench_tps,
    recreate,
)
from prod_server import Connection, Server  # noqa: E402
from prod_server import start as start_server  # noqa: E402

from casino.core.money import amount_text  # noqa: E402

TARGET_P95_MS = 150.0
INTERACTIONS = ("panel", "deal", "read", "confirm")
FEE_FIELD = re.compile(r'name="(fee-\d+)" value="(\d+)"')
HAND_FIELD = re.compile(r'action="/hands/(\d+)/showdown/"')
SEAT_FIELD = re.compile(r'<fieldset class="seat seat-entry[^"]*" data-seat="(\d+)"')
REVISION_FIELD = re.compile(r'name="revision" value="(\d+)"')
_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@dataclass
class TableSetup:
    number: int
    game: str
    session: str
    csrf: str


def set_up_floor(tables: int) -> list[TableSetup]:
    """The hand API benchmark's floor: tables with players bought in, each with its own dealer
    clocked in there and that dealer's session."""
    setups, _first, csrf = bench_hand_api.set_up_floor(tables)
    return [TableSetup(setup.number, setup.game, setup.session, csrf) for setup in setups]


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    settled: int = 0
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.latencies.setdefault(kind, []).append(seconds)

    def all(self) -> list[float]:
        return [s for values in self.latencies.values() for s in values]


def entry(game: str, seats: list[int], rng: random.Random) -> dict[str, str]:
    """A random showdown as the screen posts it (its form fields), for the seats dealt in."""
    deck = rng.sample(DECK, len(DECK))
    fields: dict[str, str] = {"active": "", "pad": "", "called": ""}
    if game == "chinese-poker":
        for k, seat in enumerate(seats):
            cards = sorted(deck[13 * k : 13 * k + 13], key=lambda c: RANK[c[0]], reverse=True)
            fields |= {
                f"back_{seat}": " ".join(cards[:5]),
                f"middle_{seat}": " ".join(cards[5:10]),
                f"front_{seat}": " ".join(cards[10:]),
            }
        return fields
    live = [rng.random() < 0.6 for _ in seats]
    live[rng.randrange(len(seats))] = True
    bet = rng.choice([200, 400, 1_000, 2_500])
    fields["board"] = " ".join(deck[:5])
    fields["called"] = amount_text(bet)
    for k, (seat, alive) in enumerate(zip(seats, live, strict=True)):
        fields[f"cards_{seat}"] = " ".join(deck[5 + 2 * k : 7 + 2 * k]) if alive else ""
        fields[f"put_in_{seat}"] = amount_text(bet if alive else rng.choice([0, 100, 200]))
        if not alive:
            fields[f"folded_{seat}"] = "on"
    empty = [seat for seat in seats if fields[f"put_in_{seat}"] == "0"]
    if empty and len(empty) == len(seats) - 1:  # a blind in: the engine refuses a pot paying nobody
        fields[f"put_in_{empty[0]}"] = "1"
    return fields


class Terminal:
    """One dealer's screen: a keep-alive connection, the dealer's session, the page's token."""

    def __init__(self, port: int, setup: TableSetup, stats: Stats, seed: int) -> None:
        self.conn = Connection("127.0.0.1", port, timeout=30)
        self.setup, self.stats, self.rng = setup, stats, random.Random(seed)
        self.cookie = f"sessionid={setup.session}; csrftoken={setup.csrf}"
        self.token = setup.csrf
        self.screen: str | None = None

    def request(self, kind: str, method: str, path: str, form: dict[str, str] | None = None) -> str:
        headers = {"Cookie": self.cookie, "HX-Request": "true", "Host": "127.0.0.1"}
        body = None
        if form is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urllib.parse.urlencode(form | {"csrfmiddlewaretoken": self.token})
        started = time.perf_counter()
        response = self.conn.exchange(method, path, body, headers)
        data = response.read().decode()
        self.stats.add(kind, time.perf_counter() - started)
        if response.status != 200 or response.getheader("X-Terminal-Panel") != "1":
            refusal = re.search(r'id="refusal">([^<]*)<', data)
            raise RuntimeError(
                f"{kind} {path}: {response.status} {refusal.group(1) if refusal else data[:200]!r}"
            )
        if token := _CSRF.search(data):
            self.token = token.group(1)  # the page's forms carry the token the page was drawn with
        return data

    def play_hand(self, *, refresh: bool, reread: bool, think: Callable[[str], None] | None = None) -> None:
        """One hand as the screen plays it: the next-hand panel drawn again when ``refresh`` (a game
        picked, a seat sitting out), the deal with the fees shown, the entry read (twice when
        ``reread``: a card corrected after the first reading), the confirmation. ``think(tap)``, when
        given, is called before each tap after the deal (the dealer's time between taps)."""
        table = self.setup.number
        pause = think or (lambda tap: None)
        if refresh or self.screen is None:
            self.screen = self.request("panel", "GET", f"/tables/{table}/")
        dealt = self.request("deal", "POST", f"/tables/{table}/start/", dict(FEE_FIELD.findall(self.screen)))
        hand = HAND_FIELD.search(dealt)
        if hand is None:
            raise RuntimeError(f"deal at table {table}: no showdown form in the answer")
        seats = [int(s) for s in SEAT_FIELD.findall(dealt)]
        if reread:
            first = entry(self.setup.game, seats, self.rng)
            pause("read")
            self.request("read", "POST", f"/hands/{hand.group(1)}/showdown/", first)
        pause("reread" if reread else "read")
        read = self.request(
            "read", "POST", f"/hands/{hand.group(1)}/showdown/", entry(self.setup.game, seats, self.rng)
        )
        revision = REVISION_FIELD.search(read)
        if revision is None:
            raise RuntimeError(f"read at table {table}: no reading to confirm")
        # The confirmation's answer is the next hand's screen, with the fees the next deal takes.
        pause("confirm")
        self.screen = self.request(
            "confirm", "POST", f"/hands/{hand.group(1)}/confirm/", {"revision": revision.group(1)}
        )
        with self.stats.lock:
            self.stats.settled += 1


def postgres_backends(base_url: str, name: str) -> list[int]:
    """Process ids of the PostgreSQL backends serving database ``name``."""
    out = subprocess.run(
        [
            "psql",
            f"{base_url}/postgres",
            "-Atc",
            f"SELECT pid FROM pg_stat_activity WHERE datname = '{name}'",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [int(line) for line in out.split()]


def run_terminals(
    port: int, setups: list[TableSetup], seconds: float, rate: float, seed: int, every: tuple[int, int]
) -> tuple[Stats, float]:
    """Every terminal starts a hand every ``len(setups) / rate`` seconds (staggered) for ``seconds``."""
    stats = Stats()
    interval = len(setups) / rate
    stop = time.perf_counter() + seconds

    def run(i: int, setup: TableSetup) -> None:
        terminal = Terminal(port, setup, stats, seed=seed + i)
        next_start = time.perf_counter() + interval * i / len(setups)
        played = i  # the terminals' refreshes and second reads fall on different hands
        try:
            while True:
                delay = next_start - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                next_start += interval
                if time.perf_counter() >= stop:
                    return
                played += 1
                terminal.play_hand(
                    refresh=every[0] > 0 and played % every[0] == 0,
                    reread=every[1] > 0 and played % every[1] == 0,
                )
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--rate", type=float, default=20, help="hands per second over all tables")
    parser.add_argument("--duration", type=float, default=20, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=3, help="unmeasured seconds first")
    parser.add_argument("--worker-class", choices=["sync", "gthread"], help="the server's WORKER_CLASS")
    parser.add_argument("--workers", type=int, help="the server's WORKERS (default: the configuration's)")
    parser.add_argument("--threads", type=int, help="the server's THREADS (gthread)")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    parser.add_argument("--pg-db", default="casino_bench_terminal", help="scratch PostgreSQL database")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--pgbench-seconds",
        type=int,
        default=5,
        help="postgres: pgbench's TPS afterwards, how much machine there was (0 skips)",
    )
    parser.add_argument(
        "--refresh-every",
        type=int,
        default=4,
        help="one hand in N draws the next-hand panel again (0: never)",
    )
    parser.add_argument(
        "--reread-every", type=int, default=4, help="one hand in N is read twice, a card corrected (0: never)"
    )
    args = parser.parse_args(argv[1:])

    scratch = Path(tempfile.mkdtemp(prefix="bench-terminal-"))
    if args.db == "postgres":
        recreate(args.pg, args.pg_db)
        url = f"{args.pg}/{args.pg_db}"
    else:
        url = f"sqlite:///{scratch / 'casino.sqlite3'}"
    os.environ.update(
        {
            "DATABASE_URL": url,
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
    try:
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        setups = set_up_floor(args.tables)
        from django.db import connections

        connections.close_all()
        server = start_server(
            os.environ,
            log=scratch / "server.log",
            worker_class=args.worker_class,
            workers=args.workers,
            threads=args.threads,
        )
        port = server.port
        print(
            f"{args.tables} tables ({sum(s.game == 'holdem' for s in setups)} hold'em, "
            f"{sum(s.game != 'holdem' for s in setups)} Chinese poker) on {args.db}; gunicorn -c "
            f"deploy/gunicorn.conf.py: {server.describe()}; "
            f"one terminal per table, {args.rate:g} hands/s in all; a hand in "
            f"{args.refresh_every or 'no'} redraws the next-hand panel, a hand in "
            f"{args.reread_every or 'no'} is read twice",
            flush=True,
        )
        every = (args.refresh_every, args.reread_every)
        warm, _ = run_terminals(port, setups, args.warmup, args.rate, args.seed, every)
        backends = postgres_backends(args.pg, args.pg_db) if args.db == "postgres" else []
        before = (server.cpu_seconds(), cpu_seconds(backends), machine_cpu())
        stats, elapsed = run_terminals(port, setups, args.duration, args.rate, args.seed + 1000, every)
        (total, idle), (total_now, idle_now) = before[2], machine_cpu()
        server_cpu, db_cpu = server.cpu_seconds() - before[0], cpu_seconds(backends) - before[1]
        busy = 1 - (idle_now - idle) / max(total_now - total, 1)
    finally:
        if server is not None:
            server.stop()

    report, settled, in_progress = check_books()
    if args.db == "postgres":
        drop(args.pg, args.pg_db)
    shutil.rmtree(scratch, ignore_errors=True)
    # pgbench's scratch database is named after ours, so that runs at once don't drop each other's.
    bench_hand_api.PGBENCH_DB = f"{args.pg_db}_pgbench"
    tps = (
        pgbench_tps(args.pg, clients=10, seconds=args.pgbench_seconds)
        if args.db == "postgres" and args.pgbench_seconds > 0
        else None
    )

    problems = warm.errors + stats.errors
    print(f"\n{stats.settled} hands settled in {elapsed:.1f} s: {stats.settled / elapsed:.1f} hands/s")
    if tps is not None:
        print(f"pgbench (TPC-B, -c 10 -j 2 -T {args.pgbench_seconds}) afterwards: {tps:,.0f} TPS")
    print(f"books: verify_ledger ok={report.ok}, {settled} hands settled, {in_progress} left in progress")
    if stats.settled:
        per_hand = 1000 * (server_cpu + db_cpu) / stats.settled
        print(
            f"CPU per hand: server {1000 * server_cpu / stats.settled:.1f} ms"
            + (
                f", PostgreSQL {1000 * db_cpu / stats.settled:.1f} ms"
                if backends
                else " (SQLite in the server)"
            )
            + f"; the machine was {100 * busy:.0f}% busy ({os.cpu_count()} CPUs: at most "
            f"{1000 * (os.cpu_count() or 1) / per_hand:.0f} hands/s at this cost)"
        )
    if problems:
        print("errors:", *problems[:10], sep="\n  ")
    everything = stats.all()
    print(f"\n| interaction ({args.db}) | answers | p50 ms | p95 ms | p99 ms | max ms | target |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for kind in (*INTERACTIONS, "all"):
        values = everything if kind == "all" else stats.latencies.get(kind, [])
        if not values:
            continue
        p95 = ms(values, 0.95)
        verdict = "met" if p95 < TARGET_P95_MS else "missed"
        print(
            f"| {kind} | {len(values)} | {ms(values, 0.5):.1f} | {p95:.1f} | {ms(values, 0.99):.1f} | "
            f"{1000 * max(values):.1f} | p95 < {TARGET_P95_MS:.0f} ms: {verdict} |"
        )
    played = warm.settled + stats.settled
    ok = report.ok and not problems and in_progress == 0 and settled == played
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
