"""The dealers' downs report: each dealer's down at a table (``tables.DealerShift``, from clock-in to
clock-out) with the hands dealt in it, the misdeals, and the fees collected for those hands.

A down belongs to the period when it began in it (its clock-in on the room's clock, within the
filters' dates and shift hours), at the filters' tables, and, with ``dealer``, for that dealer
(username). A down still open is "on the table". The hands are the ones that recorded the down
(``Hand.dealer_shift``): dealt (a misdeal's hand was dealt too) and void (misdeals); the fees are
the ledger's entries into the house collection of those hands' FEE transactions, and what their
reversals gave back on a misdeal. Aggregate queries: four whatever the number of downs (two more
for each further ``ID_BATCH`` downs of a whole-period export).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Q, Sum

from backoffice.reports.common import (
    ReportFilterError,
    ReportFilters,
    ReportMeta,
    in_report_snapshot,
    make_meta,
)
from ledger.models import AccountKind, Entry, TransactionKind
from tables.choices import HandStatus
from tables.models import DealerShift, Hand

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

TITLE = "Dealers' downs"
MAX_LINES = 5000
"""A page shows at most this many downs (``truncated``); a background export has them all."""
ID_BATCH = 1000
"""Downs whose hands and fees are summed by one query (an ``IN`` list of their ids)."""


@dataclasses.dataclass(frozen=True, slots=True)
class DownLine:
    down_id: int
    dealer: str
    table_number: int
    clocked_in_at: dt.datetime
    clocked_in_by: str
    clocked_out_at: dt.datetime | None
    clocked_out_by: str
    hands: int
    misdeals: int
    fees_collected_cents: int
    fees_returned_cents: int

    @property
    def on_the_table(self) -> bool:
        return self.clocked_out_at is None

    @property
    def net_fees_cents(self) -> int:
        return self.fees_collected_cents - self.fees_returned_cents


@dataclasses.dataclass(frozen=True, slots=True)
class DownsReport:
    meta: ReportMeta
    dealer: str
    lines: list[DownLine]
    hands: int
    misdeals: int
    fees_collected_cents: int
    fees_returned_cents: int
    net_fees_cents: int
    truncated: bool


def dealer_named(username: str) -> AbstractBaseUser:
    """The user ``username`` (surrounding spaces ignored). Raises ``ReportFilterError`` (field
    ``dealer``) when there is none."""
    username = (username or "").strip()
    user = get_user_model().objects.filter(username=username).first() if username else None
    if user is None:
        raise ReportFilterError({"dealer": f"there is no user {username!r}"})
    return user


@in_report_snapshot
def build_downs_report(
    filters: ReportFilters, *, dealer: str = "", limit: int | None = MAX_LINES
) -> DownsReport:
    """Downs begun in the period at the filters' tables (and of ``dealer``, a username), in
    clock-in order: the first ``limit`` (``truncated`` when there were more), or with ``limit``
    None every one. Raises ``ReportFilterError`` for a dealer who doesn't exist."""
    dealer = (dealer or "").strip()
    meta = make_meta("dealer_downs", TITLE, filters, **({"dealer": dealer} if dealer else {}))
    downs = filters.on_time(DealerShift.objects.all(), "clocked_in_at", table_field="table")
    if dealer:
        downs = downs.filter(dealer=dealer_named(dealer))
    ordered = downs.select_related("dealer", "table", "clocked_in_by", "clocked_out_by").order_by(
        "clocked_in_at", "pk"
    )
    rows = list(ordered if limit is None else ordered[: limit + 1])
    truncated = limit is not None and len(rows) > limit
    rows = rows[:limit]
    ids = [down.pk for down in rows]
    hands: dict[int, Mapping[str, Any]] = {}
    fees: dict[int, Mapping[str, Any]] = {}
    for start in range(0, len(ids), ID_BATCH):
        batch = ids[start : start + ID_BATCH]
        hands.update(
            (row["dealer_shift_id"], row)
            for row in Hand.objects.filter(dealer_shift_id__in=batch)
            .values("dealer_shift_id")
            .annotate(
                dealt=Count("id", filter=Q(dealt_at__isnull=False)),
                void=Count("id", filter=Q(status=HandStatus.VOID)),
            )
            .order_by()
        )
        fees.update(
            (row["transaction__hand__dealer_shift_id"], row)
            for row in Entry.objects.filter(
                transaction__hand__dealer_shift_id__in=batch, account__kind=AccountKind.HOUSE_COLLECTION
            )
            .values("transaction__hand__dealer_shift_id")
            .annotate(
                collected=Sum("amount", filter=Q(transaction__kind=TransactionKind.FEE)),
                returned=Sum("amount", filter=Q(transaction__kind=TransactionKind.REVERSAL)),
            )
            .order_by()
        )
    lines = []
    for down in rows:
        counted: Mapping[str, Any] = hands.get(down.pk, {})
        money: Mapping[str, Any] = fees.get(down.pk, {})
        lines.append(
            DownLine(
                down_id=down.pk,
                dealer=down.dealer.get_username(),
                table_number=down.table.number,
                clocked_in_at=down.clocked_in_at,
                clocked_in_by=down.clocked_in_by.get_username(),
                clocked_out_at=down.clocked_out_at,
                clocked_out_by=down.clocked_out_by.get_username() if down.clocked_out_by else "",
                hands=int(counted.get("dealt") or 0),
                misdeals=int(counted.get("void") or 0),
                fees_collected_cents=int(money.get("collected") or 0),
                fees_returned_cents=-int(money.get("returned") or 0),
            )
        )
    collected = sum(line.fees_collected_cents for line in lines)
    returned = sum(line.fees_returned_cents for line in lines)
    return DownsReport(
        meta=meta,
        dealer=dealer,
        lines=lines,
        hands=sum(line.hands for line in lines),
        misdeals=sum(line.misdeals for line in lines),
        fees_collected_cents=collected,
        fees_returned_cents=returned,
        net_fees_cents=collected - returned,
        truncated=truncated,
    )
