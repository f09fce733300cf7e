"""The dealers' downs report: each down with its dealer, table, clock-in and clock-out (an open down
is on the table), the hands dealt in it, its misdeals and the fees of those hands from the ledger;
its page, CSV and PDF, and its whole period exported in the background (``ReportKind.DEALER_DOWNS``)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db.models import Sum
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from backoffice import exports
from backoffice.reports import downs as downs_report
from backoffice.reports.common import ReportFilterError, ReportFilters
from backoffice.reports.downs import build_downs_report
from casino.core.money import decimal_dollars, format_cents
from handflow import services as hand_flow
from ledger.hashing import sha256_hex
from ledger.models import AccountKind, Entry, ExportStatus, ReportExport, ReportKind, TransactionKind
from ledger.shifts import room_zone
from tables import services as floor_services
from tables.models import Hand, Player, Table
from tests.backoffice.pdf_pages import check_first_page, needs_pdftoppm, pdf_text
from tests.factories import file_bytes

pytestmark = pytest.mark.django_db


def _today(**kwargs: Any) -> ReportFilters:
    day = timezone.localtime(timezone.now(), room_zone()).date()
    return ReportFilters(date_from=day, date_to=day, **kwargs)


@pytest.fixture
def downs(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
    users: dict[str, Any],
) -> dict[str, Any]:
    dealer, floor = users["dealer"], users["floor"]
    first, _ = table_with_players(3, stakes="limit-4-8")
    second, _ = table_with_players(2, stakes="limit-4-8")
    floor_services.clock_in(table=first, dealer=dealer, by=dealer)
    hands = [settle_hand(deal_hand(first, by=dealer), by=dealer) for _ in range(2)]
    hand_flow.misdeal(hand=deal_hand(first, by=dealer), reason_code="two_boxed", by=dealer)
    floor_services.clock_out(table=first, by=dealer)
    # The floor assigns the dealer to the second table: that down is still open.
    floor_services.clock_in(table=second, dealer=dealer, by=floor)
    hands.append(settle_hand(deal_hand(second, by=dealer), by=dealer))
    return {"first": first, "second": second, "hands": hands}


def test_each_down_with_its_hands_misdeals_and_fees(downs: dict[str, Any]) -> None:
    report = build_downs_report(_today())
    closed, open_down = report.lines
    assert (closed.dealer, closed.table_number, open_down.table_number) == (
        "dealer",
        downs["first"].number,
        downs["second"].number,
    )
    assert (closed.clocked_in_by, closed.clocked_out_by, open_down.clocked_in_by) == (
        "dealer",
        "dealer",
        "floor",
    )
    assert closed.clocked_out_at is not None
    assert open_down.on_the_table
    # Three hands were dealt at the first table, one of them a misdeal; one at the second.
    assert (closed.hands, closed.misdeals, open_down.hands, open_down.misdeals) == (3, 1, 1, 0)

    # The fees are the ledger's: the house collection's fee entries of the down's hands.
    def fees(table: Table, kind: str) -> int:
        total = Entry.objects.filter(
            transaction__hand__table=table, transaction__kind=kind, account__kind=AccountKind.HOUSE_COLLECTION
        ).aggregate(total=Sum("amount"))["total"]
        return int(total or 0)

    assert closed.fees_collected_cents == fees(downs["first"], TransactionKind.FEE) > 0
    assert closed.fees_returned_cents == -fees(downs["first"], TransactionKind.REVERSAL) > 0
    assert closed.net_fees_cents == closed.fees_collected_cents - closed.fees_returned_cents
    assert report.fees_collected_cents == closed.fees_collected_cents + open_down.fees_collected_cents
    assert (report.hands, report.misdeals) == (4, 1)


def test_filters_by_table_and_dealer(downs: dict[str, Any], users: dict[str, Any]) -> None:
    only = build_downs_report(_today(tables=(downs["second"].number,)))
    assert [line.table_number for line in only.lines] == [downs["second"].number]
    assert build_downs_report(_today(), dealer="dealer").lines
    assert build_downs_report(_today(), dealer="floor").lines == []
    with pytest.raises(ReportFilterError) as refused:
        build_downs_report(_today(), dealer="nobody-here")
    assert refused.value.errors == {"dealer": "there is no user 'nobody-here'"}


def test_the_page_and_its_csv(
    downs: dict[str, Any], users: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    client = Client()
    client.force_login(users["auditor"])
    page = client.get(reverse("reports:downs"))
    assert page.status_code == 200
    shown = page.content.decode()
    assert "<strong>on the table</strong>" in shown
    assert f'href="{reverse("reports:downs")}"' in client.get(reverse("reports:index")).content.decode()
    download = client.get(reverse("reports:downs"), {"format": "csv"})
    assert download["Content-Type"].startswith("text/csv")
    header, *rows = [line.split(",") for line in download.content.decode().strip().split("\r\n")]
    assert header[-3:] == ["fees_collected_dollars", "fees_returned_dollars", "net_fees_dollars"]
    assert [row[header.index("clocked_out")] for row in rows][-1] == "on the table"
    bad = client.get(reverse("reports:downs"), {"dealer": "nobody-here"})
    assert bad.status_code == 400
    with django_capture_on_commit_callbacks(execute=True):  # the PDF: queued, built, then downloaded
        queued = client.get(reverse("reports:downs"), {"format": "pdf"})
    assert file_bytes(client.get(queued["Location"])).startswith(b"%PDF-")


def _day() -> str:
    return timezone.localtime(timezone.now(), room_zone()).date().isoformat()


def _export_on_commit(client: Client, capture: Any, **fields: str) -> Any:
    """POST the downs page's export form (``/reports/exports/``), running the job at commit."""
    with capture(execute=True):
        return client.post(reverse("reports:exports"), fields)


def test_the_page_offers_its_whole_period_as_a_background_export(
    downs: dict[str, Any], users: dict[str, Any]
) -> None:
    client = Client()
    client.force_login(users["auditor"])
    page = client.get(reverse("reports:downs"), {"date_from": _day(), "dealer": "dealer"}).content.decode()
    form = page[page.index(f'action="{reverse("reports:exports")}"') :]
    form = form[: form.index("</form>")]
    assert '<input type="hidden" name="kind" value="dealer_downs">' in form
    assert '<input type="hidden" name="dealer" value="dealer">' in form
    assert f'<input type="hidden" name="date_from" value="{_day()}">' in form
    assert '<option value="pdf">PDF</option>' in form
    assert "Export the whole period in the background" in form


@needs_pdftoppm
def test_a_background_pdf_export_built_end_to_end(
    downs: dict[str, Any], users: dict[str, Any], tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    client = Client()
    client.force_login(users["auditor"])
    response = _export_on_commit(
        client, django_capture_on_commit_callbacks, kind="dealer_downs", format="pdf", date_from=_day()
    )
    assert response.status_code == 302
    export = ReportExport.objects.get()
    assert (export.kind, export.format, export.status) == (ReportKind.DEALER_DOWNS, "pdf", ExportStatus.DONE)
    assert export.filename == f"dealer_downs-{_day()}.pdf"
    data = exports.stored_bytes(export)
    assert export.sha256 == sha256_hex(data)
    download = client.get(reverse("reports:export-download", args=[export.pk]))
    assert (download["Content-Type"], file_bytes(download)) == ("application/pdf", data)

    report = exports.build_report("dealer_downs", export.params, full=True)
    check_first_page(report, data, tmp_path)  # page size, text drawn, every cell fits its column
    (page,) = pdf_text(data, tmp_path)
    assert "Dealers' downs" in page
    assert "on the table" in page
    csv_sha = sha256_hex(exports.export_file(report)[0])
    assert f"SHA-256 of the CSV export of this report: {csv_sha}" in page
    # Totals for the report (its last row, "Report total" wrapped in its narrow first column) and
    # in the page's footer: 4 hands dealt, 1 misdeal, the fees collected, returned and net.
    money = [format_cents(c) for c in (report.fees_collected_cents, report.fees_returned_cents)]
    figures = ["4", "1", *money, format_cents(report.net_fees_cents)]
    total_row = r"^\s*Report\s+" + r"\s+".join(map(re.escape, figures)) + r"\s*\n\s*total\s*$"
    assert re.search(total_row, page, re.M)
    assert (
        f"Page totals, Dealers' downs: hands dealt 4 · misdeals 1 · fees collected ($) {money[0]} · "
        f"fees returned ($) {money[1]} · net fees ($) {figures[-1]}"
    ) in page


def test_a_background_csv_export_has_every_down_of_the_period(
    downs: dict[str, Any],
    users: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    # A page shows at most MAX_LINES downs; the export has them all, summed a batch of ids at a time.
    monkeypatch.setattr(downs_report, "MAX_LINES", 1)
    monkeypatch.setattr(downs_report, "ID_BATCH", 1)
    assert exports.build_report("dealer_downs", {"date_from": _day()}).truncated
    client = Client()
    client.force_login(users["auditor"])
    response = _export_on_commit(
        client,
        django_capture_on_commit_callbacks,
        kind="dealer_downs",
        format="csv",
        date_from=_day(),
        dealer="dealer",
    )
    assert response.status_code == 302
    export = ReportExport.objects.get()
    assert export.status == ExportStatus.DONE, export.error
    assert export.params == {"date_from": _day(), "dealer": "dealer"}
    assert export.filename == f"dealer_downs-{_day()}.csv"
    download = client.get(reverse("reports:export-download", args=[export.pk]))
    assert download["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(file_bytes(download).decode())))
    assert [row["table"] for row in rows] == [str(downs["first"].number), str(downs["second"].number)]
    assert [(row["hands_dealt"], row["misdeals"]) for row in rows] == [("3", "1"), ("1", "0")]
    full = build_downs_report(_today(), limit=None)
    assert [row["net_fees_dollars"] for row in rows] == [
        decimal_dollars(line.net_fees_cents) for line in full.lines
    ]


def test_bad_export_requests_are_refused_with_a_4xx(
    downs: dict[str, Any], users: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    client = Client()
    client.force_login(users["auditor"])
    for fields in (
        {"kind": "dealer_downs", "format": "pdf", "dealer": "nobody-here"},
        {"kind": "dealer_downs", "format": "pdf", "date_from": "yesterday"},
        {"kind": "dealer_downs", "format": "docx"},
        {"kind": "no_such_report", "format": "csv"},
    ):
        response = _export_on_commit(client, django_capture_on_commit_callbacks, **fields)
        assert response.status_code == 400, fields
    api = APIClient()
    api.force_authenticate(users["auditor"])
    unknown_dealer = api.post(
        "/api/ledger/exports/",
        {"report": "dealer_downs", "format": "csv", "params": {"dealer": "nobody-here"}},
        format="json",
    )
    assert (unknown_dealer.status_code, unknown_dealer.json()["errors"]) == (
        400,
        {"dealer": "there is no user 'nobody-here'"},
    )
    unknown_kind = api.post(
        "/api/ledger/exports/", {"report": "no_such_report", "format": "csv"}, format="json"
    )
    assert unknown_kind.status_code == 400
    assert not ReportExport.objects.exists()
    # Through the API the kind is offered and built like the others.
    with django_capture_on_commit_callbacks(execute=True):
        accepted = api.post(
            "/api/ledger/exports/",
            {"report": "dealer_downs", "format": "pdf", "params": {"date_from": _day()}},
            format="json",
        )
    assert accepted.status_code == 202
    assert api.get(f"/api/ledger/exports/{accepted.json()['id']}/").json()["status"] == "done"
