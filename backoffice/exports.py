"""Exports of the reports: CSV (the canonical export) and PDF (reportlab), and the service that
builds a requested export in the background.

The CSV is deterministic: the same figures under the same filters and software version give the
same bytes, whenever they are made. It holds the report's title, filters and software version but
not the time it was made (that is on the page, in the PDF, and on the ``ReportExport`` row), so its
sha256, printed on every report page and in every PDF, identifies the data. Money is in integer
cents in the CSV (columns ending ``_cents``) and in dollars in the PDF.

A PDF can't hold its own checksum: it prints the sha256 of the CSV of the same report, and the
PDF's own sha256 is recorded on its ``ReportExport`` row (and sent as ``X-Content-SHA256``).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from django.db import DatabaseError, transaction
from django.http import HttpResponse
from django.utils import timezone

from backoffice.reports import changes, collection, drops, hands, integrity, journal, statement
from backoffice.reports.common import ReportFilterError, ReportFilters, ReportMeta, fmt_local
from backoffice.version import software_version
from ledger.hashing import sha256_hex
from ledger.models import ExportFormat, ExportStatus, ReportExport, ReportKind
from tables.models import Player, format_cents

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

PDF_MAX_ROWS = 20_000
"""A PDF holds at most this many rows per section (the CSV has them all); the PDF says so."""


@dataclasses.dataclass(frozen=True, slots=True)
class Section:
    """One table of a report: ``money`` names the columns that are cents (formatted in the PDF)."""

    title: str
    headers: list[str]
    rows: list[list[Any]]
    money: frozenset[str] = frozenset()


def _money_columns(headers: Iterable[str]) -> frozenset[str]:
    return frozenset(h for h in headers if h.endswith("_cents"))


def _section(title: str, headers: list[str], rows: Iterable[Iterable[Any]]) -> Section:
    return Section(title, headers, [list(row) for row in rows], _money_columns(headers))


FIGURE_HEADERS = [
    "hands",
    "void_hands",
    "players",
    "hands_without_rate",
    "fees_due_cents",
    "fees_collected_cents",
    "fees_returned_cents",
    "waived_cents",
    "net_collected_cents",
    "unexplained_cents",
]


def _figures(f: collection.Figures) -> list[int]:
    return [
        f.hands,
        f.void_hands,
        f.players,
        f.hands_without_rate,
        f.fees_due_cents,
        f.fees_collected_cents,
        f.fees_returned_cents,
        f.waived_cents,
        f.net_collected_cents,
        f.unexplained_cents,
    ]


def collection_sections(report: collection.CollectionReport) -> list[Section]:
    return [
        _section(
            "By table, game, stakes and schedule",
            ["table", "game", "stakes", "schedule", *FIGURE_HEADERS, "returned_without_void_cents"],
            (
                [
                    r.table_number,
                    r.game,
                    r.stakes,
                    r.schedule,
                    *_figures(r.figures),
                    r.returned_without_void_cents,
                ]
                for r in report.rows
            ),
        ),
        _section("Totals", FIGURE_HEADERS, [_figures(report.totals)]),
        _section(
            "By shift",
            ["shift", *FIGURE_HEADERS, "closed", "close_sha256"],
            (
                [s.shift, *_figures(s.figures), "yes" if s.closed else "no", s.close_sha256]
                for s in report.shifts
            ),
        ),
        _section(
            "Fee waivers",
            ["hand_id", "table", "hand", "hand_started", "player", "amount_cents", "reason", "by", "at"],
            (
                [
                    w.hand_id,
                    w.table_number,
                    w.hand_number,
                    fmt_local(w.hand_started_at),
                    w.player,
                    w.amount_cents,
                    w.reason,
                    w.created_by,
                    fmt_local(w.created_at),
                ]
                for w in report.waivers
            ),
        ),
        _section("Flags", ["code", "message", "cents"], ([f.code, f.message, f.cents] for f in report.flags)),
        _section(
            "Net fees by hour of the hand's start",
            ["hour", "cents"],
            ([b.label, b.cents] for b in report.by_hour),
        ),
    ]


def hand_history_sections(report: hands.HandHistory) -> list[Section]:
    headers = [
        "hand_id",
        "table",
        "hand",
        "started",
        "shift",
        "game",
        "stakes",
        "schedule",
        "rate",
        "status",
        "button_seat",
        "button_player",
        "players",
        "fees_due_cents",
        "fees_paid_cents",
        "fees_returned_cents",
        "waived_cents",
        "reading_status",
        "reading",
        "payments",
        "void_reason",
    ]
    rows = (
        [
            h.hand_id,
            h.table_number,
            h.hand_number,
            fmt_local(h.started_at),
            h.shift,
            h.game,
            h.stakes,
            h.schedule,
            h.rate,
            h.status,
            h.button_seat,
            h.button_player,
            " | ".join(
                f"P{p.position} seat {p.seat} {p.player} fee {p.fee_paid_cents} result {p.result_cents:+d}"
                for p in h.players
            ),
            h.fees_due_cents if h.fees_due_cents is not None else "",
            h.fees_paid_cents,
            h.fees_returned_cents,
            h.waived_cents,
            h.reading_status,
            h.reading,
            " | ".join(f"{p.player} {p.amount_cents:+d}" for p in h.payments),
            h.void_reason,
        ]
        for h in report.hands
    )
    sections = [_section("Hands", headers, rows)]
    if report.note:
        sections.append(_section("Note", ["note"], [[report.note]]))
    return sections


def statement_sections(report: statement.PlayerStatement) -> list[Section]:
    totals = dataclasses.asdict(report.totals)
    return [
        _section(
            "Player",
            ["player_id", "player", "member_number", "opening_cents", "closing_cents"],
            [
                [
                    report.player_id,
                    report.player,
                    report.member_number,
                    report.opening_cents,
                    report.closing_cents,
                ]
            ],
        ),
        _section("Totals", [f"{key}_cents" for key in totals], [list(totals.values())]),
        _section(
            "Postings",
            [
                "transaction_id",
                "at",
                "shift",
                "kind",
                "table",
                "hand_id",
                "memo",
                "amount_cents",
                "chips_after_cents",
                "table_chips_after_cents",
            ],
            (
                [
                    line.transaction_id,
                    fmt_local(line.at),
                    line.shift,
                    line.kind,
                    line.table_number,
                    line.hand_id or "",
                    line.memo,
                    line.amount_cents,
                    line.running_cents,
                    line.table_running_cents,
                ]
                for line in report.lines
            ),
        ),
    ]


def journal_sections(report: journal.Journal) -> list[Section]:
    return [
        _section(
            "Entries",
            [
                "transaction_id",
                "at",
                "kind",
                "table",
                "hand_id",
                "key",
                "by",
                "reverses",
                "chain",
                "sequence",
                "line",
                "account",
                "amount_cents",
                "balance_after_cents",
                "memo",
            ],
            (
                [
                    txn.transaction_id,
                    fmt_local(txn.at),
                    txn.kind,
                    txn.table_number or "",
                    txn.hand_id or "",
                    txn.idempotency_key,
                    txn.created_by,
                    txn.reverses_id or "",
                    txn.chain,
                    txn.sequence,
                    entry.line,
                    entry.account,
                    entry.amount_cents,
                    entry.balance_after_cents,
                    txn.memo,
                ]
                for txn in report.transactions
                for entry in txn.entries
            ),
        )
    ]


def integrity_sections(report: integrity.IntegrityReport) -> list[Section]:
    return [
        _section(
            "Checks",
            ["check", "ok", "detail"],
            ([c.name, "yes" if c.ok else "NO", c.detail] for c in report.checks),
        ),
        _section(
            "Problems",
            ["code", "message"],
            ([p["code"], p["message"]] for p in report.ledger.get("problems", [])),
        ),
        _section(
            f"Database triggers ({report.guards.vendor})",
            ["table", "trigger", "present", "enabled"],
            (
                [t.table, t.trigger, "yes" if t.present else "NO", "yes" if t.enabled else "NO"]
                for t in report.guards.triggers
            ),
        ),
        _section(
            "Edits tried (each rolled back)",
            ["probe", "outcome", "detail"],
            ([p.probe, p.outcome, p.detail] for p in report.guards.probes),
        ),
        _section("Notes", ["note"], ([note] for note in report.guards.notes)),
    ]


def drop_sections(report: drops.DropVarianceReport) -> list[Section]:
    return [
        _section(
            f"Drop counts (threshold {report.threshold_bp} bp)",
            [
                "table",
                "shift",
                "recorded_cents",
                "counted_cents",
                "variance_cents",
                "variance_bp",
                "flagged",
                "status",
                "count_id",
                "counters",
                "entered_by",
                "entered_at",
                "corrections",
                "signed_off_by",
                "signed_off_at",
                "explanation",
            ],
            (
                [
                    d.table_number,
                    d.shift,
                    d.recorded_cents,
                    "" if d.counted_cents is None else d.counted_cents,
                    "" if d.variance_cents is None else d.variance_cents,
                    "" if d.variance_bp is None else d.variance_bp,
                    "yes" if d.flagged else "no",
                    d.status,
                    d.count_id or "",
                    d.counters,
                    d.entered_by,
                    fmt_local(d.entered_at),
                    d.corrections,
                    d.signed_off_by,
                    fmt_local(d.signed_off_at),
                    d.explanation,
                ]
                for d in report.lines
            ),
        ),
        _section(
            "Totals",
            [
                "recorded_cents",
                "counted_cents",
                "variance_cents",
                "flagged",
                "awaiting_sign_off",
                "not_counted",
            ],
            [
                [
                    report.recorded_cents,
                    report.counted_cents,
                    report.variance_cents,
                    report.flagged,
                    report.awaiting_sign_off,
                    report.not_counted,
                ]
            ],
        ),
    ]


def change_sections(report: changes.ChangeLog) -> list[Section]:
    return [
        _section(
            "Changes",
            ["at", "source", "who", "action", "subject", "what", "reason"],
            ([fmt_local(c.at), c.source, c.who, c.action, c.subject, c.what, c.reason] for c in report.lines),
        )
    ]


SECTIONS: dict[type, Callable[[Any], list[Section]]] = {
    collection.CollectionReport: collection_sections,
    hands.HandHistory: hand_history_sections,
    statement.PlayerStatement: statement_sections,
    journal.Journal: journal_sections,
    integrity.IntegrityReport: integrity_sections,
    drops.DropVarianceReport: drop_sections,
    changes.ChangeLog: change_sections,
}


def sections_of(report: Any) -> list[Section]:
    return SECTIONS[type(report)](report)


# --- CSV ------------------------------------------------------------------------------------------


#: A cell a spreadsheet would run as a formula: it starts with ``= + - @`` (or a tab or carriage
#: return, which some spreadsheets skip before one). A player named ``=HYPERLINK("http://x","y")``
#: was written as a live formula into the player statement's CSV.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: ... unless it is a number or an amount as the reports write them (``-3``, ``-$1.50``).
_NUMBER = re.compile(r"-?\$?[0-9][0-9,]*(\.[0-9]+)?")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell that no spreadsheet runs as a formula (OWASP's CSV injection advice:
    a text starting like a formula gets a leading ``'``, shown by spreadsheets as text)."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


class _SafeWriter:
    """A ``csv.writer`` whose every cell goes through :func:`csv_cell`: the one CSV writer of the
    exports (every report's CSV, the shift close's, the API's and the pages' downloads)."""

    def __init__(self, buffer: io.StringIO) -> None:
        self._writer = csv.writer(buffer, lineterminator="\r\n")

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([csv_cell(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def _csv_head(writer: Any, meta: ReportMeta) -> None:
    writer.writerow(["report", meta.title])
    writer.writerow(["filters", meta.filters_text])
    writer.writerow(["software", meta.software_version])


def _csv_sections(writer: Any, sections: Iterable[Section]) -> None:
    for section in sections:
        writer.writerow([])
        writer.writerow(["section", section.title])
        writer.writerow(section.headers)
        writer.writerows(section.rows)


def to_csv(report: Any) -> bytes:
    """The report's CSV (UTF-8, ``\\r\\n`` line ends): a head of title, filters and software
    version, then each section with its headers. Deterministic (no generation time)."""
    buffer = io.StringIO()
    writer = _SafeWriter(buffer)
    _csv_head(writer, report.meta)
    _csv_sections(writer, sections_of(report))
    return buffer.getvalue().encode()


def with_export_sha(report: Any) -> tuple[Any, bytes]:
    """The report with ``meta.export_sha256`` set to the sha256 of its CSV, and that CSV."""
    data = to_csv(report)
    meta = dataclasses.replace(report.meta, export_sha256=sha256_hex(data))
    return dataclasses.replace(report, meta=meta), data


# --- PDF ------------------------------------------------------------------------------------------


def _cell(value: Any, header: str, money: frozenset[str]) -> str:
    if header in money and isinstance(value, int) and not isinstance(value, bool):
        return format_cents(value)
    return "" if value is None else str(value)


def to_pdf(report: Any, *, csv_sha256: str) -> bytes:
    """A landscape PDF of the report: the head (title, filters, when it was made, software version,
    the CSV's sha256), then each section as a table (at most ``PDF_MAX_ROWS`` rows each)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import landscape, letter
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import inch
    from reportlab.platypus import LongTable, Paragraph, SimpleDocTemplate, Spacer, TableStyle

    meta: ReportMeta = report.meta
    styles = getSampleStyleSheet()
    small = styles["BodyText"].clone("small", fontSize=6.5, leading=8)
    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer,
        pagesize=landscape(letter),
        leftMargin=0.4 * inch,
        rightMargin=0.4 * inch,
        topMargin=0.4 * inch,
        bottomMargin=0.4 * inch,
        title=meta.title,
        author=meta.software_version,
        creator=meta.software_version,
        invariant=1,
    )
    story: list[Any] = [
        Paragraph(_escape(meta.title), styles["Title"]),
        Paragraph(f"Filters: {_escape(meta.filters_text) or '(none)'}", styles["BodyText"]),
        Paragraph(f"Made: {fmt_local(meta.generated_at)} (room time)", styles["BodyText"]),
        Paragraph(f"Software: {_escape(meta.software_version)}", styles["BodyText"]),
        Paragraph(f"SHA-256 of the CSV export of this report: {csv_sha256}", styles["BodyText"]),
    ]
    for section in sections_of(report):
        story += [Spacer(1, 0.15 * inch), Paragraph(_escape(section.title), styles["Heading3"])]
        rows = section.rows[:PDF_MAX_ROWS]
        if not rows:
            story.append(Paragraph("(none)", styles["BodyText"]))
            continue
        data = [[Paragraph(_escape(h), small) for h in section.headers]]
        data += [
            [
                Paragraph(_escape(_cell(value, header, section.money)), small)
                for value, header in zip(row, section.headers, strict=False)
            ]
            for row in rows
        ]
        table = LongTable(data, repeatRows=1)
        table.setStyle(
            TableStyle(
                [
                    ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
                    ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ]
            )
        )
        story.append(table)
        if len(section.rows) > PDF_MAX_ROWS:
            story.append(
                Paragraph(
                    f"{len(section.rows) - PDF_MAX_ROWS} more rows are in the CSV export only.",
                    styles["BodyText"],
                )
            )
    document.build(story)
    return buffer.getvalue()


def _escape(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --- Building a report from stored parameters ------------------------------------------------------


def build_report(kind: str, params: Mapping[str, Any], *, full: bool = False) -> Any:
    """Build a report of ``kind`` from query-style ``params`` (the same ones the pages and the API
    read). With ``full``, paginated reports (hand history, journal) cover the whole period rather
    than one page. Raises ``ReportFilterError``, ``Player.DoesNotExist``."""
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
    if kind == ReportKind.PLAYER_STATEMENT:
        try:
            player_id = int(str(params.get("player", "")))
        except ValueError:
            raise ReportFilterError({"player": "a player id is required"}) from None
        return statement.build_player_statement(Player.objects.get(pk=player_id), filters)
    offset, limit = _page(params)
    if kind == ReportKind.HAND_HISTORY:
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


def render(report: Any, export_format: str) -> tuple[bytes, str]:
    """``(bytes, content type)`` of the report in ``export_format`` (csv or pdf)."""
    data = to_csv(report)
    if export_format == ExportFormat.CSV:
        return data, "text/csv; charset=utf-8"
    return to_pdf(report, csv_sha256=sha256_hex(data)), "application/pdf"


def download_response(data: bytes, content_type: str, filename: str) -> HttpResponse:
    """An attachment response whose ``X-Content-SHA256`` header is the sha256 of ``data``."""
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-SHA256"] = sha256_hex(data)
    return response


def filename_for(kind: str, params: Mapping[str, Any], export_format: str) -> str:
    parts = [str(kind)]
    if params.get("date_from"):
        parts.append(str(params["date_from"]))
    if params.get("date_to") and params.get("date_to") != params.get("date_from"):
        parts.append(str(params["date_to"]))
    if params.get("shift"):
        parts.append(str(params["shift"]).replace("/", "_"))
    return "-".join(parts) + f".{export_format}"


# --- The export job ---------------------------------------------------------------------------------


def request_export(
    *, kind: str, export_format: str, params: Mapping[str, Any], by: User | AnonymousUser | None
) -> ReportExport:
    """Record an export request (``pending``); the caller queues ``backoffice.tasks.build_export``
    for it on commit. Raises ``ReportFilterError`` for parameters the report can't read."""
    kind = ReportKind(kind)
    export_format = ExportFormat(export_format)
    clean = {key: str(value) for key, value in params.items() if value not in (None, "")}
    if kind != ReportKind.INTEGRITY:
        ReportFilters.from_params(clean)  # refuse bad filters now, not in the worker
    if (
        kind == ReportKind.PLAYER_STATEMENT
        and not Player.objects.filter(pk=clean.get("player") or 0).exists()
    ):
        raise ReportFilterError({"player": "no such player"})
    return ReportExport.objects.create(
        kind=kind,
        format=export_format,
        params=clean,
        requested_by=by if by is not None and by.is_authenticated else None,
        filename=filename_for(kind, clean, export_format),
    )


def build_export(export_id: int) -> ReportExport:
    """Build the file of export ``export_id``; safe to run twice (a ``done`` export is returned as
    it is). Bad parameters mark it ``failed`` with the reason; a database error propagates (the
    task retries it) and leaves it to be built again."""
    with transaction.atomic():
        export = ReportExport.objects.select_for_update().get(pk=export_id)
        if export.status == ExportStatus.DONE:
            return export
        ReportExport.objects.filter(pk=export.pk).update(
            status=ExportStatus.RUNNING, started_at=timezone.now(), attempts=export.attempts + 1
        )
    try:
        report = build_report(export.kind, export.params, full=True)
        data, _ = render(report, export.format)
    except DatabaseError:
        raise
    except (ReportFilterError, Player.DoesNotExist, ValueError) as exc:
        ReportExport.objects.filter(pk=export.pk).update(
            status=ExportStatus.FAILED, finished_at=timezone.now(), error=str(exc)[:2000]
        )
        return ReportExport.objects.get(pk=export.pk)
    ReportExport.objects.filter(pk=export.pk).exclude(status=ExportStatus.DONE).update(
        status=ExportStatus.DONE,
        finished_at=timezone.now(),
        content=data,
        sha256=sha256_hex(data),
        size=len(data),
        error="",
        software_version=software_version(),
    )
    return ReportExport.objects.get(pk=export.pk)
