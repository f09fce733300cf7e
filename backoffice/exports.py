"""Exports of the reports: CSV (the canonical export) and PDF (reportlab), and the service that
builds a requested export in the background.

A report is one or more tables of data (``Section``). Its CSV export is one CSV file per table: a
report of one table downloads as that CSV; a report of several as a zip of them, with
``report.csv`` naming the report, its filters, the software version and each file
(:func:`export_file`). Money columns are named ``..._dollars`` and hold plain decimal numbers
(``12.50``); sections name them ``..._cents`` and hold integer cents, which the writers turn into
dollars. The export is deterministic: the same figures under the same filters and software version
give the same bytes (no generation time; the zip's entries carry a fixed date), so its sha256,
printed on every report page and in every PDF, identifies the data.

A PDF (``backoffice.pdf``) can't hold its own checksum: it prints the sha256 of the CSV export of
the same report, and the PDF's own sha256 is recorded on its ``ReportExport`` row (and sent as
``X-Content-SHA256``).

A shift close seals the same export (:func:`with_download_sha` with the signed anchor as two more
tables, ``anchor_sections``): its zip is stored on the ``ShiftClose`` and ``manage.py
verify_anchors`` reads the anchor's files back from it.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
import zipfile
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from django.db import DatabaseError, transaction
from django.http import HttpResponse
from django.utils import timezone

from backoffice import pdf
from backoffice.reports import changes, collection, downs, drops, hands, integrity, journal, statement
from backoffice.reports.common import ReportFilterError, ReportFilters, ReportMeta, fmt_local
from casino.core.version import software_version
from ledger import anchors
from ledger.hashing import sha256_hex
from ledger.models import ExportFormat, ExportStatus, ReportExport, ReportKind
from tables.models import Player, format_cents

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

PDF_MAX_ROWS = 20_000
"""A PDF holds at most this many rows per section (the CSV has them all); the PDF says so."""


@dataclasses.dataclass(frozen=True, slots=True)
class Section:
    """One table of a report: ``money`` names the columns (``..._dollars``) whose values are
    integer cents, written as dollars; ``totals`` the columns added up in the PDF, per page and for
    the whole report."""

    title: str
    headers: list[str]
    rows: list[list[Any]]
    money: frozenset[str] = frozenset()
    totals: frozenset[str] = frozenset()


def _dollar_header(header: str) -> str:
    return header.removesuffix("_cents") + "_dollars" if header.endswith("_cents") else header


def _section(
    title: str, headers: list[str], rows: Iterable[Iterable[Any]], *, totals: Iterable[str] = ()
) -> Section:
    """A section whose ``..._cents`` columns (integer cents) are exported as ``..._dollars``."""
    named = [_dollar_header(header) for header in headers]
    return Section(
        title,
        named,
        [list(row) for row in rows],
        frozenset(n for h, n in zip(headers, named, strict=True) if h != n),
        frozenset(_dollar_header(header) for header in totals),
    )


def dollars(cents: int) -> str:
    """Integer cents as a plain decimal number of dollars: ``-150`` -> ``-1.50``."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}{whole}.{rest:02d}"


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
            totals=FIGURE_HEADERS,
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
            totals=["amount_cents"],
        ),
        _section("Flags", ["code", "message", "cents"], ([f.code, f.message, f.cents] for f in report.flags)),
        _section(
            "Net fees by hour of the hand's start",
            ["hour", "net_fees_cents"],
            ([b.label, b.cents] for b in report.by_hour),
            totals=["net_fees_cents"],
        ),
    ]


def key(hand: hands.HandLine) -> list[Any]:
    """The columns that tie a row of the hand history's tables to its hand."""
    return [hand.hand_id, hand.table_number, hand.hand_number]


def hand_history_sections(report: hands.HandHistory) -> list[Section]:
    """The hand history as five related tables, keyed by ``hand_id``: the hands, the players dealt
    in (cards as entered, the reading, fees, net), the pots and their awards (and chips returned),
    the settlement payments in order (due and paid), and every ledger entry of the hands."""
    return [
        _section(
            "Hands",
            [
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
                "dealer",
                "players",
                "boards_agreed",
                "board",
                "fees_due_cents",
                "fees_paid_cents",
                "fees_returned_cents",
                "waived_cents",
                "misdeal_reason",
                "misdeal_text",
                "reading_status",
                "reading_revision",
                "input_sha256",
                "settlement_transaction",
                "settlement_hash",
                "reading",
            ],
            (
                [
                    *key(h),
                    fmt_local(h.started_at),
                    h.shift,
                    h.game,
                    h.stakes,
                    h.schedule,
                    h.rate,
                    h.status,
                    h.button_seat,
                    h.button_player,
                    h.dealer,
                    len(h.players),
                    "" if h.boards_agreed is None else h.boards_agreed,
                    " | ".join([h.board, *h.boards]).strip(" |"),
                    h.fees_due_cents,
                    h.fees_paid_cents,
                    h.fees_returned_cents,
                    h.waived_cents,
                    h.misdeal_reason,
                    h.void_reason,
                    h.reading_status,
                    h.revision,
                    h.input_digest,
                    h.settlement_id,
                    h.settlement_hash,
                    h.reading,
                ]
                for h in report.hands
            ),
            totals=["fees_due_cents", "fees_paid_cents", "fees_returned_cents", "waived_cents"],
        ),
        _section(
            "Players dealt in",
            [
                "hand_id",
                "table",
                "hand",
                "position",
                "seat",
                "player_id",
                "player",
                "cards_as_entered",
                "sweep_declared",
                "sweep_declared_at",
                "reading",
                "fee_due_cents",
                "fee_paid_cents",
                "net_cents",
            ],
            (
                [
                    *key(h),
                    p.position,
                    p.seat,
                    p.player_id,
                    p.player,
                    p.cards,
                    p.sweep_declared,
                    fmt_local(p.sweep_declared_at),
                    p.reading,
                    p.fee_due_cents,
                    p.fee_paid_cents,
                    p.result_cents,
                ]
                for h in report.hands
                for p in h.players
            ),
            totals=["fee_paid_cents"],
        ),
        _section(
            "Pots and awards",
            [
                "hand_id",
                "table",
                "hand",
                "pot",
                "pot_cents",
                "seat",
                "player",
                "share",
                "award_cents",
                "with",
            ],
            (
                [*key(h), pot.number, pot.amount_cents, a.seat, a.player, a.share, a.amount_cents, a.hand]
                for h in report.hands
                for pot in h.pots
                for a in pot.awards
            ),
            totals=["award_cents"],
        ),
        _section(
            "Chips returned",
            ["hand_id", "table", "hand", "seat", "player", "amount_cents", "reason"],
            ([*key(h), r.seat, r.player, r.amount_cents, r.reason] for h in report.hands for r in h.returned),
            totals=["amount_cents"],
        ),
        _section(
            "Settlement payments",
            [
                "hand_id",
                "table",
                "hand",
                "order",
                "from_seat",
                "from_player",
                "to_seat",
                "to_player",
                "due_cents",
                "paid_cents",
                "capped",
                "reason",
            ],
            (
                [
                    *key(h),
                    p.order,
                    p.from_seat,
                    p.from_player,
                    p.to_seat,
                    p.to_player,
                    p.due_cents,
                    p.amount_cents,
                    "yes" if p.capped else "no",
                    p.reason,
                ]
                for h in report.hands
                for p in h.settlement
            ),
            totals=["due_cents", "paid_cents"],
        ),
        _section(
            "Ledger postings",
            [
                "hand_id",
                "table",
                "hand",
                "transaction_id",
                "kind",
                "transaction_hash",
                "line",
                "account",
                "amount_cents",
            ],
            (
                [*key(h), e.transaction_id, e.kind, e.transaction_hash, e.line, e.account, e.amount_cents]
                for h in report.hands
                for e in h.payments
            ),
        ),
    ]


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
            totals=["amount_cents"],
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
        *anchor_sections(report.anchors),
    ]


def anchor_sections(document: Mapping[str, Any]) -> list[Section]:
    """A signed anchor (``ledger.anchors``) as two tables, the chain heads and the signature: two
    files of the report's zip, which ``manage.py verify_anchors`` reads back; none for an empty
    document (a record from before anchors)."""
    if not document:
        return []
    return [
        _section(anchors.HEADS_TITLE, anchors.HEADS_HEADERS, anchors.heads_rows(document)),
        _section(anchors.SIGNATURE_TITLE, anchors.SIGNATURE_HEADERS, anchors.signature_rows(document)),
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
            totals=["recorded_cents", "counted_cents", "variance_cents"],
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


def downs_sections(report: downs.DownsReport) -> list[Section]:
    return [
        _section(
            "Dealers' downs",
            [
                "down_id",
                "dealer",
                "table",
                "clocked_in",
                "clocked_in_by",
                "clocked_out",
                "clocked_out_by",
                "hands_dealt",
                "misdeals",
                "fees_collected_cents",
                "fees_returned_cents",
                "net_fees_cents",
            ],
            (
                [
                    d.down_id,
                    d.dealer,
                    d.table_number,
                    fmt_local(d.clocked_in_at),
                    d.clocked_in_by,
                    fmt_local(d.clocked_out_at) if d.clocked_out_at else "on the table",
                    d.clocked_out_by,
                    d.hands,
                    d.misdeals,
                    d.fees_collected_cents,
                    d.fees_returned_cents,
                    d.net_fees_cents,
                ]
                for d in report.lines
            ),
            totals=[
                "hands_dealt",
                "misdeals",
                "fees_collected_cents",
                "fees_returned_cents",
                "net_fees_cents",
            ],
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
    downs.DownsReport: downs_sections,
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


def _csv_rows(section: Section) -> Iterable[list[Any]]:
    """The section's rows as written: cents in money columns as dollars, None as empty."""
    money = [header in section.money for header in section.headers]
    for row in section.rows:
        yield [
            dollars(value)
            if is_money and isinstance(value, int) and not isinstance(value, bool)
            else ("" if value is None else value)
            for value, is_money in zip(row, money, strict=False)
        ]


def file_name(title: str) -> str:
    """A section's file name in a zip: ``Fee waivers`` -> ``fee-waivers.csv``."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return f"{slug or 'table'}.csv"


def _csv_bytes(rows: Iterable[Iterable[Any]]) -> bytes:
    buffer = io.StringIO()
    _SafeWriter(buffer).writerows(rows)
    return buffer.getvalue().encode()


def csv_files(report: Any, *, extra_sections: Iterable[Section] = ()) -> list[tuple[str, bytes]]:
    """One CSV file per table of the report (a header row, then the rows; UTF-8, ``\r\n``); with
    several, ``report.csv`` first: the report, its filters, the software version and each file with
    its table's title and number of rows."""
    sections = [*sections_of(report), *extra_sections]
    files: list[tuple[str, bytes]] = []
    names: set[str] = set()
    for section in sections:
        name = file_name(section.title)
        while name in names:  # two tables with one title: numbered
            name = name.removesuffix(".csv") + "-2.csv"
        names.add(name)
        files.append((name, _csv_bytes([section.headers, *_csv_rows(section)])))
    if len(files) == 1:
        return files
    meta: ReportMeta = report.meta
    index: list[list[Any]] = [
        ["field", "value", "rows"],
        ["report", meta.title, ""],
        ["filters", meta.filters_text, ""],
        ["software", meta.software_version, ""],
        *(
            ["file", f"{name}: {section.title}", len(section.rows)]
            for (name, _), section in zip(files, sections, strict=True)
        ),
    ]
    return [("report.csv", _csv_bytes(index)), *files]


ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""Every entry of an export zip carries this date, so the same data gives the same bytes."""


def export_file(report: Any, *, extra_sections: Iterable[Section] = ()) -> tuple[bytes, str, str]:
    """The report's CSV export: ``(bytes, content type, extension)``: the CSV of its one table, or
    a zip of its tables' CSVs (:func:`csv_files`)."""
    files = csv_files(report, extra_sections=extra_sections)
    if len(files) == 1:
        return files[0][1], "text/csv; charset=utf-8", "csv"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, data in files:
            entry = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data)
    return buffer.getvalue(), "application/zip", "zip"


def with_download_sha(report: Any, *, extra_sections: Iterable[Section] = ()) -> tuple[Any, bytes]:
    """The report with ``meta.export_sha256`` set to the sha256 of its CSV export (the file or zip
    a download gives: :func:`export_file`, with ``extra_sections`` after the report's own tables,
    e.g. a shift close's signed anchor), and that export's bytes."""
    data, _, _ = export_file(report, extra_sections=extra_sections)
    meta = dataclasses.replace(report.meta, export_sha256=sha256_hex(data))
    return dataclasses.replace(report, meta=meta), data


# --- PDF ------------------------------------------------------------------------------------------


def _pdf_text(value: Any, header: str, section: Section) -> str:
    if header in section.money and isinstance(value, int) and not isinstance(value, bool):
        return format_cents(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value)


def _pdf_header(header: str) -> str:
    """``fees_due_dollars`` -> ``fees due ($)``: the CSV's column, for people."""
    if header.endswith("_dollars"):
        return header.removesuffix("_dollars").replace("_", " ") + " ($)"
    return header.replace("_", " ")


def pdf_table(section: Section, *, limit: int = PDF_MAX_ROWS) -> pdf.PdfTable:
    """A section as the PDF prints it (at most ``limit`` rows; the rest is in the CSV only)."""
    rows = section.rows[:limit]
    numeric = [header in section.totals for header in section.headers]
    return pdf.PdfTable(
        title=section.title,
        headers=[_pdf_header(header) for header in section.headers],
        cells=[
            [_pdf_text(value, header, section) for value, header in zip(row, section.headers, strict=False)]
            for row in rows
        ],
        numbers=[
            [
                value if total and isinstance(value, int) and not isinstance(value, bool) else None
                for value, total in zip(row, numeric, strict=False)
            ]
            for row in rows
        ],
        money=[header in section.money for header in section.headers],
        totals=numeric,
        note=f"{len(section.rows) - limit} more rows are in the CSV export only."
        if len(section.rows) > limit
        else "",
    )


def _hand_block(hand: hands.HandLine) -> pdf.PdfBlock:
    due = format_cents(hand.fees_due_cents) if hand.fees_due_cents is not None else "no rate"
    heading = " · ".join(
        [
            f"Table {hand.table_number} hand {hand.hand_number} (id {hand.hand_id})",
            f"{fmt_local(hand.started_at)} ({hand.shift})",
            f"{hand.game}, {hand.stakes}",
            f"button seat {hand.button_seat} ({hand.button_player})",
            f"dealer {hand.dealer or 'not recorded'}",
            hand.status + (f", reading r{hand.revision}" if hand.revision else ""),
            f"fees due {due}, paid {format_cents(hand.fees_paid_cents)}, "
            f"returned {format_cents(hand.fees_returned_cents)}, waived {format_cents(hand.waived_cents)} "
            f"({hand.schedule}: {hand.rate or 'no rate'})",
        ]
    )
    notes = []
    if hand.status == "void":
        notes.append(
            f"Misdeal: {hand.misdeal_label or hand.misdeal_reason or 'no code'}"
            + (f": {hand.void_reason}" if hand.void_reason else "")
        )
    if hand.board:
        notes.append(f"Board: {hand.board}")
    if hand.boards or hand.boards_agreed:
        agreed = (
            f"{hand.boards_agreed} agreed before the deal" if hand.boards_agreed else "agreed: not recorded"
        )
        notes.append(
            f"Boards ({agreed}): " + " | ".join(f"{n}: {b}" for n, b in enumerate(hand.boards, start=1))
        )
    for pot in hand.pots:
        awards = ", ".join(
            f"seat {a.seat} ({a.player}) {a.share} {format_cents(a.amount_cents)}"
            + (f" with {a.hand}" if a.hand else "")
            for a in pot.awards
        )
        notes.append(f"Pot {pot.number} {format_cents(pot.amount_cents)}: {awards or 'no award'}")
    for back in hand.returned:
        notes.append(
            f"Returned: {format_cents(back.amount_cents)} to seat {back.seat} ({back.player}), {back.reason}"
        )
    if hand.settlement:
        notes.append(
            "Payments in settlement order: "
            + "; ".join(
                f"{p.order}. seat {p.from_seat} ({p.from_player}) pays seat {p.to_seat} ({p.to_player}) "
                f"{format_cents(p.amount_cents)}"
                + (f" of {format_cents(p.due_cents)} due (capped)" if p.capped else "")
                + (f", {p.reason}" if p.reason else "")
                for p in hand.settlement
            )
        )
    by_transaction: dict[int, list[hands.PaymentLine]] = {}
    for entry in hand.payments:
        by_transaction.setdefault(entry.transaction_id, []).append(entry)
    for transaction_id, entries in by_transaction.items():
        notes.append(
            f"Ledger transaction {transaction_id} ({entries[0].kind}, hash {entries[0].transaction_hash}): "
            + ", ".join(f"{e.account} {format_cents(e.amount_cents)}" for e in entries)
        )
    if hand.input_digest:
        notes.append(f"Showdown input SHA-256: {hand.input_digest}")
    table = _hand_players_table([hand])
    values = {
        ("Hands", "hands"): (1, False),
        ("Hands", "fees paid"): (hand.fees_paid_cents, True),
        ("Hands", "fees returned"): (hand.fees_returned_cents, True),
        ("Hands", "waived"): (hand.waived_cents, True),
    }
    return pdf.PdfBlock(heading=heading, table=table, notes=notes, values=values)


HAND_PLAYER_HEADERS = ["pos", "seat", "player", "cards as entered", "reading", "fee due", "fee paid", "net"]


def _hand_players_table(lines: list[hands.HandLine]) -> pdf.PdfTable:
    rows = [(h, p) for h in lines for p in h.players]
    return pdf.PdfTable(
        title="Players dealt in",
        headers=HAND_PLAYER_HEADERS,
        cells=[
            [
                f"P{p.position}",
                str(p.seat),
                p.player,
                p.cards + (f" (declared {fmt_local(p.sweep_declared_at)})" if p.sweep_declared_at else ""),
                p.reading,
                "" if p.fee_due_cents is None else format_cents(p.fee_due_cents),
                format_cents(p.fee_paid_cents),
                format_cents(p.result_cents),
            ]
            for _, p in rows
        ],
        numbers=[[None] * len(HAND_PLAYER_HEADERS) for _ in rows],
        money=[False, False, False, False, False, True, True, True],
        totals=[False] * len(HAND_PLAYER_HEADERS),
    )


def pdf_parts(report: Any) -> dict[str, Any]:
    """What :func:`to_pdf` lays out for ``report``: its tables, or (the hand history) a block per
    hand and the report's totals (``backoffice.pdf.build_pdf``'s arguments)."""
    if isinstance(report, hands.HandHistory):
        totals = _section(
            "Report totals",
            ["hands", "fees_due_cents", "fees_paid_cents", "fees_returned_cents", "waived_cents"],
            [
                [
                    len(report.hands),
                    sum(h.fees_due_cents or 0 for h in report.hands),
                    sum(h.fees_paid_cents for h in report.hands),
                    sum(h.fees_returned_cents for h in report.hands),
                    sum(h.waived_cents for h in report.hands),
                ]
            ],
        )
        shown = report.hands[:PDF_MAX_ROWS]
        return {
            "tables": [],
            "blocks": [_hand_block(hand) for hand in shown],
            "block_table": _hand_players_table(shown),
            "closing": [pdf_table(totals)],
        }
    return {"tables": [pdf_table(section) for section in sections_of(report)]}


def to_pdf(report: Any, *, csv_sha256: str) -> bytes:
    """The PDF of the report (``backoffice.pdf``): the head (title, filters, when it was made,
    software version, the CSV export's sha256) and the same in every page's footer with the page's
    totals; each table sized to its text, portrait or landscape; the hand history a block per hand."""
    meta: ReportMeta = report.meta
    head = pdf.PdfHead(
        title=meta.title,
        filters=meta.filters_text,
        made=fmt_local(meta.generated_at),
        software=meta.software_version,
        sha256=csv_sha256,
    )
    data, _ = pdf.build_pdf(head, **pdf_parts(report))
    return data


# --- Building a report from stored parameters ------------------------------------------------------


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


# --- The export job ---------------------------------------------------------------------------------


def request_export(
    *, kind: str, export_format: str, params: Mapping[str, Any], by: User | AnonymousUser | None
) -> ReportExport:
    """Record an export request (``pending``); the caller queues ``backoffice.tasks.build_export``
    for it on commit. Raises ``ReportFilterError`` for parameters the report can't read (bad
    filters, a player or dealer who doesn't exist), ``ValueError`` for an unknown kind or format."""
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
    if kind == ReportKind.DEALER_DOWNS and clean.get("dealer"):
        downs.dealer_named(clean["dealer"])  # refuse an unknown dealer now, not in the worker
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
        data, _, extension = render_file(report, export.format)
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
        filename=filename_for(export.kind, export.params, extension),
    )
    return ReportExport.objects.get(pk=export.pk)
