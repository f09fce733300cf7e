"""Each report's layout: the tables (``Section``) its exports write, one module per report as in
``backoffice/reports/``, and :func:`sections_of`, which picks the layout of a report by its type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from backoffice.exports.layouts.changes import change_sections
from backoffice.exports.layouts.collection import collection_sections
from backoffice.exports.layouts.downs import downs_sections
from backoffice.exports.layouts.drops import drop_sections
from backoffice.exports.layouts.hands import hand_history_sections
from backoffice.exports.layouts.integrity import anchor_sections, integrity_sections
from backoffice.exports.layouts.journal import journal_sections
from backoffice.exports.layouts.statement import statement_sections
from backoffice.exports.sections import Section
from backoffice.reports import changes, collection, downs, drops, hands, integrity, journal, statement

__all__ = ["SECTIONS", "anchor_sections", "sections_of"]

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
    """The tables of ``report``, by its layout (``KeyError`` for a type that has none)."""
    return SECTIONS[type(report)](report)
