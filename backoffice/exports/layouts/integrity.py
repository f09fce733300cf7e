"""The integrity report's tables (``backoffice.reports.integrity``) and a signed anchor's two
(``ledger.anchors``), which a shift close seals too. The signed heads keep the ledger's chain keys
(``table:8``: a table's database id, read back by ``manage.py verify_anchors``); the report adds a
table naming each chain's table by its number (``backoffice.reports.table_names``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backoffice.exports.sections import Section, make_section
from backoffice.reports import integrity
from backoffice.reports.table_names import chain_names
from ledger import anchors


def integrity_sections(report: integrity.IntegrityReport) -> list[Section]:
    return [
        make_section(
            "Checks",
            ["check", "ok", "detail"],
            ([c.name, "yes" if c.ok else "NO", c.detail] for c in report.checks),
        ),
        make_section(
            "Problems",
            ["code", "message"],
            ([p["code"], p["message"]] for p in report.ledger.get("problems", [])),
        ),
        make_section(
            f"Database triggers ({report.guards.vendor})",
            ["table", "trigger", "present", "enabled"],
            (
                [t.table, t.trigger, "yes" if t.present else "NO", "yes" if t.enabled else "NO"]
                for t in report.guards.triggers
            ),
        ),
        make_section(
            "Edits tried (each rolled back)",
            ["probe", "outcome", "detail"],
            ([p.probe, p.outcome, p.detail] for p in report.guards.probes),
        ),
        make_section("Notes", ["note"], ([note] for note in report.guards.notes)),
        make_section(
            "Ledger chains by table",
            ["chain", "table"],
            ([chain, name] for chain, name in _chain_names(report).items()),
        ),
        *anchor_sections(report.anchors),
    ]


def _chain_names(report: integrity.IntegrityReport) -> dict[str, str]:
    heads = report.anchors.get("heads", []) if isinstance(report.anchors, Mapping) else []
    return chain_names(str(head.get("chain", "")) for head in heads if isinstance(head, Mapping))


def anchor_sections(document: Mapping[str, Any]) -> list[Section]:
    """A signed anchor (``ledger.anchors``) as two tables, the chain heads and the signature: two
    files of the report's zip, which ``manage.py verify_anchors`` reads back; none for an empty
    document (a record from before anchors)."""
    if not document:
        return []
    return [
        make_section(anchors.HEADS_TITLE, anchors.HEADS_HEADERS, anchors.heads_rows(document)),
        make_section(anchors.SIGNATURE_TITLE, anchors.SIGNATURE_HEADERS, anchors.signature_rows(document)),
    ]
