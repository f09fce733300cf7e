"""Exports: the CSV is deterministic and its sha256 is what every report page and PDF shows; PDFs
are real PDFs; background exports are built on commit, safe to run twice, cover the whole period,
and fail cleanly on bad parameters."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from backoffice import exports, tasks
from backoffice.reports import hands as hands_report
from backoffice.reports.collection import build_collection_report
from backoffice.reports.common import ReportFilters
from ledger.hashing import sha256_hex
from ledger.models import ExportStatus, ReportExport, ReportKind
from tables.models import Player
from tests.factories import ReportRoom, at_local, rpt_fee

pytestmark = pytest.mark.django_db


@pytest.fixture
def a_day(room: ReportRoom, a_past_day: dt.date) -> dt.date:
    table = room.table(81, schedule=room.limit_schedule())
    players = room.seat(table, ["Ann", "Ben", "Cy"])
    for minute in range(0, 50, 10):
        room.hand(table, players, at=at_local(a_past_day, 10, minute))
    return a_past_day


def _sections(data: bytes) -> dict[str, list[list[str]]]:
    rows = list(csv.reader(io.StringIO(data.decode())))
    sections: dict[str, list[list[str]]] = {"head": []}
    current = "head"
    for row in rows:
        if len(row) == 2 and row[0] == "section":
            current = row[1]
            sections[current] = []
        elif row:
            sections[current].append(row)
    return sections


def test_collection_csv_is_deterministic_and_carries_the_figures(a_day: dt.date) -> None:
    filters = ReportFilters(date_from=a_day, date_to=a_day)
    first, second = (
        exports.to_csv(build_collection_report(filters)),
        exports.to_csv(build_collection_report(filters)),
    )
    assert first == second
    sections = _sections(first)
    assert sections["head"][0] == ["report", "Collection report"]
    assert sections["head"][1] == ["filters", f"{a_day}, all shifts, all tables"]
    header, *rows = sections["By table, game, stakes and schedule"]
    row = dict(zip(header, rows[0], strict=True))
    assert (row["table"], row["hands"], row["players"]) == ("81", "5", "15")
    assert int(row["fees_due_cents"]) == int(row["fees_collected_cents"]) == 5 * rpt_fee(3)
    assert int(row["unexplained_cents"]) == 0


def test_the_page_shows_the_sha256_of_its_csv(a_day: dt.date, staff: dict[str, Any]) -> None:
    client = Client()
    client.force_login(staff["auditor"])
    params = {"date_from": a_day.isoformat(), "date_to": a_day.isoformat()}
    page = client.get(reverse("reports:collection"), params).content.decode()
    download = client.get(reverse("reports:collection"), {**params, "format": "csv"})
    digest = sha256_hex(download.content)
    assert download["X-Content-SHA256"] == digest
    assert digest in page
    assert "casino 0.1.0" in page  # the software version
    assert re.search(r"<svg[^>]*>.*Net fees by hour", page, re.S)  # the inline charts
    pdf = client.get(reverse("reports:collection"), {**params, "format": "pdf"})
    assert pdf.content.startswith(b"%PDF-")
    assert pdf["Content-Type"] == "application/pdf"
    assert pdf["X-Content-SHA256"] == sha256_hex(pdf.content)


def test_pdf_names_the_csv_digest(a_day: dt.date) -> None:
    report = build_collection_report(ReportFilters(date_from=a_day, date_to=a_day))
    digest = sha256_hex(exports.to_csv(report))
    pdf = exports.to_pdf(report, csv_sha256=digest)
    assert pdf.startswith(b"%PDF-")
    assert len(pdf) > 1000


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
    data = bytes(export.content)
    assert export.sha256 == sha256_hex(data)
    assert export.size == len(data)
    expected = exports.to_csv(build_collection_report(ReportFilters(date_from=a_day, date_to=a_day)))
    assert data == expected
    download = client.get(reverse("reports:export-download", args=[export.pk]))
    assert download.content == data
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
    header, *rows = _sections(bytes(export.content))["Hands"]
    assert len(rows) == 5
    assert [row[header.index("hand")] for row in rows] == ["1", "2", "3", "4", "5"]


def test_bad_parameters(a_day: dt.date, staff: dict[str, Any]) -> None:
    with pytest.raises(exports.ReportFilterError):
        exports.request_export(kind="collection", export_format="csv", params={"date_from": "x"}, by=None)
    with pytest.raises(exports.ReportFilterError):
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
def test_every_report_exports_to_csv_and_pdf(a_day: dt.date, kind: str) -> None:
    ann = Player.objects.get(name="Ann")
    params = {"date_from": a_day.isoformat(), "date_to": a_day.isoformat(), "player": str(ann.pk)}
    report = exports.build_report(kind, params, full=True)
    data, content_type = exports.render(report, "csv")
    assert content_type.startswith("text/csv")
    assert data.startswith(b"report,")
    pdf, content_type = exports.render(report, "pdf")
    assert (pdf[:5], content_type) == (b"%PDF-", "application/pdf")


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
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    cells = [cell for row in rows for cell in row]
    assert '\'=HYPERLINK("http://x","y")' in cells
    assert not any(cell.startswith("=") for cell in cells)
