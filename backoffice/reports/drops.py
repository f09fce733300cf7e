"""The drop-count variance report: for each table and shift of the period, the fees the ledger
recorded (the house-collection account's entries), the current drop count (the record nothing
supersedes), the variance and whether it exceeds the threshold, and the sign-off status.

Two grouped/filtered queries: fees by (table, shift) and the current counts with their sign-offs.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from django.db.models import Count, Sum

from backoffice.drop_counts import is_flagged, variance_threshold_bp
from backoffice.reports.common import ReportFilters, ReportMeta, in_report_snapshot, make_meta
from ledger.models import AccountKind, DropCount, Entry
from ledger.shifts import Shift, ShiftCode
from tables.models import Table

TITLE = "Drop count variance"


class DropStatus:
    NOT_COUNTED = "not counted"
    WITHIN = "within threshold"
    NEEDS_SIGN_OFF = "needs sign-off"
    SIGNED_OFF = "signed off"


@dataclasses.dataclass(frozen=True, slots=True)
class DropLine:
    table_number: int
    shift: str
    business_date: dt.date
    shift_code: str
    recorded_cents: int
    counted_cents: int | None
    variance_cents: int | None
    variance_bp: int | None
    flagged: bool
    status: str
    count_id: int | None
    counters: str
    entered_by: str
    entered_at: dt.datetime | None
    corrections: int
    correction_reason: str
    signed_off_by: str
    signed_off_at: dt.datetime | None
    explanation: str


@dataclasses.dataclass(frozen=True, slots=True)
class DropVarianceReport:
    meta: ReportMeta
    threshold_bp: int
    lines: list[DropLine]
    recorded_cents: int
    counted_cents: int
    variance_cents: int
    flagged: int
    awaiting_sign_off: int
    not_counted: int


def _order(code: str) -> int:
    return [c.value for c in ShiftCode].index(code)


@in_report_snapshot
def build_drop_variance_report(
    filters: ReportFilters, *, threshold_bp: int | None = None
) -> DropVarianceReport:
    """The variance report for ``filters`` (threshold: ``variance_threshold_bp()`` unless given)."""
    threshold = variance_threshold_bp() if threshold_bp is None else int(threshold_bp)
    meta = make_meta("drop_variance", TITLE, filters, threshold_bp=threshold)
    recorded = {
        (row["account__table_id"], row["account__shift_date"], row["account__shift_code"]): int(
            row["cents"] or 0
        )
        for row in filters.on_shift_key(
            Entry.objects.filter(account__kind=AccountKind.HOUSE_COLLECTION),
            date_field="account__shift_date",
            code_field="account__shift_code",
            table_field="account__table",
        )
        .values("account__table_id", "account__shift_date", "account__shift_code")
        .annotate(cents=Sum("amount"))
        .order_by()
    }
    counts_qs = filters.on_shift_key(
        DropCount.objects.filter(superseded_by__isnull=True),
        date_field="shift_date",
        code_field="shift_code",
        table_field="table",
    )
    counts = {
        (count.table_id, count.shift_date, count.shift_code): count
        for count in counts_qs.select_related("entered_by", "sign_off__signed_by")
    }
    corrections = {
        (row["table_id"], row["shift_date"], row["shift_code"]): int(row["n"])
        for row in filters.on_shift_key(
            DropCount.objects.filter(supersedes__isnull=False),
            date_field="shift_date",
            code_field="shift_code",
            table_field="table",
        )
        .values("table_id", "shift_date", "shift_code")
        .annotate(n=Count("pk"))
        .order_by()
    }
    keys = set(recorded) | set(counts)
    tables = Table.objects.in_bulk({key[0] for key in keys})
    lines = []
    for key in sorted(keys, key=lambda k: (k[1], _order(k[2]), tables[k[0]].number)):
        table_id, day, code = key
        fees = recorded.get(key, 0)
        count = counts.get(key)
        sign_off = getattr(count, "sign_off", None) if count is not None else None
        if count is None:
            counted = variance = variance_bp = None
            flagged = fees != 0
            status = DropStatus.NOT_COUNTED
        else:
            counted = count.amount_cents
            variance = counted - fees
            variance_bp = abs(variance) * 10_000 // abs(fees) if fees else None
            flagged = is_flagged(recorded_cents=fees, counted_cents=counted, threshold_bp=threshold)
            status = (
                DropStatus.SIGNED_OFF
                if sign_off is not None
                else DropStatus.NEEDS_SIGN_OFF
                if flagged
                else DropStatus.WITHIN
            )
        lines.append(
            DropLine(
                table_number=tables[table_id].number,
                shift=str(Shift(business_date=day, code=ShiftCode(code))),
                business_date=day,
                shift_code=code,
                recorded_cents=fees,
                counted_cents=counted,
                variance_cents=variance,
                variance_bp=variance_bp,
                flagged=flagged,
                status=status,
                count_id=count.pk if count else None,
                counters=f"{count.counter_one} and {count.counter_two}" if count else "",
                entered_by=count.entered_by.get_username() if count else "",
                entered_at=count.entered_at if count else None,
                corrections=corrections.get(key, 0),
                correction_reason=count.correction_reason if count else "",
                signed_off_by=sign_off.signed_by.get_username() if sign_off else "",
                signed_off_at=sign_off.signed_at if sign_off else None,
                explanation=sign_off.explanation if sign_off else "",
            )
        )
    return DropVarianceReport(
        meta=meta,
        threshold_bp=threshold,
        lines=lines,
        recorded_cents=sum(line.recorded_cents for line in lines),
        counted_cents=sum(line.counted_cents or 0 for line in lines),
        variance_cents=sum(line.variance_cents or 0 for line in lines),
        flagged=sum(line.flagged for line in lines),
        awaiting_sign_off=sum(line.status == DropStatus.NEEDS_SIGN_OFF for line in lines),
        not_counted=sum(line.status == DropStatus.NOT_COUNTED for line in lines),
    )
