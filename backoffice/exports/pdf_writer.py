"""The PDF export's content: each table as ``backoffice.pdf`` prints it, the hand history a block
per hand, and the head with the sha256 of the same report's CSV export (a PDF can't hold its own).
"""

from __future__ import annotations

from typing import Any

from backoffice import pdf
from backoffice.exports.layouts import sections_of
from backoffice.exports.sections import Section, make_section
from backoffice.reports import hands
from backoffice.reports.common import ReportMeta, fmt_local
from casino.core.money import format_cents

PDF_MAX_ROWS = 20_000
"""A PDF holds at most this many rows per section (the CSV has them all); the PDF says so."""


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
            f"{a.who} {a.share} {format_cents(a.amount_cents)}" + (f" with {a.hand}" if a.hand else "")
            for a in pot.awards
        )
        notes.append(f"{pot.title} {format_cents(pot.amount_cents)}: {awards or 'no award'}")
    for back in hand.returned:
        notes.append(f"Returned: {back.text} {format_cents(back.amount_cents)}")
    if hand.settlement:
        notes.append(
            "Payments in settlement order: "
            + "; ".join(
                f"{p.order}. {p.payer} pays {p.payee} {format_cents(p.amount_cents)}"
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
        totals = make_section(
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
