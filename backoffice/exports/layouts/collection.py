"""The collection report's tables (``backoffice.reports.collection``)."""

from __future__ import annotations

from backoffice.exports.sections import Section, make_section
from backoffice.reports import collection
from backoffice.reports.common import fmt_local

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
        make_section(
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
        make_section("Totals", FIGURE_HEADERS, [_figures(report.totals)]),
        make_section(
            "By shift",
            ["shift", *FIGURE_HEADERS, "closed", "close_sha256"],
            (
                [s.shift, *_figures(s.figures), "yes" if s.closed else "no", s.close_sha256]
                for s in report.shifts
            ),
        ),
        make_section(
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
        make_section(
            "Flags", ["code", "message", "cents"], ([f.code, f.message, f.cents] for f in report.flags)
        ),
        make_section(
            "Net fees by hour of the hand's start",
            ["hour", "net_fees_cents"],
            ([b.label, b.cents] for b in report.by_hour),
            totals=["net_fees_cents"],
        ),
    ]
