"""Benchmark: the nightly integrity check of one new day against the full check, on a year kept by
``bench_reports.py --keep`` (or ``bench_replay_audit.py --keep``).

    DEBUG=1 .venv/bin/python benchmarks/bench_nightly_checks.py [--db casino_bench_reports]

What it does (PostgreSQL; the kept database is changed only by adding checkpoints and checks):

1. times the full check (``backoffice.reports.integrity.run_full_check``: every journal row's hash
   and entries, every account, every hand, the stored anchors, the guards), as the worker runs it;
2. stores checkpoints as if the year less its last day had been verified (all but the last 365th
   of the journal rows and of the hands, by id; each chain's last row before then, for the heads);
3. times the nightly check of that last day (``run_nightly_check``): the rows since the
   checkpoint plus the night's seventh of the older ones, and prints each part's seconds from its
   checkpoint.

The benchmark years are not hash-chained (their hashes are placeholders, their sequences not
1, 2, 3...), so both checks report problems (capped, counted): the work (reading, hashing, adding
up) is the same as for a sound ledger.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SERVER = "postgres://postgres@127.0.0.1:5432"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="casino_bench_reports")
    parser.add_argument("--skip-full", action="store_true", help="don't time the full check")
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = f"{SERVER}/{args.db}"
    os.environ["CELERY_BROKER_URL"] = ""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    import django

    django.setup()
    from django.db import connection
    from django.db.models import Max

    from backoffice.integrity_checks import run_full_check, run_nightly_check
    from ledger.models import (
        CheckpointKind,
        CheckpointPart,
        Entry,
        JournalTransaction,
        VerificationCheckpoint,
    )
    from tables.models import Hand

    rows, entries, hands = JournalTransaction.objects.count(), Entry.objects.count(), Hand.objects.count()
    print(f"database {args.db}: {hands:,} hands, {rows:,} journal rows, {entries:,} entries")
    full_seconds = 0.0
    if not args.skip_full:
        t0 = time.perf_counter()
        full = run_full_check()
        full_seconds = time.perf_counter() - t0
        print(f"full check: {full_seconds:.1f} s ({full.transactions:,} rows, ok={full.ok})")
        for part in VerificationCheckpoint.objects.filter(part=CheckpointPart.FULL).order_by("pk"):
            print(f"  {part.kind:7} full   {part.rows:>10,} rows {part.seconds:8.1f} s")

    # The new day: the last 365th of the rows by id (the project's ids grow with time; the
    # benchmark's are spread over the year, so the last day by date would be all over the ids).
    day_rows = max(1, rows // 365)
    last_id = JournalTransaction.objects.order_by("-pk").values_list("pk", flat=True)[day_rows]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT ON (chain) chain, sequence, hash FROM ledger_journaltransaction "
            "WHERE id <= %s ORDER BY chain, sequence DESC",
            [last_id],
        )
        heads = {chain: [sequence, head_hash] for chain, sequence, head_hash in cursor.fetchall()}
    last_hand = Hand.objects.order_by("-pk").values_list("pk", flat=True)[max(1, hands // 365)]
    VerificationCheckpoint.objects.create(
        kind=CheckpointKind.LEDGER,
        part=CheckpointPart.FULL,
        first_id=1,
        last_id=last_id,
        heads=heads,
        ok=True,
    )
    VerificationCheckpoint.objects.create(
        kind=CheckpointKind.HANDS, part=CheckpointPart.FULL, first_id=1, last_id=last_hand, ok=True
    )
    mark = VerificationCheckpoint.objects.aggregate(top=Max("pk"))["top"]
    t0 = time.perf_counter()
    nightly = run_nightly_check(day=dt.date(2031, 1, 1))
    nightly_seconds = time.perf_counter() - t0
    print(f"nightly check of the last day: {nightly_seconds:.1f} s ({nightly.transactions:,} rows read)")
    since_seconds = 0.0
    for part in VerificationCheckpoint.objects.filter(pk__gt=mark).order_by("pk"):
        print(
            f"  {part.kind:7} {part.part:8} ids {part.first_id:,}..{part.last_id:,}: "
            f"{part.rows:>10,} rows {part.seconds:8.1f} s"
        )
        if part.part == CheckpointPart.SINCE:
            since_seconds += part.seconds
    if full_seconds:
        day_share, night_share = 100 * since_seconds / full_seconds, 100 * nightly_seconds / full_seconds
        print(
            f"the new day's rows: {since_seconds:.2f} s = {day_share:.1f}% of the full check; "
            f"the whole nightly (with the rotating seventh): {night_share:.1f}%"
        )


if __name__ == "__main__":
    main()
