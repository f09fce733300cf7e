"""A report built from stored, query-style parameters, and its file: bytes, content type, file
name, and the download response that carries its sha256.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from django.http import HttpResponse

from backoffice.exports.csv_writer import export_file
from backoffice.exports.layouts import sections_of
from backoffice.exports.pdf_writer import to_pdf
from backoffice.reports import changes, collection, downs, drops, hands, integrity, journal, statement
from backoffice.reports.common import ReportFilterError, ReportFilters
from ledger.hashing import sha256_hex
from ledger.models import ExportFormat, ReportKind
from tables.models import Player


def build_report(kind: str, params: Mapping[str, Any], *, full: bool = False) -> Any:
    """Build a report of ``kind`` from query-style ``params`` (the same ones the pages and the API
    read). With ``full``, paginated reports (hand history, journal) cover the whole period rather
    than one page, and the dealers' downs every down of it (a page shows at most
    ``downs.MAX_LINES``). Raises ``ReportFilterError`` (also for an unknown dealer),
    ``Player.DoesNotExist``, ``ValueError`` for an unknown ``kind``."""
    kind = ReportKind(kind)
    if kind == ReportKind.INTEGRITY:
        return integrity.build_integrity_report()
    filters = ReportFilters.from_params(params)
    if kind == ReportKind.COLLECTION:
        return collection.build_collection_report(filters)
    if kind == ReportKind.DROP_VARIANCE:
        threshold = params.get("threshold_bp")
        return drops.build_drop_variance_report(
            filters, threshold_bp=int(threshold) if threshold not in (None, "") else None
        )
    if kind == ReportKind.CONFIG_CHANGES:
        return changes.build_change_log(filters)
    if kind == ReportKind.DEALER_DOWNS:
        return downs.build_downs_report(
            filters, dealer=str(params.get("dealer") or ""), limit=None if full else downs.MAX_LINES
        )
    if kind == ReportKind.PLAYER_STATEMENT:
        try:
            player_id = int(str(params.get("player", "")))
        except ValueError:
            raise ReportFilterError({"player": "a player id is required"}) from None
        return statement.build_player_statement(Player.objects.get(pk=player_id), filters)
    offset, limit = _page(params)
    if kind == ReportKind.HAND_HISTORY:
        if params.get("hand") not in (None, ""):  # one hand's entry (``/reports/hands/<id>/``)
            return hands.build_hand_history(filters, hand_id=_whole(params, "hand"), limit=1)
        if not full:
            return hands.build_hand_history(filters, offset=offset, limit=limit)
        first = hands.build_hand_history(filters, offset=0, limit=hands.MAX_LIMIT)
        lines = list(first.hands)
        while len(lines) < first.total:
            page = hands.build_hand_history(filters, offset=len(lines), limit=hands.MAX_LIMIT)
            if not page.hands:
                break
            lines += page.hands
        return dataclasses.replace(first, hands=lines, offset=0, limit=len(lines))
    if not full:
        return journal.build_journal(filters, offset=offset, limit=limit)
    first_journal = journal.build_journal(filters, offset=0, limit=journal.MAX_LIMIT)
    txns = list(first_journal.transactions)
    while len(txns) < first_journal.total:
        journal_page = journal.build_journal(filters, offset=len(txns), limit=journal.MAX_LIMIT)
        if not journal_page.transactions:
            break
        txns += journal_page.transactions
    return dataclasses.replace(first_journal, transactions=txns, offset=0, limit=len(txns))


def _page(params: Mapping[str, Any]) -> tuple[int, int]:
    errors: dict[str, str] = {}
    values = []
    for name, default in (("offset", 0), ("limit", 100)):
        raw = params.get(name)
        try:
            values.append(int(raw) if raw not in (None, "") else default)
        except (TypeError, ValueError):
            errors[name] = f"{raw!r} is not a number"
    if errors:
        raise ReportFilterError(errors)
    return values[0], values[1]


def _whole(params: Mapping[str, Any], name: str) -> int:
    try:
        return int(str(params.get(name)))
    except ValueError:
        raise ReportFilterError({name: "must be a whole number"}) from None


INLINE_CSV_MAX_ROWS = 5_000
"""A report page's CSV download is served in the request when its tables hold at most this many rows
(the page has built the report and its CSV already, for the SHA-256 it prints); a bigger one is
queued as an export like every PDF."""

PAGE_PARAMS = frozenset({"offset", "limit", "hand"})
"""Parameters that make an export of a paged report one page of it (or one hand), not its period."""


def is_page(kind: str, params: Mapping[str, Any]) -> bool:
    """Whether ``params`` ask for one page of a paged report (hand history, journal) rather than
    its whole period."""
    return kind in (ReportKind.HAND_HISTORY, ReportKind.JOURNAL) and bool(PAGE_PARAMS & set(params))


def row_count(report: Any) -> int:
    """How many rows the report's export holds (every table's)."""
    return sum(len(section.rows) for section in sections_of(report))


def render_file(report: Any, export_format: str) -> tuple[bytes, str, str]:
    """``(bytes, content type, extension)`` of the report in ``export_format``: csv (a CSV, or a zip
    of CSVs: :func:`export_file`) or pdf."""
    data, content_type, extension = export_file(report)
    if export_format == ExportFormat.CSV:
        return data, content_type, extension
    return to_pdf(report, csv_sha256=sha256_hex(data)), "application/pdf", "pdf"


def render(report: Any, export_format: str) -> tuple[bytes, str]:
    """``(bytes, content type)`` of the report in ``export_format`` (csv or pdf)."""
    data, content_type, _ = render_file(report, export_format)
    return data, content_type


def content_type_of(data: bytes, export_format: str) -> str:
    """The content type of a stored export: a zip, a CSV or a PDF."""
    if export_format == ExportFormat.PDF:
        return "application/pdf"
    return "application/zip" if data[:4] == b"PK\x03\x04" else "text/csv; charset=utf-8"


def download_response(data: bytes, content_type: str, filename: str) -> HttpResponse:
    """An attachment response whose ``X-Content-SHA256`` header is the sha256 of ``data``."""
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-SHA256"] = sha256_hex(data)
    return response


def filename_for(kind: str, params: Mapping[str, Any], export_format: str) -> str:
    """``collection-2030-01-02.zip``: the report, its dates and shift; ``export_format`` is the
    file's extension (csv, zip, pdf)."""
    parts = [str(kind)]
    if params.get("date_from"):
        parts.append(str(params["date_from"]))
    if params.get("date_to") and params.get("date_to") != params.get("date_from"):
        parts.append(str(params["date_to"]))
    if params.get("shift"):
        parts.append(str(params["shift"]).replace("/", "_"))
    return "-".join(parts) + f".{export_format}"
