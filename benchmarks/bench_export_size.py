"""Benchmark: writing and downloading a large journal export, streamed (a page of rows at a time to
disk, the download in chunks from the file) next to the old way (the whole report, then the whole
file, in memory).

    DEBUG=1 .venv/bin/python benchmarks/bench_export_size.py [--rows 1000000] [--old-rows 200000]

What it does (no database: the journal's pages are generated, two entries per transaction, as the
journal's export lays them out): each measurement runs in a child process of its own, and reports
its wall time and its peak resident memory (``ru_maxrss``), beside the child's memory after
Django's start-up alone:

* **write, streamed**: ``backoffice.exports.write_export`` of ``--rows`` rows, pages of
  ``journal.MAX_LIMIT`` transactions, to a file (what ``ledger.build_export`` does now);
* **write, old**: the whole report built (every page merged), then ``export_file`` (the bytes in
  memory), for ``--old-rows`` rows (the old way grows with the rows: keep it moderate);
* **download, streamed**: a ``FileResponse`` over that file, read to the end in its chunks (what
  the download views send now);
* **download, old**: the file read whole into an ``HttpResponse``.

The issue's figures for the old way (a year's journal on the production server): 144 MB written
in 112 s, the Celery child peaking at 1.73 GB; the download took a gunicorn worker from 550 MB to
1,373 MB.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    import django

    django.setup()


def _pages(rows: int) -> Iterator[Any]:
    """A generated journal of ``rows`` entry rows (two per transaction), a page at a time."""
    from backoffice.reports import journal
    from backoffice.reports.common import make_meta

    meta = make_meta("journal", journal.TITLE, None)
    at = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    transactions = rows // 2
    per_page = journal.MAX_LIMIT
    for first in range(1, transactions + 1, per_page):
        lines = [
            journal.JournalTransactionLine(
                transaction_id=n,
                at=at + dt.timedelta(seconds=n),
                kind="fee",
                table_number=n % 30 + 1,
                hand_id=n,
                idempotency_key=f"hand:{n}:fees",
                memo="",
                created_by="dealer" + str(n % 40),
                reverses_id=None,
                chain="main",
                sequence=n,
                hash=f"{n:064x}",
                entries=[
                    journal.JournalEntryLine(
                        1, 1, f"chips: Player {n % 300} @ table {n % 30 + 1}", -300, 50_000
                    ),
                    journal.JournalEntryLine(2, 2, f"house: table {n % 30 + 1} 2025-01-01/day", 300, 300 * n),
                ],
            )
            for n in range(first, min(first + per_page, transactions + 1))
        ]
        yield journal.Journal(meta, transactions, first - 1, len(lines), lines, 0)


def _child(mode: str, rows: int, path: Path) -> dict[str, Any]:
    _setup()
    from django.http import FileResponse, HttpResponse

    from backoffice import exports

    started_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    size = 0
    if mode == "write-stream":
        size = exports.write_export(_pages(rows), path, max_rows=10**12, max_bytes=10**15).size
    elif mode == "write-old":
        data, _, _ = exports.export_file(exports.merge_pages(_pages(rows)))
        path.write_bytes(data)
        size = len(data)
    elif mode == "download-stream":
        response = FileResponse(path.open("rb"), content_type="text/csv")
        for chunk in response:  # what the server sends: the file in chunks
            size += len(chunk)
        response.close()
    elif mode == "download-old":
        size = len(HttpResponse(path.read_bytes(), content_type="text/csv").content)
    return {
        "seconds": time.perf_counter() - t0,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "start_mb": started_rss / 1024,
        "size_mb": size / 1e6,
    }


def _run(mode: str, rows: int, path: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--rows", str(rows), "--path", str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of the streamed export")
    parser.add_argument("--old-rows", type=int, default=200_000, help="rows of the old, in-memory export")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.rows, Path(args.path))))
        return
    with tempfile.TemporaryDirectory() as work:
        streamed, old = Path(work) / "streamed.csv", Path(work) / "old.csv"
        results = [
            ("write, streamed", args.rows, _run("write-stream", args.rows, streamed)),
            ("download, streamed", args.rows, _run("download-stream", args.rows, streamed)),
            ("write, old (in memory)", args.old_rows, _run("write-old", args.old_rows, old)),
            ("download, old (in memory)", args.old_rows, _run("download-old", args.old_rows, old)),
        ]
    print(
        f"{'':28} {'rows':>10} {'file MB':>8} {'seconds':>8} {'start MB':>9} {'peak MB':>8} "
        f"{'MB/1M rows':>10}"
    )
    for name, rows, r in results:
        grown = (r["peak_mb"] - r["start_mb"]) / rows * 1e6
        print(
            f"{name:28} {rows:>10,} {r['size_mb']:>8.1f} {r['seconds']:>8.1f} "
            f"{r['start_mb']:>9.0f} {r['peak_mb']:>8.0f} {grown:>10.0f}"
        )
    print("issue #33, old way in production: 144 MB written in 112 s, the Celery child at 1,730 MB;")
    print("the download took a gunicorn worker from 550 MB to 1,373 MB.")


if __name__ == "__main__":
    main()
