"""A player statement's tables (``backoffice.reports.statement``); each posting names the player
as they were called at the time."""

from __future__ import annotations

import dataclasses

from backoffice.exports.sections import Section, make_section
from backoffice.reports import statement
from backoffice.reports.common import fmt_local


def statement_sections(report: statement.PlayerStatement) -> list[Section]:
    totals = dataclasses.asdict(report.totals)
    return [
        make_section(
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
        make_section("Totals", [f"{key}_cents" for key in totals], [list(totals.values())]),
        make_section(
            "Postings",
            [
                "transaction_id",
                "at",
                "player",
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
                    line.player,
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
