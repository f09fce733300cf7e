"""A report built from stored, query-style parameters, and its file: bytes, content type, file
name, and the download response that carries its sha256.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Generator, Iterable, Mapping
from contextlib import closing
from typing import Any

from django.http import HttpResponse

from backoffice.exports.csv_writer import ExportTooBig, export_file
from backoffice.exports.layouts import sections_of
from backoffice.exports.pdf_writer import to_pdf
from backoffice.reports import changes, collection, downs, drops, hands, integrity, journal, statement
from backoffice.reports.common import ReportFilterError, ReportFilters, make_meta, report_snapshot
from ledger.hashing import sha256_hex
from ledger.models import ExportFormat, JournalTransaction, ReportKind
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
        with closing(_hand_pages(filters)) as pages:
            return merge_pages(pages)
    if not full:
        return journal.build_journal(filters, offset=offset, limit=limit)
    with closing(_journal_pages(filters)) as journal_pages:
        return merge_pages(journal_pages)


def report_pages(kind: str, params: Mapping[str, Any]) -> Generator[Any]:
    """The report an export of ``kind`` with ``params`` writes, as pages: a paged report's whole
    period (no ``offset``/``limit``/``hand``) a page at a time, lazily, each page a report of the
    same type (the journal read through one server-side cursor, ``.iterator()``; the hand history
    in pages of its builder's ``MAX_LIMIT``); any other report is one page, built whole. Raises as
    :func:`build_report` does, when the first page is asked for. Close it when not read to the end
    (``contextlib.closing``): the journal's pages hold a snapshot (on PostgreSQL a read-only
    transaction) until then."""
    kind = ReportKind(kind)
    if kind in (ReportKind.HAND_HISTORY, ReportKind.JOURNAL) and not is_page(kind, params):
        filters = ReportFilters.from_params(params)
        yield from _hand_pages(filters) if kind == ReportKind.HAND_HISTORY else _journal_pages(filters)
    else:
        yield build_report(kind, params, full=not is_page(kind, params))


def _journal_pages(filters: ReportFilters) -> Generator[journal.Journal]:
    """The journal of the period in pages of ``journal.MAX_LIMIT`` transactions, read in one
    snapshot through one cursor (on PostgreSQL a server-side one); every page's running balances
    are the accounts' real ones, whatever the page's bounds (``journal.journal_lines``)."""
    with report_snapshot():
        meta = make_meta("journal", journal.TITLE, filters)
        txns = filters.on_time(JournalTransaction.objects.all(), "created_at", table_field="table")
        total = txns.count()
        rows = (
            txns.select_related("table", "created_by").order_by("pk").iterator(chunk_size=journal.MAX_LIMIT)
        )
        offset = 0
        for batch in itertools.batched(rows, journal.MAX_LIMIT):
            lines = journal.journal_lines(list(batch))
            yield journal.Journal(
                meta=meta,
                total=total,
                offset=offset,
                limit=len(lines),
                transactions=lines,
                entries_sum_cents=sum(entry.amount_cents for txn in lines for entry in txn.entries),
            )
            offset += len(lines)
        if offset == 0:
            yield journal.Journal(
                meta=meta, total=total, offset=0, limit=0, transactions=[], entries_sum_cents=0
            )


def _hand_pages(filters: ReportFilters) -> Generator[hands.HandHistory]:
    """The hand history of the period in pages of ``hands.MAX_LIMIT`` hands."""
    page = hands.build_hand_history(filters, offset=0, limit=hands.MAX_LIMIT)
    yield page
    seen = len(page.hands)
    while seen < page.total:
        page = hands.build_hand_history(filters, offset=seen, limit=hands.MAX_LIMIT)
        if not page.hands:
            break
        yield page
        seen += len(page.hands)


def merge_pages(pages: Iterable[Any], *, max_rows: int | None = None) -> Any:
    """One report of a paged report's ``pages`` (:func:`report_pages`); a report of one page as it
    is. With ``max_rows``, raises ``ExportTooBig`` as soon as the pages hold more rows than that
    (a PDF's bound), having held at most that many."""
    first: Any = None
    lines: list[Any] = []
    rows = 0
    for page in pages:
        first = page if first is None else first
        if max_rows is not None:
            rows += row_count(page)
            if rows > max_rows:
                raise ExportTooBig(
                    f"A PDF holds at most {max_rows:,} rows (EXPORT_PDF_MAX_ROWS) and this report has "
                    f"more; nothing was kept. Export it as CSV, or ask for a shorter period "
                    f"(date_from/date_to: a month or a day at a time, or one shift)."
                )
        if isinstance(page, journal.Journal):
            lines += page.transactions
        elif isinstance(page, hands.HandHistory):
            lines += page.hands
        else:
            return page
    if isinstance(first, journal.Journal):
        return dataclasses.replace(
            first,
            transactions=lines,
            offset=0,
            limit=len(lines),
            entries_sum_cents=sum(entry.amount_cents for txn in lines for entry in txn.entries),
        )
    return dataclasses.replace(first, hands=lines, offset=0, limit=len(lines))


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


FILTER_PARAMS = frozenset({"date_from", "date_to", "shift", "table"})
"""What ``ReportFilters.from_params`` reads: every report's filters but the integrity report's."""

KNOWN_PARAMS: dict[str, frozenset[str]] = {
    ReportKind.COLLECTION: FILTER_PARAMS,
    ReportKind.HAND_HISTORY: FILTER_PARAMS | PAGE_PARAMS,
    ReportKind.PLAYER_STATEMENT: FILTER_PARAMS | {"player"},
    ReportKind.JOURNAL: FILTER_PARAMS | {"offset", "limit"},
    ReportKind.INTEGRITY: frozenset(),
    ReportKind.DROP_VARIANCE: FILTER_PARAMS | {"threshold_bp"},
    ReportKind.CONFIG_CHANGES: FILTER_PARAMS,
    ReportKind.DEALER_DOWNS: FILTER_PARAMS | {"dealer"},
}
"""The parameters each report reads (:func:`build_report`); an export request naming any other is
refused (:func:`check_params`), so that nothing unread is stored."""

MAX_PARAM_LENGTH = 200
"""The longest value an export's parameter may have: the longest a report reads is a list of table
numbers or a username; a longer one is refused, not stored."""


def check_params(kind: str, params: Mapping[str, Any]) -> None:
    """Refuse (``ReportFilterError``, 400, naming each) the parameters the report of ``kind`` doesn't
    read, and any value longer than :data:`MAX_PARAM_LENGTH` characters."""
    known = KNOWN_PARAMS[ReportKind(kind)]
    errors: dict[str, str] = {}
    for name in sorted(set(params) - known, key=str)[:20]:
        shown = str(name) if len(str(name)) <= 40 else str(name)[:40] + "..."
        allowed = ", ".join(sorted(known)) or "none"
        errors[shown] = f"not a parameter of this report (it reads: {allowed})"
    for name, value in params.items():
        if name in known and len(str(value)) > MAX_PARAM_LENGTH:
            errors[name] = f"at most {MAX_PARAM_LENGTH} characters"
    if errors:
        raise ReportFilterError(errors)


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
