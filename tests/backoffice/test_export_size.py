"""Exports with a size: a background export's CSV is written to disk a page of rows at a time (the
same bytes as the export built in memory), downloaded as a stream from its file, bounded in rows
and bytes (a PDF in rows) with the way to split it; unknown parameters are refused and nothing is
stored; an export asked for again while it is queued or being built is that export, not a second
run."""

from __future__ import annotations

import datetime as dt
import os
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.http import FileResponse
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from backoffice import exports
from backoffice.reports import hands as hands_report
from backoffice.reports import journal as journal_report
from backoffice.reports.common import ReportFilterError, make_meta
from ledger.hashing import sha256_hex
from ledger.models import ExportStatus, ReportExport
from ledger.shifts import room_zone
from tests.factories import ReportRoom, at_local, file_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def a_day(room: ReportRoom, a_past_day: dt.date) -> dt.date:
    table = room.table(81, schedule=room.limit_schedule())
    players = room.seat(table, ["Ann", "Ben", "Cy"])
    for minute in range(0, 50, 10):
        room.hand(table, players, at=at_local(a_past_day, 10, minute))
    return a_past_day


def _period(a_day: dt.date) -> dict[str, str]:
    """From ``a_day`` (its hands) to today (the journal's postings: made now, dated now)."""
    today = timezone.localtime(timezone.now(), room_zone()).date()
    return {"date_from": a_day.isoformat(), "date_to": today.isoformat()}


def _api(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- Writing: a page at a time, the same bytes ------------------------------------------------------


def _generated_journal(pages: int, per_page: int, produced: list[int]) -> Iterator[journal_report.Journal]:
    """A journal of ``pages`` pages of ``per_page`` transactions of two entries each, made as the
    writer asks for them; ``produced`` counts the pages made so far."""
    meta = make_meta("journal", journal_report.TITLE, None)
    at = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    for page in range(pages):
        lines = [
            journal_report.JournalTransactionLine(
                transaction_id=n,
                at=at,
                kind="buy_in",
                table_number=7,
                hand_id=None,
                idempotency_key=f"buy-in-{n:012d}",
                memo="generated",
                created_by="cage",
                reverses_id=None,
                chain="main",
                sequence=n,
                hash="0" * 64,
                entries=[
                    journal_report.JournalEntryLine(1, 1, "cage: table 7", -2500, -2500 * n),
                    journal_report.JournalEntryLine(2, 2, f"chips: player {n} @ table 7", 2500, 2500),
                ],
            )
            for n in range(page * per_page + 1, (page + 1) * per_page + 1)
        ]
        produced.append(page)
        yield journal_report.Journal(meta, pages * per_page, page * per_page, per_page, lines, 0)


def test_the_writer_holds_one_page_at_a_time_whatever_the_size(tmp_path: Path) -> None:
    produced: list[int] = []
    pages = _generated_journal(200, 250, produced)  # 100,000 rows, about 14 MB of CSV
    target = tmp_path / "journal.csv"
    tracemalloc.start()
    try:
        written = exports.write_export(pages, target, max_rows=10**9, max_bytes=10**12)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert produced == list(range(200))  # every page asked for, one after the other
    assert written.rows == 100_000
    assert written.size == target.stat().st_size > 10_000_000
    assert peak < 4_000_000, f"the writer held {peak:,} bytes for a {written.size:,}-byte file"
    data = target.read_bytes()
    assert written.sha256 == sha256_hex(data)  # hashed as it was written
    # The same bytes as the export of the whole report built in memory.
    whole = exports.merge_pages(_generated_journal(200, 250, []))
    assert data == exports.export_file(whole)[0]
    assert not [path for path in tmp_path.iterdir() if path != target]  # nothing else left behind


def test_a_paged_export_written_page_by_page_is_the_export_of_the_whole_report(
    a_day: dt.date, monkeypatch: pytest.MonkeyPatch, staff: dict[str, Any]
) -> None:
    monkeypatch.setattr(hands_report, "MAX_LIMIT", 2)  # pages of two hands, of two transactions
    monkeypatch.setattr(journal_report, "MAX_LIMIT", 2)
    for kind in ("hand_history", "journal"):
        params = _period(a_day)
        export = exports.request_export(kind=kind, export_format="csv", params=params, by=staff["auditor"])
        done = exports.build_export(export.pk)
        assert done.status == ExportStatus.DONE, done.error
        assert bytes(done.content) == b""  # the file is on disk, not in the row
        data = exports.export_path(done.pk).read_bytes()
        assert len(list(exports.report_pages(kind, params))) > 2
        expected, _, extension = exports.export_file(exports.build_report(kind, params, full=True))
        assert (data, done.sha256, done.size) == (expected, sha256_hex(expected), len(expected))
        assert done.filename.endswith(f".{extension}")


def test_the_journal_export_reads_through_one_cursor(a_day: dt.date, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole period's journal is read with ``.iterator()`` (a server-side cursor on
    PostgreSQL), never an OFFSET page after page nor a list of every row."""
    calls: list[int | None] = []
    original = journal_report.JournalTransaction.objects.none().__class__.iterator

    def iterator(self: Any, chunk_size: int | None = None) -> Any:
        calls.append(chunk_size)
        return original(self, chunk_size=chunk_size)

    monkeypatch.setattr(type(journal_report.JournalTransaction.objects.none()), "iterator", iterator)
    pages = list(exports.report_pages("journal", _period(a_day)))
    assert calls == [journal_report.MAX_LIMIT]
    assert sum(len(page.transactions) for page in pages) == pages[0].total > 0


# --- Downloading: a stream from the file ------------------------------------------------------------


def test_a_download_streams_the_file_from_disk(a_day: dt.date, staff: dict[str, Any]) -> None:
    export = exports.request_export(
        kind="collection", export_format="csv", params={"date_from": a_day.isoformat()}, by=staff["auditor"]
    )
    export = exports.build_export(export.pk)
    on_disk = exports.export_path(export.pk).read_bytes()
    client = _api(staff["auditor"])
    for url in (
        f"/api/ledger/exports/{export.pk}/download/",
        reverse("reports:export-download", args=[export.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 200
        assert isinstance(response, FileResponse)  # chunks from the file, never whole
        assert response.streaming
        assert response["Content-Type"] == "application/zip"
        assert response["Content-Disposition"] == f'attachment; filename="{export.filename}"'
        assert response["Content-Length"] == str(export.size)
        assert response["X-Content-SHA256"] == export.sha256 == sha256_hex(on_disk)
        assert file_bytes(response) == on_disk
    # Past its retention the file is deleted with the purge; the row stays. What a build cut short
    # left (a worker killed mid-way) goes too, once it is a day old.
    left = exports.export_path(export.pk).parent / ".export-cut-short"
    left.mkdir()
    (left / "0.csv").write_bytes(b"half")
    os.utime(left, (time.time() - 90_000, time.time() - 90_000))
    ReportExport.objects.filter(pk=export.pk).update(finished_at=export.finished_at - exports.retention())
    assert exports.purge_expired_exports() == 1
    assert not exports.export_path(export.pk).exists()
    assert not left.exists()
    assert client.get(f"/api/ledger/exports/{export.pk}/download/").status_code == 410


def test_an_export_from_before_files_on_disk_is_served_from_its_row(staff: dict[str, Any]) -> None:
    data = b"a,b\r\n1,2\r\n"
    export = ReportExport.objects.create(
        kind="collection",
        format="csv",
        status=ExportStatus.DONE,
        content=data,
        sha256=sha256_hex(data),
        size=len(data),
        filename="collection-2030-01-02.csv",
        finished_at=dt.datetime.now(dt.UTC),
    )
    response = _api(staff["auditor"]).get(f"/api/ledger/exports/{export.pk}/download/")
    assert (response.status_code, file_bytes(response)) == (200, data)
    assert response["X-Content-SHA256"] == sha256_hex(data)


# --- Bounds: rows, bytes, a PDF's rows --------------------------------------------------------------


def test_an_export_over_its_bound_fails_saying_how_to_split_it(
    a_day: dt.date, settings: Any, staff: dict[str, Any]
) -> None:
    params = _period(a_day)
    settings.EXPORT_MAX_ROWS = 3
    export = exports.request_export(kind="journal", export_format="csv", params=params, by=staff["auditor"])
    failed = exports.build_export(export.pk)
    assert failed.status == ExportStatus.FAILED
    for words in ("more than 3 rows", "EXPORT_MAX_ROWS", "shorter period", "a month at a time"):
        assert words in failed.error
    assert not exports.export_path(export.pk).exists()  # nothing half-written is kept
    assert not list(Path(settings.EXPORT_DIR).iterdir())
    client = _api(staff["auditor"])
    assert client.get(f"/api/ledger/exports/{export.pk}/download/").status_code == 404
    page = client.get(reverse("reports:export-download", args=[export.pk])).content.decode()
    assert "EXPORT_MAX_ROWS" in page  # the export's page says why
    # Bytes too.
    settings.EXPORT_MAX_ROWS, settings.EXPORT_MAX_BYTES = 10**6, 500
    export = exports.request_export(kind="journal", export_format="csv", params=params, by=staff["auditor"])
    failed = exports.build_export(export.pk)
    assert failed.status == ExportStatus.FAILED
    assert "larger than 500 bytes" in failed.error
    assert "EXPORT_MAX_BYTES" in failed.error
    # A PDF: a bound in rows, and the advice to export the CSV.
    settings.EXPORT_PDF_MAX_ROWS = 3
    export = exports.request_export(kind="journal", export_format="pdf", params=params, by=staff["auditor"])
    failed = exports.build_export(export.pk)
    assert failed.status == ExportStatus.FAILED
    assert "at most 3 rows (EXPORT_PDF_MAX_ROWS)" in failed.error
    assert "as CSV" in failed.error
    assert not exports.export_path(export.pk).exists()


def test_a_pdf_stops_reading_past_its_bound() -> None:
    produced: list[int] = []
    with pytest.raises(exports.ExportTooBig):
        exports.merge_pages(_generated_journal(100, 10, produced), max_rows=45)
    assert produced == [0, 1, 2]  # 60 rows read, never the 2,000 of the report


# --- Parameters: only those the report reads ---------------------------------------------------------


def test_unknown_parameters_are_refused_and_nothing_is_stored(staff: dict[str, Any]) -> None:
    client = _api(staff["auditor"])
    junk = client.post(
        "/api/ledger/exports/",
        {"report": "integrity", "format": "csv", "params": {"junk": "x" * 100_000}},
        "application/json",
    )
    assert junk.status_code == 400
    assert set(junk.json()["errors"]) == {"junk"}
    assert "not a parameter of this report" in junk.json()["errors"]["junk"]
    wrong = client.post(
        "/api/ledger/exports/",
        {"report": "journal", "format": "csv", "params": {"date_from": "2030-01-02", "dealer": "ann"}},
        "application/json",
    )
    assert wrong.status_code == 400
    assert set(wrong.json()["errors"]) == {"dealer"}
    long = client.post(
        "/api/ledger/exports/",
        {"report": "collection", "format": "csv", "params": {"table": "1," * 200}},
        "application/json",
    )
    assert long.status_code == 400
    assert long.json()["errors"] == {"table": "at most 200 characters"}
    form = client.post(reverse("reports:exports"), {"kind": "collection", "format": "csv", "junk": "x"})
    assert form.status_code == 400
    assert "junk" in form.content.decode()
    with pytest.raises(ReportFilterError):
        exports.request_export(kind="collection", export_format="csv", params={"junk": "1"}, by=None)
    assert not ReportExport.objects.exists()


def test_a_page_queues_its_export_without_what_its_report_does_not_read(
    a_day: dt.date, staff: dict[str, Any]
) -> None:
    export, created = exports.queue_export(
        kind="collection",
        export_format="pdf",
        params={"date_from": a_day.isoformat(), "utm_source": "mail"},
        by=staff["auditor"],
    )
    assert created
    assert export.params == {"date_from": a_day.isoformat()}


# --- Duplicates: one export built once ----------------------------------------------------------------


def test_the_same_export_asked_again_while_queued_is_the_one_export(
    staff: dict[str, Any], django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[int] = []
    monkeypatch.setattr("backoffice.tasks.build_export.delay", lambda export_id: sent.append(export_id))
    body = {"report": "integrity", "format": "csv"}
    ids = []
    for user in ("auditor", "auditor", "floor"):
        with django_capture_on_commit_callbacks(execute=True):
            response = _api(staff[user]).post("/api/ledger/exports/", body, "application/json")
        assert response.status_code == 202
        ids.append(response.json()["id"])
    assert len(set(ids)) == 1  # one export,
    assert sent == ids[:1]  # one verification queued
    assert ReportExport.objects.count() == 1
    # Different parameters or format: another export.
    with django_capture_on_commit_callbacks(execute=True):
        pdf = _api(staff["auditor"]).post(
            "/api/ledger/exports/", {**body, "format": "pdf"}, "application/json"
        )
    assert pdf.json()["id"] not in ids
    # Once built, asking again is a new verification: the ledger may have grown since.
    exports.build_export(ids[0])
    with django_capture_on_commit_callbacks(execute=True):
        again = _api(staff["auditor"]).post("/api/ledger/exports/", body, "application/json")
    assert again.json()["id"] != ids[0]
    assert sent == [ids[0], pdf.json()["id"], again.json()["id"]]
