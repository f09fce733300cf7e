"""The dealers' downs report's table (``backoffice.reports.downs``)."""

from __future__ import annotations

from backoffice.exports.sections import Section, make_section
from backoffice.reports import downs
from backoffice.reports.common import fmt_local


def downs_sections(report: downs.DownsReport) -> list[Section]:
    return [
        make_section(
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
