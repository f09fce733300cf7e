"""Exports: one CSV per table of data (a zip when a report has several), dollar columns named as
such, deterministic, and its sha256 is what every report page and PDF shows; PDFs laid out for
reading (columns as wide as their widest word, totals per page and per report, the head and footer
on every page); background exports are built on commit, safe to run twice, cover the whole period,
and fail cleanly on bad parameters."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from backoffice import exports, pdf, tasks
from backoffice.reports import hands as hands_report
from backoffice.reports.collection import build_collection_report
from backoffice.reports.common import ReportFilterError, ReportFilters
from ledger.hashing import sha256_hex
from ledger.models import ExportStatus, ReportExport, ReportKind
from tables.models import Player
from tests.backoffice.pdf_pages import check_first_page, laid_out_tables, needs_pdftoppm, pdf_text
from tests.factories import ReportRoom, at_local, file_bytes, rpt_fee

pytestmark = pytest.mark.django_db


@pytest.fixture
def a_day(room: ReportRoom, a_past_day: dt.date) -> dt.date:
    table = room.table(81, schedule=room.limit_schedule())
    players = room.seat(table, ["Ann", "Ben", "Cy"])
    for minute in range(0, 50, 10):
        room.hand(table, players, at=at_local(a_past_day, 10, minute))
    return a_past_day


def _zip(data: bytes) -> dict[str, list[dict[str, str]]]:
    """Each CSV of an export zip as rows keyed by its header."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {
            name: list(csv.DictReader(io.StringIO(archive.read(name).decode())))
            for name in archive.namelist()
        }


COLLECTION_FILES = [
    "report.csv",
    "by-table-game-stakes-and-schedule.csv",
    "totals.csv",
    "by-shift.csv",
    "fee-waivers.csv",
    "flags.csv",
    "net-fees-by-hour-of-the-hand-s-start.csv",
]
"""The collection report's zip: its index, then one file per table of data."""


def test_collection_exports_one_csv_per_table_in_a_deterministic_zip(a_day: dt.date) -> None:
    filters = ReportFilters(date_from=a_day, date_to=a_day)
    first, content_type, extension = exports.export_file(build_collection_report(filters))
    second, _, _ = exports.export_file(build_collection_report(filters))
    assert first == second
    assert (content_type, extension) == ("application/zip", "zip")
    files = _zip(first)
    assert list(files) == COLLECTION_FILES
    index = {row["field"]: row for row in files["report.csv"] if row["field"] != "file"}
    assert index["report"]["value"] == "Collection report"
    assert index["filters"]["value"] == f"{a_day}, all shifts, all tables"
    (row,) = files["by-table-game-stakes-and-schedule.csv"]
    assert (row["table"], row["hands"], row["players"]) == ("81", "5", "15")
    # Money columns are named in dollars and hold plain decimal numbers.
    assert not any(name.endswith("_cents") for name in row)
    assert row["fees_due_dollars"] == row["fees_collected_dollars"] == f"{5 * rpt_fee(3) // 100}.00"
    assert row["unexplained_dollars"] == "0.00"
    # A report of one table is that one CSV.
    data, content_type, extension = exports.render_file(
        exports.build_report("journal", {"date_from": a_day.isoformat()}), "csv"
    )
    assert (content_type, extension) == ("text/csv; charset=utf-8", "csv")
    header = next(csv.reader(io.StringIO(data.decode())))
    assert header[:3] == ["transaction_id", "at", "kind"]
    assert "amount_dollars" in header


def test_the_page_shows_the_sha256_of_its_export(
    a_day: dt.date, staff: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    client = Client()
    client.force_login(staff["auditor"])
    params = {"date_from": a_day.isoformat(), "date_to": a_day.isoformat()}
    page = client.get(reverse("reports:collection"), params).content.decode()
    download = client.get(reverse("reports:collection"), {**params, "format": "csv"})
    assert download["Content-Type"] == "application/zip"
    assert download["Content-Disposition"] == f'attachment; filename="collection-{a_day}.zip"'
    digest = sha256_hex(download.content)
    assert download["X-Content-SHA256"] == digest
    assert digest in page
    assert "casino 0.1.0" in page  # the software version
    assert re.search(r"<svg[^>]*>.*Net fees by hour", page, re.S)  # the inline charts
    # The PDF is built in the background: the page queues it and sends the browser to its export.
    with django_capture_on_commit_callbacks(execute=True):
        queued = client.get(reverse("reports:collection"), {**params, "format": "pdf"})
    assert queued.status_code == 302
    printed = client.get(queued["Location"])
    printed_data = file_bytes(printed)
    assert printed_data.startswith(b"%PDF-")
    assert printed["Content-Type"] == "application/pdf"
    assert printed["X-Content-SHA256"] == sha256_hex(printed_data)


def test_pdf_prints_the_head_and_the_export_digest_on_every_page(a_day: dt.date, tmp_path: Path) -> None:
    report = build_collection_report(ReportFilters(date_from=a_day, date_to=a_day))
    digest = sha256_hex(exports.export_file(report)[0])
    pages = pdf_text(exports.to_pdf(report, csv_sha256=digest), tmp_path)
    assert "Collection report" in pages[0]
    for number, text in enumerate(pages, start=1):
        assert f"SHA-256 of the CSV export of this report: {digest}" in text
        assert f"page {number}" in text
        assert report.meta.software_version in text


def _money_table(rows: int, name: str = "Okafor") -> pdf.PdfTable:
    return pdf.PdfTable(
        title="Postings",
        headers=["line", "player", "memo", "amount ($)"],
        cells=[
            [str(n), f"Chinedu {name}", "a memo long enough to wrap onto a second line " * 2, "$1.25"]
            for n in range(rows)
        ],
        numbers=[[None, None, None, 125] for _ in range(rows)],
        money=[False, False, False, True],
        totals=[False, False, False, True],
    )


def test_pdf_totals_per_page_add_up_to_the_report_total(tmp_path: Path) -> None:
    table = _money_table(180)
    head = pdf.PdfHead(
        title="Test", filters="a period", made="2030-01-02 03:04:05", software="casino", sha256="0" * 64
    )
    data, problems = pdf.build_pdf(head, [table])
    assert problems == []
    pages = pdf_text(data, tmp_path)
    assert len(pages) > 2
    page_totals = []
    for text in pages:
        found = re.findall(r"Page totals, Postings: amount \(\$\) \$([0-9,.]+)", text)
        assert len(found) == 1, text[-400:]
        page_totals.append(round(float(found[0].replace(",", "")) * 100))
    assert sum(page_totals) == 180 * 125
    assert "Report total" in pages[-1]
    assert "$225" in pages[-1]  # 180 x $1.25


def test_pdf_never_breaks_a_word_or_a_number(tmp_path: Path) -> None:
    # A column of short words beside long ones: the widths come from the text, so "Okafor" and
    # "28400" stay whole however narrow their column becomes.
    table = pdf.PdfTable(
        title="Narrow",
        headers=["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"],
        cells=[["Okafor", "28400", *(["word " * 30] * 8)]],
        numbers=[[None] * 10],
        money=[False] * 10,
        totals=[False] * 10,
    )
    layout = pdf.choose_layout([table])
    assert pdf.layout_problems([table], layout) == []
    inner = layout.tables[0].widths[0] - 2 * pdf.PAD
    assert pdf.widest_word("Okafor", layout.tables[0].size) <= inner
    head = pdf.PdfHead(title="Test", filters="", made="", software="casino", sha256="")
    data, _ = pdf.build_pdf(head, [table])
    text = pdf_text(data, tmp_path)[0]
    assert re.search(r"\bOkafor\b", text)
    assert re.search(r"\b28400\b", text)
    # A word wider than any page is the one thing ever broken, and it is named.
    too_wide = dataclasses_replace(table, cells=[["x" * 400, *table.cells[0][1:]]])
    assert pdf.layout_problems([too_wide], pdf.choose_layout([too_wide]))


def dataclasses_replace(table: pdf.PdfTable, **changes: Any) -> pdf.PdfTable:
    import dataclasses

    return dataclasses.replace(table, **changes)


@needs_pdftoppm
@pytest.mark.parametrize("kind", ["collection", "hand_history", "journal"])
def test_a_pdf_page_renders_to_a_png_of_the_page_size(a_day: dt.date, tmp_path: Path, kind: str) -> None:
    report = exports.build_report(kind, {"date_from": a_day.isoformat()}, full=True)
    data, _ = exports.render(report, "pdf")
    size = check_first_page(report, data, tmp_path)
    if kind == "hand_history":
        assert size == (660, 510)  # a hand's block is wide: landscape


def test_background_export_on_commit(
    a_day: dt.date, staff: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    client = Client()
    client.force_login(staff["auditor"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("reports:exports"),
            {
                "kind": "collection",
                "format": "csv",
                "date_from": a_day.isoformat(),
                "date_to": a_day.isoformat(),
            },
        )
    assert response.status_code == 302
    export = ReportExport.objects.get()
    assert (export.status, export.requested_by) == (ExportStatus.DONE, staff["auditor"])
    assert export.filename == f"collection-{a_day}-{a_day}.zip".replace(f"-{a_day}-{a_day}", f"-{a_day}")
    data = exports.stored_bytes(export)
    assert export.sha256 == sha256_hex(data)
    assert export.size == len(data)
    expected, _, _ = exports.export_file(
        build_collection_report(ReportFilters(date_from=a_day, date_to=a_day))
    )
    assert data == expected
    download = client.get(reverse("reports:export-download", args=[export.pk]))
    assert file_bytes(download) == data
    assert download["Content-Type"] == "application/zip"
    assert download["X-Content-SHA256"] == export.sha256
    # Running the job again changes nothing.
    assert tasks.build_export.delay(export.pk).get() == export.pk
    export.refresh_from_db()
    assert export.attempts == 1


def test_full_period_export_of_a_paged_report(
    a_day: dt.date, monkeypatch: pytest.MonkeyPatch, staff: dict[str, Any]
) -> None:
    monkeypatch.setattr(hands_report, "MAX_LIMIT", 2)  # pages of two hands: the export must walk them all
    export = exports.request_export(
        kind="hand_history", export_format="csv", params={"date_from": a_day.isoformat()}, by=staff["auditor"]
    )
    exports.build_export(export.pk)
    export.refresh_from_db()
    files = _zip(exports.stored_bytes(export))
    assert [row["hand"] for row in files["hands.csv"]] == ["1", "2", "3", "4", "5"]
    assert len(files["players-dealt-in.csv"]) == 15
    assert {row["fee_paid_dollars"] for row in files["players-dealt-in.csv"]} == {
        "0.00",
        f"{rpt_fee(3) // 100}.00",
    }


def test_bad_parameters(a_day: dt.date, staff: dict[str, Any]) -> None:
    with pytest.raises(ReportFilterError):
        exports.request_export(kind="collection", export_format="csv", params={"date_from": "x"}, by=None)
    with pytest.raises(ReportFilterError):
        exports.request_export(
            kind="player_statement", export_format="csv", params={"player": "999999"}, by=None
        )
    # A request stored with parameters that no longer make sense fails with the reason, not a crash.
    export = ReportExport.objects.create(kind="collection", format="csv", params={"shift": "never"})
    exports.build_export(export.pk)
    export.refresh_from_db()
    assert export.status == ExportStatus.FAILED
    assert "shift" in export.error
    api = Client()
    api.force_login(staff["auditor"])
    response = api.post(
        "/api/ledger/exports/",
        {"report": "collection", "format": "csv", "params": {"table": "x"}},
        "application/json",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == {"table": "'x' is not a table number"}


@pytest.mark.parametrize("kind", [kind.value for kind in ReportKind])
def test_every_report_exports_to_csv_and_pdf_with_every_cell_fitting(a_day: dt.date, kind: str) -> None:
    ann = Player.objects.get(name="Ann")
    params = {"date_from": a_day.isoformat(), "date_to": a_day.isoformat(), "player": str(ann.pk)}
    report = exports.build_report(kind, params, full=True)
    data, content_type, extension = exports.render_file(report, "csv")
    if extension == "zip":
        files = _zip(data)
        assert "report.csv" in files
    else:
        assert content_type.startswith("text/csv")
        assert data.split(b"\r\n", 1)[0]
    printed, content_type = exports.render(report, "pdf")
    assert (printed[:5], content_type) == (b"%PDF-", "application/pdf")
    # The layout's check: every word of every cell fits its column (nothing broken inside a word).
    tables, layout = laid_out_tables(report)
    assert pdf.layout_problems(tables, layout) == []


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1+2", "'+1+2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("-2+3", "'-2+3"),
        ("\tdata", "'\tdata"),
        ("\rdata", "'\rdata"),
        ("-$1.50", "-$1.50"),  # an amount as the reports write it stays a number
        ("-1.50", "-1.50"),
        ("-3", "-3"),
        ("Kai Wong", "Kai Wong"),
        (-150, -150),
    ],
)
def test_csv_cells_are_never_formulas(cell: Any, written: Any) -> None:
    assert exports.csv_cell(cell) == written


def test_a_player_named_like_a_formula_is_text_in_the_statement_csv(
    staff: dict[str, Any], room: Any, a_past_day: Any
) -> None:
    """CSV formula injection: the player statement wrote ``=HYPERLINK(...)`` as a live formula."""
    table = room.table(71, schedule=room.limit_schedule())
    (player, other) = room.seat(table, ['=HYPERLINK("http://x","y")', "Bo"])
    room.hand(table, [player, other], at=at_local(a_past_day, 10))
    client = Client()
    client.force_login(staff["auditor"])
    response = client.get(reverse("reports:statement", args=[player.pk]), {"format": "csv"})
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        cells = [
            cell
            for name in archive.namelist()
            for row in csv.reader(io.StringIO(archive.read(name).decode()))
            for cell in row
        ]
    assert '\'=HYPERLINK("http://x","y")' in cells
    assert not any(cell.startswith("=") for cell in cells)
