"""Benchmark: the replay audit (handflow/audit/) over the reports benchmark's year of a 30-table
room: every settled hand re-decided by the engine from its stored input and compared with its
stored reading, its ledger lines and its settlement's entries.

    .venv/bin/python benchmarks/bench_replay_audit.py [--hands 1000000] [--workers 3] [--keep] [--reuse]

What it does (PostgreSQL only; needs the server at 127.0.0.1:5432, user postgres):

1. builds the reports benchmark's year with its own builder (``bench_reports.create_database`` and
   ``bench_reports.generate``: ``--hands`` hold'em hands at 30 tables, 2-10 players each, fees,
   settlements, about 1% misdeals) in the scratch database ``casino_bench_replay`` (``--db``);
2. gives every settled hand a real showdown: a pool of hold'em deals (``--variants`` per button
   and number of players, so the seats are the hand's own) is decided by the engine, turned into
   ledger lines by ``poker.postings.settlement_postings`` for each table's players, and stored
   with each hand as its ``HandResult`` (input, digest, result, postings); each hand's settlement
   becomes the ``pot_award`` transaction those lines post, through a pot account of its own (set-based
   SQL, triggers off, as the reports benchmark loads);
3. times ``handflow.audit.replay_audit`` over the whole year with ``--workers`` processes (the
   same call ``manage.py replay_audit`` and the nightly job make) and checks it found no difference
   and compared every settled hand;
4. drops the database unless ``--keep`` (``--reuse`` skips steps 1-2 on a kept database).

Target (issue: records a regulator can re-check): the year (1,000,000 hands) in under 3 minutes
on this 2-core machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

# After the paths are set: the reports benchmark's builder, by the module name mypy gives the
# benchmarks' files (the folder is not a package).
import bench_reports  # noqa: E402

TARGET_SECONDS = 180.0
TARGET_HANDS = 1_000_000
DECK = [rank + suit for suit in "shdc" for rank in "23456789TJQKA"]


def deal(rng: random.Random, button: int, n: int, chip: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A hold'em showdown for the ``n`` seats from ``button`` clockwise at a 10-seat table (the
    reports benchmark's seating): ``(the dealer's entry, the engine input)``. Some players fold
    before the showdown; sometimes the last raise is not called (chips go back)."""
    seats = [(button + p - 2) % bench_reports.SEATS + 1 for p in range(1, n + 1)]
    cards = rng.sample(DECK, 5 + 2 * n)
    board, holes = cards[:5], cards[5:]
    live = max(1, rng.randint(1, n)) if n > 2 else rng.choice([1, 2, 2])
    live_seats = set(rng.sample(seats, live))
    called = chip * rng.randint(2, 12)
    players: list[dict[str, Any]] = []
    for index, seat in enumerate(seats):
        if seat in live_seats:
            entry: dict[str, Any] = {
                "seat": seat,
                "cards": holes[2 * index : 2 * index + 2],
                "put_in": called,
            }
        else:
            entry = {"seat": seat, "put_in": chip * rng.randint(0, 2), "folded": True}
        players.append(entry)
    if live > 1 and rng.random() < 0.2:  # an uncalled raise: returned by the engine
        raiser = next(p for p in players if p["seat"] in live_seats)
        raiser["put_in"] += chip * rng.randint(1, 4)
    folded = [p for p in players if p["seat"] not in live_seats]
    if live == 1 and folded and not any(p["put_in"] for p in folded):  # a blind in: the engine
        folded[0]["put_in"] = chip  # refuses a pot paying nobody
    if live == 1:  # everyone else folded: no showdown, no cards
        for entry in players:
            entry.pop("cards", None)
        board = []
    submitted = {"board": board, "players": players}
    engine_input = {"game": "holdem", "chip": chip, "button": button, "players": players, "board": board}
    return submitted, engine_input


def pool_rows(variants: int, seed: int = 16) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The showdown pool: one reading per (table, button, players, variant), with its ledger lines
    for that table's players; and the lines as rows (pot lines with no account)."""
    from django.db import connection

    from handflow.audit import POT, ledger_lines
    from handflow.keys import digest_of
    from poker.postings import settlement_postings
    from poker.reading import Reading
    from poker.showdown import decide

    rng = random.Random(seed)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.table_id, s.number, st.player_id, a.id FROM tables_seat s "
            "JOIN tables_seating st ON st.seat_id = s.id AND st.left_at IS NULL "
            "JOIN ledger_account a ON a.kind = 'player_chips' AND a.table_id = s.table_id "
            "AND a.player_id = st.player_id"
        )
        seating = cursor.fetchall()
        cursor.execute("SELECT id, chip_unit_cents FROM tables_table")
        chips = dict(cursor.fetchall())
    by_table: dict[int, dict[int, tuple[int, int]]] = {}
    for table_id, seat, player_id, account_id in seating:
        by_table.setdefault(table_id, {})[seat] = (player_id, account_id)
    readings: list[tuple[Any, ...]] = []
    lines: list[tuple[Any, ...]] = []
    chip_values = set(chips.values())
    assert len(chip_values) == 1, chip_values
    chip = chip_values.pop()
    for button in range(1, bench_reports.SEATS + 1):
        for n in range(2, bench_reports.SEATS + 1):
            for variant in range(variants):
                submitted, engine_input = deal(rng, button, n, chip)
                result = json.loads(json.dumps(decide(engine_input)))
                typed = Reading.from_json(result)
                digest = digest_of(engine_input)
                for table_id, seats in by_table.items():
                    players = {p["seat"]: seats[p["seat"]][0] for p in engine_input["players"]}
                    postings = settlement_postings(typed, engine_input=engine_input, player_of=players)
                    key = (table_id, button, n, variant)
                    readings.append(
                        (
                            *key,
                            digest,
                            json.dumps(submitted),
                            json.dumps(engine_input),
                            json.dumps(result),
                            json.dumps(postings.to_json()),
                        )
                    )
                    accounts = {player_id: account_id for player_id, account_id in seats.values()}
                    for line, (account, amount) in enumerate(ledger_lines(postings), start=1):
                        lines.append((*key, line, None if account == POT else accounts[int(account)], amount))
    return readings, lines


def add_readings(variants: int, *, verbose: bool = False) -> dict[str, Any]:
    """Step 2: a HandResult and a pot_award settlement for every settled hand of the built year."""
    from django.db import connection, transaction

    t0 = time.perf_counter()
    readings, lines = pool_rows(variants)
    if verbose:
        print(f"  {time.perf_counter() - t0:7.1f} s  {len(readings):,} pooled readings decided", flush=True)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("SET LOCAL work_mem = '256MB'")
        cursor.execute("SET LOCAL maintenance_work_mem = '512MB'")
        cursor.execute(
            "CREATE TEMP TABLE audit_pool (table_id bigint, button int, n int, variant int, digest text, "
            "submitted jsonb, engine_input jsonb, engine_result jsonb, postings jsonb)"
        )
        cursor.executemany("INSERT INTO audit_pool VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)", readings)
        cursor.execute(
            "CREATE TEMP TABLE audit_pool_line (table_id bigint, button int, n int, variant int, line int, "
            "account_id bigint, amount bigint)"
        )
        cursor.executemany("INSERT INTO audit_pool_line VALUES (%s, %s, %s, %s, %s, %s, %s)", lines)
        cursor.execute(
            f"""CREATE TEMP TABLE audit_hand AS
                SELECT h.id AS hand_id, h.table_id, s.number AS button, p.n,
                       (h.id * 7919) % {variants} AS variant, j.id AS settle_txn, j.created_at AS settled_at
                FROM tables_hand h JOIN tables_seat s ON s.id = h.button_seat_id
                JOIN (SELECT hand_id, count(*) AS n FROM tables_handplayer GROUP BY hand_id) p
                     ON p.hand_id = h.id
                JOIN ledger_journaltransaction j ON j.hand_id = h.id AND j.kind = 'settlement_payment'
                WHERE h.status = 'settled'"""
        )
        restore = bench_reports.strip_indexes(cursor)
        steps = [
            "DELETE FROM ledger_entry e USING audit_hand a WHERE e.transaction_id = a.settle_txn",
            """UPDATE ledger_journaltransaction j SET kind = 'pot_award'
               FROM audit_hand a WHERE j.id = a.settle_txn""",
            """INSERT INTO ledger_account (kind, table_id, hand_id, shift_code, balance, created_at)
               SELECT 'hand_pot', a.table_id, a.hand_id, '', 0, a.settled_at FROM audit_hand a""",
            """CREATE TEMP TABLE audit_pot AS
               SELECT hand_id, id FROM ledger_account WHERE kind = 'hand_pot'""",
            "CREATE INDEX ON audit_pot (hand_id)",
            """INSERT INTO ledger_entry (transaction_id, line, account_id, amount)
               SELECT a.settle_txn, l.line, coalesce(l.account_id, pot.id), l.amount
               FROM audit_hand a
               JOIN audit_pool_line l ON l.table_id = a.table_id AND l.button = a.button AND l.n = a.n
                    AND l.variant = a.variant
               JOIN audit_pot pot ON pot.hand_id = a.hand_id""",
            """INSERT INTO tables_handresult (hand_id, status, revision, digest, submitted, engine_input,
                   engine_result, postings, submitted_at, confirmed_at, settlement_id)
               SELECT a.hand_id, 'settled', 1, p.digest, p.submitted, p.engine_input, p.engine_result,
                      p.postings, a.settled_at, a.settled_at, a.settle_txn
               FROM audit_hand a
               JOIN audit_pool p ON p.table_id = a.table_id AND p.button = a.button AND p.n = a.n
                    AND p.variant = a.variant""",
        ]
        for sql in steps:
            t = time.perf_counter()
            cursor.execute(sql)
            if verbose:
                print(f"  {time.perf_counter() - t:7.1f} s  {' '.join(sql.split())[:70]}", flush=True)
        t = time.perf_counter()
        for sql in restore:
            cursor.execute(sql)
        cursor.execute(
            """UPDATE ledger_account a SET balance = s.total
               FROM (SELECT account_id, sum(amount) AS total FROM ledger_entry GROUP BY account_id) s
               WHERE a.id = s.account_id AND a.balance <> s.total"""
        )
        if verbose:
            print(f"  {time.perf_counter() - t:7.1f} s  indexes rebuilt, balances summed", flush=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute(
            "SELECT (SELECT count(*) FROM tables_handresult), (SELECT count(*) FROM ledger_entry), "
            "(SELECT coalesce(sum(balance), 0) FROM ledger_account), "
            "(SELECT pg_size_pretty(pg_total_relation_size('tables_handresult')))"
        )
        results, entries, balance, size = cursor.fetchone()
    assert balance == 0, balance
    return {"results": results, "entries": entries, "size": size, "seconds": time.perf_counter() - t0}


@dataclasses.dataclass(frozen=True, slots=True)
class Measured:
    outcome: Any
    client_cpu: float
    server_cpu: float
    load: tuple[float, float]


def _backend_cpu() -> tuple[int, float]:
    """This connection's PostgreSQL backend: its pid and the CPU seconds it has used (``/proc``)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return pid, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


_COUNTING: dict[str, Any] = {}


def counted_chunk(args: Any) -> Any:
    """The audit's chunk, then its backend's CPU so far into the spool (module level: the pool
    pickles it by name)."""
    result = _COUNTING["chunk"](args)
    pid, cpu = _backend_cpu()
    (_COUNTING["spool"] / f"{pid}").write_text(f"{cpu}")  # cumulative: the last chunk's figure counts
    return result


def measure(workers: int) -> Measured:
    """The audit of the whole year, with the CPU it used: its own processes' (``getrusage``) and
    their database backends' (read from ``/proc`` after each chunk: the backend of each process
    lives as long as its connection), so that a run on a shared machine still says what the work
    costs. Also the load average before and after (other users of the CPUs)."""
    from django.db.models import Max, Min

    from handflow.audit import chunks, run
    from ledger.shifts import Shift
    from tables.models import Hand

    span = Hand.objects.aggregate(first=Min("created_at"), last=Max("created_at"))
    date_from = Shift.at(span["first"]).business_date
    date_to = Shift.at(span["last"]).business_date
    spool = Path(tempfile.mkdtemp(prefix="replay-bench-"))
    original = chunks.audit_chunk
    _COUNTING.update(spool=spool, chunk=original)

    before = os.getloadavg()[0]
    start_self = resource.getrusage(resource.RUSAGE_SELF)
    start_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    # Where replay_audit looks the chunk up: the forked processes run the counting wrapper.
    with mock.patch.object(run, "audit_chunk", counted_chunk):
        outcome = run.replay_audit(date_from=date_from, date_to=date_to, workers=workers)
    end_self = resource.getrusage(resource.RUSAGE_SELF)
    end_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    client = sum(
        getattr(end, name) - getattr(begin, name)
        for begin, end in ((start_self, end_self), (start_children, end_children))
        for name in ("ru_utime", "ru_stime")
    )
    server = sum(float(path.read_text()) for path in spool.iterdir())
    shutil.rmtree(spool)
    return Measured(outcome, client, server, (before, os.getloadavg()[0]))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=TARGET_HANDS)
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument(
        "--workers",
        type=int,
        default=3,
        help="audit processes (default 3: both cores, and one more to cover the waits on the database)",
    )
    parser.add_argument("--variants", type=int, default=4, help="pooled deals per button and players")
    parser.add_argument("--db", default="casino_bench_replay")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure a kept database without generating")
    parser.add_argument("--verbose", action="store_true", help="time each generation step")
    args = parser.parse_args()

    if not args.reuse:
        t = time.perf_counter()
        bench_reports.create_database(args.db)
        print(f"migrated and loaded house data in {time.perf_counter() - t:.1f} s", flush=True)
    bench_reports.setup_django(args.db)
    try:
        if not args.reuse:
            counts = bench_reports.generate(args.hands, args.tables, verbose=args.verbose)
            print(
                f"generated {counts['hands']:,} hands, {counts['transactions']:,} transactions, "
                f"{counts['entries']:,} entries in {counts['seconds']:.1f} s (the reports benchmark's year)",
                flush=True,
            )
            added = add_readings(args.variants, verbose=args.verbose)
            print(
                f"stored {added['results']:,} showdowns ({added['size']} of readings), "
                f"{added['entries']:,} entries in all, in {added['seconds']:.1f} s",
                flush=True,
            )
        measured = measure(args.workers)
        outcome = measured.outcome
        print()
        print(outcome.summary())
        assert outcome.ok, [d.message for d in outcome.differences[:5]]
        from tables.models import HandResult

        assert outcome.hands == HandResult.objects.filter(status="settled").count(), outcome.hands
        per_hand = (measured.client_cpu + measured.server_cpu) / outcome.hands if outcome.hands else 0.0
        scaled = outcome.seconds * TARGET_HANDS / outcome.hands if outcome.hands else float("inf")
        cores = os.cpu_count() or 1
        print(f"  {'hands re-decided':40} {outcome.hands:>12,}")
        print(f"  {'seconds':40} {outcome.seconds:>12.1f}")
        print(f"  {'hands/s':40} {outcome.hands_per_second:>12,.0f}")
        print(f"  {'processes':40} {outcome.workers:>12}")
        print(f"  {'load average before, after (1 min)':40} {measured.load[0]:>6.2f}, {measured.load[1]:.2f}")
        print(f"  {'CPU s, the audit processes':40} {measured.client_cpu:>12.1f}")
        print(f"  {'CPU s, their database backends':40} {measured.server_cpu:>12.1f}")
        print(f"  {'CPU us per hand, both':40} {per_hand * 1e6:>12.0f}")
        ok = scaled < TARGET_SECONDS
        print(
            f"  {TARGET_HANDS:,} hands at this rate: {scaled:.1f} s "
            f"(target < {TARGET_SECONDS:.0f} s): {'OK' if ok else 'MISSED'}"
        )
        print(
            f"  the same CPU on {cores} otherwise idle cores: "
            f"{per_hand * TARGET_HANDS / cores:.1f} s for {TARGET_HANDS:,} hands"
        )
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            bench_reports._admin(f'DROP DATABASE IF EXISTS "{args.db}"')


if __name__ == "__main__":
    main()
