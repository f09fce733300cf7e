"""A report's tables as the exports write them: ``Section`` and the helpers every layout uses.

A section names its money columns ``..._dollars`` and holds their values as integer cents; the
writers (``csv_writer``, ``pdf_writer``) turn them into dollars.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any


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


def make_section(
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
