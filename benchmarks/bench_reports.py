"""Benchmark: the monthly collection report over a year of a 30-table room, next to a hand-written
SQL aggregate over the same rows.

    .venv/bin/python benchmarks/bench_reports.py [--hands 1000000] [--tables 30] [--rounds 3] [--keep]

What it does (PostgreSQL only; needs the server at 127.0.0.1:5432, user postgres):

1. (re)creates the scratch database ``casino_bench_reports`` (``--db``), migrates it and loads the
   house data; creates the tables (three limit stakes on schedule A, revised at mid-year so the
   report has to pick the version in force per hand), seats 10 players at each, and gives every
   player a large buy-in through the ledger's own service;
2. fills it with set-based SQL (``generate_series``; triggers off with
   ``SET session_replication_role = replica`` during the load): ``--hands`` hands spread evenly
   over 365 days and the tables, 2-10 players each (HandPlayer rows), per hand one FEE transaction
   (the button's fee under the version in force: 2 entries) and one settlement of four payments
   (8 entries), about 1% misdeals whose fee is returned by a REVERSAL; about 10 entries per hand in
   all. House-collection accounts per table and shift, cached balances summed from the entries at
   the end; hashes are unique placeholders (this data is not hash-chained; ``verify_ledger`` is not
   part of the benchmark). Then ``VACUUM ANALYZE`` (as autovacuum would);
3. times ``build_collection_report`` for the busiest month through the project (Django ORM, the
   same call the page and API make) and the hand-written SQL aggregate (the same groups: hands and
   players by table/game/stakes/schedule/players dealt in, fee entries of the month's house
   accounts by kind), best of ``--rounds`` each, and checks that both count the same hands,
   players and fees;
4. drops the database unless ``--keep`` (``--reuse`` skips steps 1-2 on a kept database).

Then one table's hand history for a day (``build_hand_history``, the busiest table on the month's
last day, every hand on one page), best of ``--rounds``.

Targets (issues: regulator reports; the biggest room): the report within 1.5x of the SQL baseline
and under 5 s; the table-day's hand history under 200 ms.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SERVER = "postgres://postgres@127.0.0.1:5432"
STAKES = ["limit-3-6", "limit-4-8", "limit-6-12"]
SEATS = 10
DAYS = 365


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(sql)


def _manage(db: str, *args: str) -> None:
    env = {**os.environ, "DATABASE_URL": f"{SERVER}/{db}", "CELERY_BROKER_URL": ""}
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args, "-v0"], check=True, env=env, cwd=ROOT)


def create_database(db: str) -> None:
    _admin(f'DROP DATABASE IF EXISTS "{db}"')
    _admin(f'CREATE DATABASE "{db}"')
    _manage(db, "migrate", "--noinput")
    # The year of hands is last year: the room had its schedules before it (a back-dated load).
    _manage(db, "load_house_data", "--effective-from", "2000-01-01T00:00:00+00:00")


def setup_django(db: str) -> None:
    os.environ["DATABASE_URL"] = f"{SERVER}/{db}"
    os.environ["CELERY_BROKER_URL"] = ""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    import django

    django.setup()


def floor(tables: int, year_start: Any, first_number: int = 1) -> dict[str, Any]:
    """Tables (numbered from ``first_number``), players, buy-ins (through the services) and a
    mid-year schedule revision."""
    import datetime as dt

    from ledger import services as ledger
    from tables import services
    from tables.models import CollectionRate, CollectionSchedule, CollectionScheduleVersion, Game, Stakes

    schedule = CollectionSchedule.objects.get(code="A")
    game = Game.objects.get(slug="holdem")
    revised_at = year_start + dt.timedelta(days=DAYS // 2)
    current = schedule.version_at(year_start)
    assert current is not None  # schedule A has rates in force at year_start (else nothing to revise)
    version = CollectionScheduleVersion.objects.create(
        schedule=schedule, number=current.number + 1, effective_from=revised_at, reason="benchmark: +50 cents"
    )
    CollectionRate.objects.bulk_create(
        CollectionRate(
            **{
                f.attname: getattr(rate, f.attname)
                for f in CollectionRate._meta.concrete_fields
                if f.attname not in {"id", "version_id", "fee_cents"}
            },
            version=version,
            fee_cents=rate.fee_cents + 50,
        )
        for rate in current.rates.all()
    )
    for number in range(first_number, first_number + tables):
        table = services.create_table(
            number=number,
            game=game,
            stakes=Stakes.objects.get(code=STAKES[number % len(STAKES)]),
            collection_schedule=schedule,
            seat_count=SEATS,
            # The mid-year revision charges 50 cents more: fees are whole chips of the table.
            chip_unit_cents=50,
            by=None,
        )
        services.open_table(table=table, by=None)
        for seat in range(1, SEATS + 1):
            player = services.create_player(name=f"T{number} S{seat}")
            services.seat_player(table=table, seat_number=seat, player=player, by=None)
            ledger.buy_in(
                table=table,
                player=player,
                amount=10**10,
                user=None,
                idempotency_key=f"bench:buy:{number}:{seat}",
            )
    return {"schedule": schedule, "revised_at": revised_at, "current": current, "version": version}


def fee_table(cursor: Any, setup: dict[str, Any]) -> None:
    """bench_fee(stakes_id, revised, n, fee): the button's fee under each version, from the rates."""
    from backoffice.reports.common import RateBook
    from tables.models import Stakes

    book = RateBook([setup["schedule"].pk])
    cursor.execute("CREATE TEMP TABLE bench_fee (stakes_id bigint, revised boolean, n int, fee bigint)")
    rows = []
    for stakes in Stakes.objects.filter(code__in=STAKES):
        for revised, version in ((False, setup["current"]), (True, setup["version"])):
            for n in range(2, SEATS + 1):
                fees = book.fees_due(version.pk, stakes.pk, n)
                assert fees is not None, (stakes.code, n)
                rows.append((stakes.pk, revised, n, sum(fees)))
    cursor.executemany("INSERT INTO bench_fee VALUES (%s, %s, %s, %s)", rows)


BULK_TABLES = ["tables_hand", "tables_handplayer", "ledger_journaltransaction", "ledger_entry"]


def default_unlisted_columns() -> None:
    """The bulk INSERTs name the columns the reports read; the NOT NULL text and boolean columns
    added since (a hand's misdeal code, a seat's sweep declaration, a row's key id) have their
    default in Django only, so the scratch database gets the same defaults (blank, false)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'public' AND table_name = ANY(%s) AND is_nullable = 'NO' "
            "AND column_default IS NULL AND data_type IN ('text', 'character varying', 'boolean')",
            [[*BULK_TABLES, "ledger_account"]],
        )
        for table, column, data_type in cursor.fetchall():
            default = "false" if data_type == "boolean" else "''"
            cursor.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" SET DEFAULT {default}')


def strip_indexes(cursor: Any) -> list[str]:
    """Drop the unique constraints and secondary indexes of the bulk-loaded tables (primary keys
    stay) and return the statements that put them back exactly: building an index once over the
    loaded rows is much faster than maintaining it row by row."""
    restore: list[str] = []
    for table in BULK_TABLES:
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype = 'u'",
            [table],
        )
        for name, definition in cursor.fetchall():
            cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
            restore.append(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
        cursor.execute(
            "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = %s "
            "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)",
            [table],
        )
        for name, definition in cursor.fetchall():
            cursor.execute(f'DROP INDEX "{name}"')
            restore.append(definition)
    return restore


def generate(hands: int, tables: int, *, verbose: bool = False, first_number: int = 1) -> dict[str, Any]:
    """The year of ``hands`` hands over ``tables`` tables numbered from ``first_number`` (the
    database may hold other tables, numbered below: bench_big_room.py's room)."""
    import datetime as dt

    from django.conf import settings
    from django.db import connection, transaction

    default_unlisted_columns()
    zone = settings.TIME_ZONE
    year_start = dt.datetime(dt.date.today().year - 1, 1, 1, tzinfo=dt.UTC)
    t0 = time.perf_counter()
    setup = floor(tables, year_start, first_number)
    if verbose:
        print(
            f"  {time.perf_counter() - t0:7.1f} s  tables, players and buy-ins through the services",
            flush=True,
        )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("SET LOCAL work_mem = '256MB'")
        cursor.execute("SET LOCAL maintenance_work_mem = '512MB'")
        fee_table(cursor, setup)
        restore = strip_indexes(cursor)
        cursor.execute("SELECT max(id) FROM ledger_journaltransaction")
        txn_base = cursor.fetchone()[0] or 0
        cursor.execute("SELECT max(id) FROM ledger_entry")
        entry_base = cursor.fetchone()[0] or 0
        params = {
            "n": hands,
            "tables": tables,
            "start": year_start,
            "step": DAYS * 86400.0 / hands,
            "zone": zone,
            "revised": setup["revised_at"],
            "txn": txn_base,
            "entry": entry_base,
            "first": first_number,
        }
        steps = [
            # Table and seat/player lookups by index.
            """CREATE TEMP TABLE bench_table AS
               SELECT row_number() OVER (ORDER BY t.number) - 1 AS idx, t.id, t.game_id, t.stakes_id,
                      t.collection_schedule_id
               FROM tables_table t WHERE t.number >= %(first)s""",
            """CREATE TEMP TABLE bench_seat AS
               SELECT s.table_id, s.number, s.id AS seat_id, st.player_id, a.id AS account_id
               FROM tables_seat s JOIN tables_seating st ON st.seat_id = s.id AND st.left_at IS NULL
               JOIN ledger_account a ON a.kind = 'player_chips' AND a.table_id = s.table_id
                    AND a.player_id = st.player_id
               WHERE s.table_id IN (SELECT id FROM bench_table)""",
            "CREATE INDEX ON bench_seat (table_id, number)",
            # The hands: spread evenly over the year, round-robin over the tables.
            """CREATE TEMP TABLE bench_hand AS
               SELECT i AS hid, t.id AS table_id, t.game_id, t.stakes_id, t.collection_schedule_id,
                      (i - 1) / %(tables)s + 1 AS number,
                      %(start)s::timestamptz + ((i - 1) * %(step)s + (i * 37) %% 50) * interval '1 second'
                          AS created_at,
                      2 + (i * 7919) %% 9 AS n,
                      1 + (i * 31) %% 10 AS button,
                      (i %% 97 = 0) AS void
               FROM generate_series(1::bigint, %(n)s::bigint) i
               JOIN bench_table t ON t.idx = i %% %(tables)s""",
            """SELECT setval(pg_get_serial_sequence('tables_hand', 'id'),
                      greatest((SELECT max(id) FROM tables_hand), 1))""",
            """CREATE TEMP TABLE bench_hand_id AS
               SELECT hid, nextval(pg_get_serial_sequence('tables_hand', 'id')) AS id FROM bench_hand""",
            """INSERT INTO tables_hand (id, table_id, number, game_id, stakes_id, collection_schedule_id,
                   status, button_seat_id, kill_multiplier_pct, created_at, dealt_at, settled_at, voided_at,
                   void_reason)
               SELECT hi.id, h.table_id, h.number, h.game_id, h.stakes_id, h.collection_schedule_id,
                      CASE WHEN h.void THEN 'void' ELSE 'settled' END, s.seat_id, 100, h.created_at,
                      h.created_at,
                      CASE WHEN h.void THEN NULL ELSE h.created_at END,
                      CASE WHEN h.void THEN h.created_at END,
                      CASE WHEN h.void THEN 'benchmark misdeal' ELSE '' END
               FROM bench_hand h JOIN bench_hand_id hi USING (hid)
               JOIN bench_seat s ON s.table_id = h.table_id AND s.number = h.button""",
            # Players dealt in: the button and the next n-1 seats clockwise.
            """INSERT INTO tables_handplayer (hand_id, seat_id, player_id, position)
               SELECT hi.id, s.seat_id, s.player_id, p
               FROM bench_hand h JOIN bench_hand_id hi USING (hid)
               CROSS JOIN LATERAL generate_series(1, h.n) p
               JOIN bench_seat s ON s.table_id = h.table_id AND s.number = (h.button + p - 2) %% 10 + 1""",
            # House-collection accounts, one per table and shift of the year (and a day each side).
            """INSERT INTO ledger_account (kind, table_id, shift_date, shift_code, balance, created_at)
               SELECT 'house_collection', t.id, d::date, c, 0, now()
               FROM bench_table t
               CROSS JOIN generate_series((%(start)s::timestamptz AT TIME ZONE %(zone)s)::date - 1,
                                          (%(start)s::timestamptz AT TIME ZONE %(zone)s)::date + 367,
                                          interval '1 day') d
               CROSS JOIN (VALUES ('grave'), ('day'), ('swing')) codes(c)""",
            # Per hand: its fee, the house account of its shift, the transaction ids.
            """CREATE TEMP TABLE bench_money AS
               SELECT h.*, hi.id AS hand_id, f.fee, a.id AS house_id, b.account_id AS button_account,
                      %(txn)s + 3 * h.hid - 2 AS fee_txn, %(txn)s + 3 * h.hid - 1 AS settle_txn,
                      %(txn)s + 3 * h.hid AS return_txn
               FROM bench_hand h JOIN bench_hand_id hi USING (hid)
               JOIN bench_fee f ON f.stakes_id = h.stakes_id AND f.n = h.n
                    AND f.revised = (h.created_at >= %(revised)s)
               JOIN ledger_account a ON a.kind = 'house_collection' AND a.table_id = h.table_id
                    AND a.shift_date = (h.created_at AT TIME ZONE %(zone)s)::date
                    AND a.shift_code = CASE
                        WHEN extract(hour FROM h.created_at AT TIME ZONE %(zone)s) < 8 THEN 'grave'
                        WHEN extract(hour FROM h.created_at AT TIME ZONE %(zone)s) < 16 THEN 'day'
                        ELSE 'swing' END
               JOIN bench_seat b ON b.table_id = h.table_id AND b.number = h.button""",
            """INSERT INTO ledger_journaltransaction (id, kind, table_id, hand_id, created_at, memo,
                   idempotency_key, request_digest, chain, sequence, prev_hash, hash, reverses_id)
               SELECT m.fee_txn, 'fee', m.table_id, m.hand_id, m.created_at, '',
                      'hand:' || m.hand_id || ':fees', md5(m.fee_txn::text) || md5('r'),
                      'bench:table:' || m.table_id, m.fee_txn, repeat('0', 64),
                      md5(m.fee_txn::text) || md5('h' || m.fee_txn), NULL::bigint
               FROM bench_money m
               UNION ALL
               SELECT m.settle_txn, 'settlement_payment', m.table_id, m.hand_id,
                      m.created_at + interval '90 seconds',
                      '', 'hand:' || m.hand_id || ':settle', md5(m.settle_txn::text) || md5('r'),
                      'bench:table:' || m.table_id, m.settle_txn, repeat('0', 64),
                      md5(m.settle_txn::text) || md5('h' || m.settle_txn), NULL::bigint
               FROM bench_money m WHERE NOT m.void
               UNION ALL
               SELECT m.return_txn, 'reversal', m.table_id, m.hand_id, m.created_at + interval '60 seconds',
                      'benchmark misdeal', 'hand:' || m.hand_id || ':fees:return',
                      md5(m.return_txn::text) || md5('r'),
                      'bench:table:' || m.table_id, m.return_txn, repeat('0', 64),
                      md5(m.return_txn::text) || md5('h' || m.return_txn), m.fee_txn
               FROM bench_money m WHERE m.void""",
            # Entries: the fee (button -> house), four payments between the hand's players, the returns.
            """INSERT INTO ledger_entry (transaction_id, line, account_id, amount)
               SELECT m.fee_txn, 1, m.button_account, -m.fee FROM bench_money m
               UNION ALL SELECT m.fee_txn, 2, m.house_id, m.fee FROM bench_money m
               UNION ALL SELECT m.return_txn, 1, m.button_account, m.fee FROM bench_money m WHERE m.void
               UNION ALL SELECT m.return_txn, 2, m.house_id, -m.fee FROM bench_money m WHERE m.void
               UNION ALL
               SELECT m.settle_txn, 2 * k - 1 + side, s.account_id,
                      CASE WHEN side = 0 THEN -1 ELSE 1 END * (100 + (m.hid * k * 13) %% 1900)
               FROM bench_money m CROSS JOIN generate_series(1, 4) k CROSS JOIN (VALUES (0), (1)) sides(side)
               JOIN bench_seat s ON s.table_id = m.table_id
                    AND s.number = (m.button - 1
                                    + CASE WHEN side = 0 THEN k %% m.n ELSE (k + 1) %% m.n END) %% 10 + 1
               WHERE NOT m.void""",
            """UPDATE ledger_account a SET balance = a.balance + s.total
               FROM (SELECT account_id, sum(amount) AS total FROM ledger_entry WHERE id > %(entry)s
                     GROUP BY account_id) s
               WHERE a.id = s.account_id""",
            """INSERT INTO ledger_chainhead (chain, sequence, hash)
               SELECT chain, max(sequence), repeat('f', 64) FROM ledger_journaltransaction
               WHERE chain LIKE 'bench:%%' GROUP BY chain""",
            """SELECT setval(pg_get_serial_sequence('ledger_journaltransaction', 'id'),
                             (SELECT max(id) FROM ledger_journaltransaction))""",
        ]
        for sql in steps:
            t = time.perf_counter()
            cursor.execute(sql, params)
            if verbose:
                print(f"  {time.perf_counter() - t:7.1f} s  {' '.join(sql.split())[:70]}", flush=True)
        t = time.perf_counter()
        for sql in restore:
            cursor.execute(sql)
        if verbose:
            print(
                f"  {time.perf_counter() - t:7.1f} s  {len(restore)} indexes and constraints rebuilt",
                flush=True,
            )
    with connection.cursor() as cursor:
        # As autovacuum would after a load: statistics, and the visibility map for index-only scans.
        cursor.execute("VACUUM ANALYZE")
        cursor.execute(
            "SELECT (SELECT count(*) FROM tables_hand), (SELECT count(*) FROM tables_handplayer), "
            "(SELECT count(*) FROM ledger_journaltransaction), (SELECT count(*) FROM ledger_entry), "
            "(SELECT coalesce(sum(balance), 0) FROM ledger_account)"
        )
        counts = dict(
            zip(
                ["hands", "hand_players", "transactions", "entries", "balance_sum"],
                cursor.fetchone(),
                strict=True,
            )
        )
    assert counts["balance_sum"] == 0, counts
    counts["seconds"] = time.perf_counter() - t0
    return counts


BASELINE_SQL = """
WITH month_hands AS (
    SELECT h.table_id, h.game_id, h.stakes_id, h.collection_schedule_id, h.status,
           (SELECT count(*) FROM tables_handplayer p WHERE p.hand_id = h.id) AS n
    FROM tables_hand h
    WHERE h.created_at >= %(start)s AND h.created_at < %(end)s
)
SELECT table_id, game_id, stakes_id, collection_schedule_id, n,
       count(*), count(*) FILTER (WHERE status = 'void')
FROM month_hands GROUP BY 1, 2, 3, 4, 5
"""
BASELINE_FEES_SQL = """
SELECT a.table_id, h.game_id, h.stakes_id, h.collection_schedule_id, t.kind, sum(e.amount)
FROM ledger_entry e
JOIN ledger_account a ON a.id = e.account_id
JOIN ledger_journaltransaction t ON t.id = e.transaction_id
LEFT JOIN tables_hand h ON h.id = t.hand_id
WHERE a.kind = 'house_collection' AND a.shift_date >= %(first)s AND a.shift_date <= %(last)s
GROUP BY 1, 2, 3, 4, 5
"""

# The same SQL written for the report's own groups: the report shows each shift of each day (its
# lines and closes) and fees by hour of day, so it groups hands by business date, shift and the
# schedule version in force, and fee entries by business date, hour and house account, where the
# two queries above group by table, game, stakes and schedule only (about 100 rows against the
# report's 47,000). Shifts are 8 hours from midnight (ledger.shifts.SHIFT_STARTS).
BASELINE_SAME_GROUPS_SQL = """
WITH month_hands AS (
    SELECT (h.created_at AT TIME ZONE %(zone)s)::date AS day,
           extract(hour FROM h.created_at AT TIME ZONE %(zone)s)::int / 8 AS shift,
           h.table_id, h.game_id, h.stakes_id, h.collection_schedule_id, h.status,
           (SELECT v.id FROM tables_collectionscheduleversion v
             WHERE v.schedule_id = h.collection_schedule_id AND v.effective_from <= h.created_at
             ORDER BY v.effective_from DESC LIMIT 1) AS version_id,
           (SELECT count(*) FROM tables_handplayer p WHERE p.hand_id = h.id) AS n
    FROM tables_hand h
    WHERE h.created_at >= %(start)s AND h.created_at < %(end)s
)
SELECT day, shift, table_id, game_id, stakes_id, collection_schedule_id, version_id, n,
       count(*), count(*) FILTER (WHERE status = 'void')
FROM month_hands GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
"""
BASELINE_SAME_GROUPS_FEES_SQL = """
SELECT (h.created_at AT TIME ZONE %(zone)s)::date, extract(hour FROM h.created_at AT TIME ZONE %(zone)s),
       h.table_id, h.game_id, h.stakes_id, h.collection_schedule_id, h.status, t.kind, e.account_id,
       sum(e.amount)
FROM ledger_entry e
JOIN ledger_account a ON a.id = e.account_id
JOIN ledger_journaltransaction t ON t.id = e.transaction_id
JOIN tables_hand h ON h.id = t.hand_id
WHERE a.kind = 'house_collection' AND a.shift_date >= %(first)s AND a.shift_date <= %(last)s
  AND t.kind IN ('fee', 'reversal')
  AND h.created_at >= %(start)s AND h.created_at < %(end)s
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
"""


def measure(rounds: int) -> dict[str, Any]:
    import datetime as dt

    from django.db import connection, transaction

    from backoffice.reports.collection import build_collection_report
    from backoffice.reports.common import ReportFilters

    with connection.cursor() as cursor:
        cursor.execute("SELECT max(created_at) FROM tables_hand")
        last = cursor.fetchone()[0]
    # The busiest full month: the last complete month of the generated year.
    month_end = dt.date(last.year, last.month, 1) - dt.timedelta(days=1)
    first = month_end.replace(day=1)
    filters = ReportFilters(date_from=first, date_to=month_end)
    from django.conf import settings

    params: dict[str, Any] = {
        "start": filters.start,
        "end": filters.end,
        "first": first,
        "last": month_end,
        "zone": settings.TIME_ZONE,
    }

    def baseline(jit: bool, same_groups: bool = False) -> tuple[list[Any], list[Any]]:
        with transaction.atomic(), connection.cursor() as cursor:
            if not jit:
                cursor.execute("SET LOCAL jit = off")
            cursor.execute(BASELINE_SAME_GROUPS_SQL if same_groups else BASELINE_SQL, params)
            hands = cursor.fetchall()
            cursor.execute(BASELINE_SAME_GROUPS_FEES_SQL if same_groups else BASELINE_FEES_SQL, params)
            return hands, cursor.fetchall()

    report_times: list[float] = []
    sql_times: list[float] = []  # server defaults (JIT as configured)
    sql_nojit_times: list[float] = []  # the same session setting as the report
    same_times: list[float] = []  # the report's own groups, jit off as the report
    same_result: tuple[list[Any], list[Any]] = ([], [])
    report = None
    sql_result: tuple[list[Any], list[Any]] = ([], [])
    for _ in range(rounds):  # alternate, so a change in the machine's load hits all alike
        t = time.perf_counter()
        sql_result = baseline(jit=True)
        sql_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        baseline(jit=False)
        sql_nojit_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        same_result = baseline(jit=False, same_groups=True)
        same_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        report = build_collection_report(filters)
        report_times.append(time.perf_counter() - t)
    assert report is not None
    hands, fees = sql_result
    sql_hands = sum(row[5] for row in hands)
    sql_players = sum(row[4] * row[5] for row in hands)
    sql_net = sum(row[5] for row in fees)
    assert report.totals.hands == sql_hands, (report.totals.hands, sql_hands)
    assert report.totals.players == sql_players, (report.totals.players, sql_players)
    assert report.net_collected_cents == sql_net, (report.net_collected_cents, sql_net)
    assert report.totals.fees_due_cents == report.totals.fees_collected_cents
    same_hands, same_fees = same_result
    assert sum(row[8] for row in same_hands) == sql_hands
    assert sum(row[7] * row[8] for row in same_hands) == sql_players
    assert sum(row[9] for row in same_fees) == sql_net
    return {
        "month": f"{first:%Y-%m}",
        "hands": sql_hands,
        "players": sql_players,
        "net_cents": sql_net,
        "rows": len(report.rows),
        "report_s": min(report_times),
        "sql_s": min(sql_times),
        "sql_nojit_s": min(sql_nojit_times),
        "same_s": min(same_times),
        "same_rows": len(same_hands) + len(same_fees),
    }


def measure_hand_history(rounds: int) -> dict[str, Any]:
    """One table's hand history for a day, as the page and the API build it
    (``build_hand_history`` for that table and business date, every hand of the day on one page):
    the busiest table-day of the last complete month, best of ``rounds``."""
    import datetime as dt

    from django.db import connection

    from backoffice.reports.common import ReportFilters
    from backoffice.reports.hands import MAX_LIMIT, build_hand_history

    with connection.cursor() as cursor:
        cursor.execute("SELECT max(created_at) FROM tables_hand")
        last = cursor.fetchone()[0]
        month_end = dt.date(last.year, last.month, 1) - dt.timedelta(days=1)
        # The busiest table of the month's last day, found by the SQL the report doesn't use.
        cursor.execute(
            "SELECT t.number, count(*) FROM tables_hand h JOIN tables_table t ON t.id = h.table_id "
            "WHERE h.created_at >= %s AND h.created_at < %s + interval '2 days' "
            "GROUP BY t.number ORDER BY count(*) DESC, t.number LIMIT 1",
            [month_end - dt.timedelta(days=1), month_end - dt.timedelta(days=1)],
        )
        number = cursor.fetchone()[0]
    filters = ReportFilters(date_from=month_end, date_to=month_end, tables=(number,))
    times: list[float] = []
    history = None
    for _ in range(rounds):
        t = time.perf_counter()
        history = build_hand_history(filters, limit=MAX_LIMIT)
        times.append(time.perf_counter() - t)
    assert history is not None
    assert history.total == len(history.hands), (history.total, len(history.hands))
    assert {line.table_number for line in history.hands} <= {number}
    return {
        "day": f"{month_end:%Y-%m-%d}",
        "table": number,
        "hands": history.total,
        "seconds": min(times),
        "first_s": times[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--db", default="casino_bench_reports")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure a kept database without generating")
    parser.add_argument("--verbose", action="store_true", help="time each generation step")
    args = parser.parse_args()

    if not args.reuse:
        t = time.perf_counter()
        create_database(args.db)
        print(f"migrated and loaded house data in {time.perf_counter() - t:.1f} s", flush=True)
    setup_django(args.db)
    from casino.core.money import format_cents

    try:
        if not args.reuse:
            counts = generate(args.hands, args.tables, verbose=args.verbose)
            print(
                f"generated {counts['hands']:,} hands, {counts['hand_players']:,} players dealt in, "
                f"{counts['transactions']:,} transactions, {counts['entries']:,} entries "
                f"in {counts['seconds']:.1f} s",
                flush=True,
            )
        result = measure(args.rounds)
        best_sql = min(result["sql_s"], result["sql_nojit_s"])
        ratio = result["report_s"] / best_sql if best_sql else float("inf")
        print()
        print(
            f"monthly collection report, {result['month']}: {result['hands']:,} hands, "
            f"{result['players']:,} players"
        )
        print(
            f"  rows (table/game/stakes/schedule): {result['rows']}, "
            f"net fees {format_cents(result['net_cents'])}"
        )
        print(f"  {'':38} {'seconds':>8}")
        print(f"  {'build_collection_report (Django)':38} {result['report_s']:8.3f}")
        print(f"  {'hand-written SQL, server defaults':38} {result['sql_s']:8.3f}")
        print(f"  {'hand-written SQL, jit off':38} {result['sql_nojit_s']:8.3f}")
        print(
            f"  {'hand-written SQL, the report groups':38} {result['same_s']:8.3f}"
            f"  ({result['same_rows']:,} rows, jit off)"
        )
        same = result["report_s"] / result["same_s"] if result["same_s"] else float("inf")
        print(f"  ratio to the SQL of fewer groups {ratio:.2f}x")
        ok = same <= 1.5 and result["report_s"] < 5
        print(
            f"  ratio to the SQL of the report's groups {same:.2f}x (target <= 1.5x and < 5 s): "
            f"{'OK' if ok else 'MISSED'}"
        )
        history = measure_hand_history(args.rounds)
        print()
        print(
            f"hand history of table {history['table']} on {history['day']}: {history['hands']:,} hands, "
            f"best {history['seconds'] * 1000:.0f} ms (first {history['first_s'] * 1000:.0f} ms), "
            f"target < 200 ms: {'OK' if history['seconds'] < 0.2 else 'MISSED'}"
        )
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            _admin(f'DROP DATABASE IF EXISTS "{args.db}"')


if __name__ == "__main__":
    main()
