"""The drop variance report's tables (``backoffice.reports.drops``)."""

from __future__ import annotations

from backoffice.exports.sections import Section, make_section
from backoffice.reports import drops
from backoffice.reports.common import fmt_local


def drop_sections(report: drops.DropVarianceReport) -> list[Section]:
    return [
        make_section(
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
        make_section(
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
