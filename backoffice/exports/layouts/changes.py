"""The change log's table (``backoffice.reports.changes``)."""

from __future__ import annotations

from backoffice.exports.sections import Section, make_section
from backoffice.reports import changes
from backoffice.reports.common import fmt_local


def change_sections(report: changes.ChangeLog) -> list[Section]:
    return [
        make_section(
            "Changes",
            ["at", "source", "who", "action", "subject", "what", "reason"],
            ([fmt_local(c.at), c.source, c.who, c.action, c.subject, c.what, c.reason] for c in report.lines),
        )
    ]
