"""How much one request may ask of a report: the period and the page size a page, the API or an
export request accepts (docs/reports.md, "Bounded work").

``ReportFilters`` itself accepts any period (a shift close, the integrity check and the tests build
reports of their own); what people and programs ask through the pages, the API and the export
requests is held to these limits, and a request beyond them is a ``ReportFilterError`` (400 on the
API, the filter page's 400 on the pages) naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backoffice.reports.common import ReportFilterError, ReportFilters

MAX_PERIOD_DAYS = 366
"""The longest period (business dates, both ends counted) a page, the API or an export covers: a
year, a leap year's too. A longer one is asked as several exports."""

MAX_PAGE_SIZE = 500
"""The most rows (hands, journal transactions) one page of a paged report holds."""


def check_period(filters: ReportFilters) -> ReportFilters:
    """``filters`` if their period is at most :data:`MAX_PERIOD_DAYS` days, else
    ``ReportFilterError`` on ``date_to``."""
    days = (filters.date_to - filters.date_from).days + 1
    if days > MAX_PERIOD_DAYS:
        raise ReportFilterError(
            {"date_to": f"the period is {days} days; at most {MAX_PERIOD_DAYS} days may be asked at once"}
        )
    return filters


def asked_filters(params: Mapping[str, Any]) -> ReportFilters:
    """The filters of a request's query (``ReportFilters.from_params``), held to the period limit."""
    return check_period(ReportFilters.from_params(params))


def check_page_size(limit: int, *, name: str = "limit") -> int:
    """``limit`` if it is 1 to :data:`MAX_PAGE_SIZE`, else ``ReportFilterError`` on ``name``."""
    if not 1 <= limit <= MAX_PAGE_SIZE:
        raise ReportFilterError({name: f"must be 1 to {MAX_PAGE_SIZE} rows"})
    return limit
