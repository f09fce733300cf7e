"""What ten open boards cost the server: requests per second and CPU per refresh of the room's
public board (``/board/``; docs/waiting-lists.md, "The board").

    .venv/bin/python benchmarks/bench_board.py [--db sqlite|postgres] [--boards 10] [--poll 2]
        [--duration 20] [--workers 3] [--change-every 4] [--tables 12]
        [--pg postgres://postgres@127.0.0.1:5432] [--pg-db casino_bench_board]

What it does:

1. makes a scratch database (SQLite in a temporary folder, or ``--pg-db`` on ``--pg``), migrates
   it, loads the house data and opens ``--tables`` tables with players seated, a list per game
   running and an interest list, and players on them (call-ins among them, one called);
2. serves the app as the other benchmarks do, through the production server
   (``benchmarks/prod_server.py``: gunicorn with ``deploy/gunicorn.conf.py``, ``DEBUG=0``) with
   ``--workers`` sync workers;
3. opens ``--boards`` boards, each loading ``/board/`` and then polling ``/board/panel/`` every
   ``--poll`` seconds exactly as ``static/live.js`` does (a conditional GET with the ETag it holds),
   each poll on its own connection as gunicorn's sync workers answer it (they don't keep a
   connection alive: a board holds no worker between polls); three runs of ``--duration`` s each:

   * **idle**: nothing changes (every poll is a ``304``): the steady cost of boards on the wall;
   * **busy**: a change on the floor every ``--change-every`` seconds (a player added to or taken
     off a list, a player on a list renamed, a table's game changed: :func:`change`): the ``200``
     redraws it causes, and how long after each change every board had it (the issue's bound:
     5 s);
   * **no ETag** (a board without the version): every poll is a full ``200`` answer (drawn once
     per worker and version since the workers keep their last drawing; every poll drew it before);

4. prints per run the requests per second, the server's CPU per request (its workers, and
   PostgreSQL's backends on ``--db postgres``), the share of one core the boards take, the answers'
   p50/p95, and for the busy run the delay from a change to the last board showing it.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hand_api import cpu_seconds, drop, recreate  # noqa: E402
from bench_terminal import postgres_backends  # noqa: E402
from prod_server import Server  # noqa: E402
from prod_server import start as start_server  # noqa: E402

TARGET_DELAY_S = 5.0


@dataclass
class Run:
    """One run's answers: (status, seconds) per poll, and when each board saw each change."""

    answers: list[tuple[int, float]] = field(default_factory=list)
    polls: dict[int, int] = field(default_factory=dict)
    seen: dict[int, list[float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def set_up_room(tables: int) -> None:
    """Tables of hold'em and Omaha hi-lo at $4-$8 half kill, seven seated of nine, lists with players."""
    from tables import services
    from tables.house_data import load_house_data
    from tables.lists import services as waiting
    from tables.models import CollectionSchedule, EntrySource, Game, Stakes

    load_house_data()
    holdem, omaha, stud = (Game.objects.get(slug=s) for s in ("holdem", "omaha-hi-lo", "stud"))
    stakes, stud_stakes = Stakes.objects.get(code="limit-4-8-half"), Stakes.objects.get(code="limit-4-8")
    schedule = CollectionSchedule.objects.get(code="A")
    for number in range(1, tables + 1):
        game = holdem if number % 3 else omaha
        table = services.create_table(
            number=number, game=game, stakes=stakes, collection_schedule=schedule, seat_count=9, by=None
        )
        services.open_table(table=table, by=None)
        for seat in range(1, 8):
            player = services.create_player(name=f"Seated {number}-{seat}")
            services.seat_player(table=table, seat_number=seat, player=player, by=None)
    lists = [
        waiting.create_list(game=g, stakes=s, by=None)
        for g, s in ((holdem, stakes), (omaha, stakes), (stud, stud_stakes))
    ]
    for index in range(24):
        via = EntrySource.PHONE if index % 4 == 3 else EntrySource.IN_PERSON
        chosen = [lists[index % 3]] + ([lists[(index + 1) % 3]] if index % 5 == 0 else [])
        waiting.add_player(
            waiting_lists=chosen, new_player_name=f"Waiting Player{index}", added_via=via, by=None
        )


def change(step: int) -> None:
    """One change on the floor, the four in turn: a player added to a list; one taken off a list; a
    player on a list renamed at the cage (:func:`tables.services.update_player`, which writes no
    history: the old version missed it for up to 5 minutes); a table's game changed between hands
    (hold'em and Omaha hi-lo in turn at table 1)."""
    from tables import services
    from tables.lists import services as waiting
    from tables.models import EntryState, Game, Table, WaitingList, WaitingListEntry

    lists = WaitingList.objects.filter(is_active=True).order_by("pk")
    kind = step % 4
    if kind == 0:
        waiting.add_player(waiting_lists=[lists[0]], new_player_name=f"Walk{step} In", by=None)
    elif kind == 1:
        entry = WaitingListEntry.objects.filter(state=EntryState.WAITING, waiting_list=lists[1]).last()
        if entry is not None:
            waiting.remove_from_list(entry=entry, by=None, reason="benchmark: went home")
    elif kind == 2:
        entry = WaitingListEntry.objects.filter(state=EntryState.WAITING).select_related("player").first()
        if entry is not None:
            services.update_player(player=entry.player, name=f"Renamed{step} Player", by=None)
    else:
        table = Table.objects.select_related("game").get(number=1)
        game = Game.objects.get(slug="omaha-hi-lo" if table.game.slug == "holdem" else "holdem")
        services.configure_table(table=table, game=game, by=None, reason="benchmark: the game changes")


def get(port: int, path: str, headers: dict[str, str]) -> tuple[int, str | None, float]:
    """One request on its own connection, as a browser's poll reaches gunicorn's sync workers
    (which close every connection after its answer: no worker is held between polls)."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers={**headers, "Connection": "close"})
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("ETag"), time.monotonic() - started
    finally:
        connection.close()


def warm_up(port: int, workers: int) -> None:
    """Each worker has answered the page and the panel (imports, templates) before any measure."""
    for _ in range(3):
        threads = [
            threading.Thread(target=get, args=(port, path, {}))
            for _ in range(workers)
            for path in ("/board/", "/board/panel/")
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def board_client(
    port: int, run: Run, stop: threading.Event, poll: float, etags: bool, index: int, changes: list[float]
) -> None:
    get(port, "/board/", {})
    etag = None
    seen_changes = 0
    time.sleep(poll * index / 10)  # the boards spread over a poll
    while not stop.is_set():
        time.sleep(poll)  # live.js waits a poll after each answer (setTimeout)
        started = time.monotonic()
        status, new, elapsed = get(port, "/board/panel/", {"If-None-Match": etag} if etags and etag else {})
        with run.lock:
            run.answers.append((status, elapsed))
            run.polls[index] = run.polls.get(index, 0) + 1
            if status == 200 and etag is not None and new != etag:
                # Every change made before this poll was sent is on this board now.
                while seen_changes < len(changes) and changes[seen_changes] < started:
                    run.seen.setdefault(seen_changes, []).append(time.monotonic() - changes[seen_changes])
                    seen_changes += 1
        if status == 200:
            etag = new


def measure(
    name: str,
    port: int,
    pids: list[int],
    pg_pids: list[int],
    args: argparse.Namespace,
    *,
    etags: bool,
    busy: bool,
) -> None:
    run, stop = Run(), threading.Event()
    changes: list[float] = []  # when each change was made (monotonic)
    clients = [
        threading.Thread(
            target=board_client, args=(port, run, stop, args.poll, etags, i, changes), daemon=True
        )
        for i in range(args.boards)
    ]
    for client in clients:
        client.start()
    while True:  # every board has loaded its page and polled twice before the measure starts
        with run.lock:
            if len(run.polls) == args.boards and min(run.polls.values()) >= 2:
                run.answers.clear()
                break
        time.sleep(0.1)
    cpu_before = cpu_seconds(pids) + cpu_seconds(pg_pids)
    started = time.monotonic()
    step = 0
    while time.monotonic() - started < args.duration:
        if busy and time.monotonic() - started >= (step + 1) * args.change_every - args.change_every / 2:
            # When the change begins: a poll started after it that gets a new ETag has it (a poll
            # started before its commit and answered after would otherwise wait for the next change
            # to be counted).
            changes.append(time.monotonic())
            change(step)
            step += 1
        time.sleep(0.05)
    elapsed = time.monotonic() - started
    cpu = cpu_seconds(pids) + cpu_seconds(pg_pids) - cpu_before
    with run.lock:
        answers = list(run.answers)  # the measured window's
    time.sleep(args.poll + 1)  # the last change reaches every board
    stop.set()
    for client in clients:
        client.join(timeout=30)
    with run.lock:
        seen = dict(run.seen)
    statuses = [s for s, _ in answers]
    times = sorted(t * 1000 for _, t in answers)
    count = len(answers)
    per = cpu / count * 1000 if count else 0.0
    p95 = times[int(0.95 * (len(times) - 1))] if times else 0.0
    print(
        f"| {name} | {count / elapsed:.1f} | {statuses.count(304)} / {statuses.count(200)} | {per:.2f} | "
        f"{cpu / elapsed * 100:.1f}% | {statistics.median(times) if times else 0:.1f} / {p95:.1f} |"
        + (
            f" {max((max(v) for v in seen.values()), default=0):.1f} s ({len(seen)} changes) |"
            if busy
            else " |"
        )
    )
    if busy:
        late = [v for v in seen.values() if len(v) < args.boards or max(v) > TARGET_DELAY_S]
        if late:
            print(f"  {len(late)} change(s) not on every board within {TARGET_DELAY_S} s")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--boards", type=int, default=10)
    parser.add_argument("--poll", type=float, default=2.0, help="seconds between a board's polls (live.js)")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--change-every", type=float, default=4.0)
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--pg-db", default="casino_bench_board")
    args = parser.parse_args(argv[1:])

    scratch = Path(tempfile.mkdtemp(prefix="bench-board-"))
    if args.db == "postgres":
        recreate(args.pg, args.pg_db)
        url = f"{args.pg}/{args.pg_db}"
    else:
        url = f"sqlite:///{scratch / 'casino.sqlite3'}"
    os.environ.update(
        {
            "DATABASE_URL": url,
            "DEBUG": "0",
            "SECURE_SSL_REDIRECT": "0",
            "SECRET_KEY": "bench-" + uuid.uuid4().hex + uuid.uuid4().hex,  # DEBUG=0: 50+ characters
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "ERROR",
            "DJANGO_SETTINGS_MODULE": "casino.settings",
            # Production settings refuse the public development ledger keys: fresh ones for the run.
            "LEDGER_KEYS": "bench:" + base64.b64encode(os.urandom(32)).decode(),
            "LEDGER_KEY_ID": "bench",
            "LEDGER_ANCHOR_SIGNING_KEY": "bench:" + base64.b64encode(os.urandom(32)).decode(),
        }
    )
    os.environ.pop("DATABASE_OWNER_URL", None)
    if args.db == "sqlite":
        os.environ["CONN_MAX_AGE"] = "600"  # a worker keeps its connection
    else:
        for name in ("CONN_MAX_AGE", "DATABASE_POOL_MAX"):
            os.environ.pop(name, None)  # the server's configuration pools its connections
    server: Server | None = None
    try:
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        call_command("collectstatic", verbosity=0, interactive=False)
        set_up_room(args.tables)
        from django.db import connections as db_connections

        db_connections.close_all()
        # The production server (deploy/gunicorn.conf.py), with sync workers one request at a time.
        server = start_server(
            os.environ,
            log=scratch / "server.log",
            worker_class="sync",
            workers=args.workers,
            collectstatic=False,
        )
        port, pids = server.port, server.pids()
        warm_up(port, args.workers)
        pg_pids: list[int] = []
        print(
            f"{args.boards} boards polling every {args.poll:g} s, {args.workers} sync workers, {args.db}, "
            f"{args.tables} tables, {args.duration:g} s a run"
        )
        print(
            "| run | requests/s | 304 / 200 | server CPU ms/request | share of one core | p50 / p95 ms "
            "| change seen by every board |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, etags, busy in (
            ("idle (ETag, 304)", True, False),
            (f"busy (a change every {args.change_every:g} s)", True, True),
            ("no ETag (every poll a 200)", False, False),
        ):
            if args.db == "postgres":
                pg_pids = postgres_backends(args.pg, args.pg_db)
            measure(name, port, pids, pg_pids, args, etags=etags, busy=busy)
    finally:
        if server is not None:
            server.stop()
        if args.db == "postgres":
            from django.db import connections

            connections.close_all()
            drop(args.pg, args.pg_db)
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
