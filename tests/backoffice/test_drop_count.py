"""Drop counts: two different counters, append-only records, corrections superseding, the variance
against the fees the ledger recorded, the threshold (default 3%) and the sign-off by another user."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from backoffice.drop_counts import (
    correct_drop_count,
    is_flagged,
    record_drop_count,
    sign_off_variance,
    variance_threshold_bp,
)
from backoffice.reports.common import ReportFilters
from backoffice.reports.drops import DropStatus, build_drop_variance_report
from ledger.errors import InvalidRecord, RecordConflict, RecordNotAllowed
from ledger.models import DropCount, VarianceSignOff
from ledger.shifts import Shift, ShiftCode
from tables.models import Table
from tests.factories import ReportRoom, at_local, rpt_fee

pytestmark = pytest.mark.django_db


@pytest.fixture
def floor_day(room: ReportRoom, a_past_day: dt.date) -> dict[str, Any]:
    """Two tables; table 61 books 10 x $1 = $10.00 in the day shift, table 62 $2 in the swing."""
    schedule = room.limit_schedule()
    t61, t62 = room.table(61, schedule=schedule), room.table(62, schedule=schedule)
    p61, p62 = room.seat(t61, ["A", "B", "C"]), room.seat(t62, ["D", "E", "F", "G", "H"])
    for minute in range(10):
        room.hand(t61, p61, at=at_local(a_past_day, 9, minute))
    room.hand(t62, p62, at=at_local(a_past_day, 17))
    return {"day": a_past_day, "t61": t61, "t62": t62}


def _count(table: Table, day: dt.date, code: ShiftCode, cents: int, by: Any, **kwargs: Any) -> DropCount:
    return record_drop_count(
        table=table,
        shift=Shift(day, code),
        amount_cents=cents,
        counter_one=kwargs.pop("counter_one", "Rita"),
        counter_two=kwargs.pop("counter_two", "Sam"),
        by=by,
        **kwargs,
    )


def test_threshold_rule_in_integers() -> None:
    assert variance_threshold_bp() == 300
    assert not is_flagged(recorded_cents=10_000, counted_cents=10_300, threshold_bp=300)  # exactly 3%
    assert is_flagged(recorded_cents=10_000, counted_cents=10_301, threshold_bp=300)
    assert is_flagged(recorded_cents=10_000, counted_cents=9_699, threshold_bp=300)
    assert not is_flagged(recorded_cents=0, counted_cents=0, threshold_bp=300)
    assert is_flagged(recorded_cents=0, counted_cents=1, threshold_bp=300)


def test_threshold_is_configurable(settings: Any) -> None:
    settings.LEDGER_DROP_VARIANCE_THRESHOLD_BP = 50
    assert variance_threshold_bp() == 50
    settings.LEDGER_DROP_VARIANCE_THRESHOLD_BP = 1.5
    with pytest.raises(ValueError, match="LEDGER_DROP_VARIANCE_THRESHOLD_BP"):
        variance_threshold_bp()


def test_variance_report_against_the_ledger(floor_day: dict[str, Any], staff: dict[str, Any]) -> None:
    day = floor_day["day"]
    recorded_61 = 10 * rpt_fee(3)  # the test's own arithmetic: $10.00
    _count(floor_day["t61"], day, ShiftCode.DAY, recorded_61 + 30, staff["counter"])  # +3%: within
    _count(floor_day["t62"], day, ShiftCode.SWING, 150, staff["counter"])  # $2.00 recorded: -25%
    report = build_drop_variance_report(ReportFilters(date_from=day, date_to=day))
    lines = {(line.table_number, line.shift_code): line for line in report.lines}
    assert set(lines) == {(61, "day"), (62, "swing")}
    within = lines[(61, "day")]
    assert (within.recorded_cents, within.counted_cents, within.variance_cents) == (
        recorded_61,
        recorded_61 + 30,
        30,
    )
    assert (within.variance_bp, within.flagged, within.status) == (300, False, DropStatus.WITHIN)
    short = lines[(62, "swing")]
    assert (short.recorded_cents, short.variance_cents, short.variance_bp) == (rpt_fee(5), -50, 2500)
    assert (short.flagged, short.status) == (True, DropStatus.NEEDS_SIGN_OFF)
    assert short.counters == "Rita and Sam"
    assert report.recorded_cents == recorded_61 + rpt_fee(5)
    assert report.counted_cents == recorded_61 + 30 + 150
    assert (report.flagged, report.awaiting_sign_off, report.not_counted) == (1, 1, 0)
    # A stricter threshold flags the first one too.
    strict = build_drop_variance_report(ReportFilters(date_from=day, date_to=day), threshold_bp=100)
    assert strict.flagged == 2


def test_shift_with_fees_and_no_count_is_flagged(floor_day: dict[str, Any]) -> None:
    day = floor_day["day"]
    report = build_drop_variance_report(ReportFilters(date_from=day, date_to=day, tables=(61,)))
    assert [(line.status, line.flagged) for line in report.lines] == [(DropStatus.NOT_COUNTED, True)]
    assert report.not_counted == 1


@pytest.mark.parametrize(
    ("counters", "code"),
    [
        (("", "Sam"), "counter_required"),
        (("Rita", " "), "counter_required"),
        (("Rita", " rita "), "same_counter"),
    ],
)
def test_two_different_counters_are_required(
    floor_day: dict[str, Any], staff: dict[str, Any], counters: tuple[str, str], code: str
) -> None:
    with pytest.raises(InvalidRecord) as caught:
        _count(
            floor_day["t61"],
            floor_day["day"],
            ShiftCode.DAY,
            100,
            staff["counter"],
            counter_one=counters[0],
            counter_two=counters[1],
        )
    assert caught.value.code == code
    assert not DropCount.objects.exists()


def test_bad_amounts_future_shifts_and_anonymous_users_are_refused(
    floor_day: dict[str, Any], staff: dict[str, Any]
) -> None:
    table, day = floor_day["t61"], floor_day["day"]
    for amount in (-1, 1.5, True, "100"):
        with pytest.raises(InvalidRecord):
            _count(table, day, ShiftCode.DAY, amount, staff["counter"])  # type: ignore[arg-type]
    tomorrow = timezone.localdate() + dt.timedelta(days=2)
    with pytest.raises(InvalidRecord, match="not started"):
        _count(table, tomorrow, ShiftCode.GRAVE, 100, staff["counter"])
    with pytest.raises(RecordNotAllowed):
        _count(table, day, ShiftCode.DAY, 100, None)
    assert not DropCount.objects.exists()


def test_a_second_count_is_refused_and_a_correction_supersedes(
    floor_day: dict[str, Any], staff: dict[str, Any]
) -> None:
    table, day = floor_day["t61"], floor_day["day"]
    first = _count(table, day, ShiftCode.DAY, 900, staff["counter"])
    with pytest.raises(RecordConflict) as caught:
        _count(table, day, ShiftCode.DAY, 1000, staff["counter"])
    assert caught.value.code == "already_counted"
    with pytest.raises(InvalidRecord, match="why"):
        correct_drop_count(
            count=first,
            amount_cents=1000,
            counter_one="Rita",
            counter_two="Sam",
            by=staff["manager"],
            reason=" ",
        )
    second = correct_drop_count(
        count=first,
        amount_cents=1000,
        counter_one="Rita",
        counter_two="Tom",
        by=staff["manager"],
        reason="a bill stuck in the box",
    )
    assert (second.supersedes_id, second.table_id, second.shift) == (first.pk, table.pk, first.shift)
    with pytest.raises(RecordConflict) as caught:
        correct_drop_count(
            count=first,
            amount_cents=1,
            counter_one="Rita",
            counter_two="Sam",
            by=staff["manager"],
            reason="again",
        )
    assert caught.value.code == "superseded"
    # The first record is untouched; the report uses the current one.
    first.refresh_from_db()
    assert first.amount_cents == 900
    line = build_drop_variance_report(ReportFilters(date_from=day, date_to=day, tables=(61,))).lines[0]
    assert (line.count_id, line.counted_cents, line.corrections) == (second.pk, 1000, 1)
    assert line.correction_reason == "a bill stuck in the box"
    assert line.status == DropStatus.WITHIN


def test_sign_off_rules(floor_day: dict[str, Any], staff: dict[str, Any]) -> None:
    table, day = floor_day["t61"], floor_day["day"]
    count = _count(table, day, ShiftCode.DAY, 500, staff["counter"])  # $5 counted, $10 recorded
    with pytest.raises(RecordNotAllowed) as caught:
        sign_off_variance(count=count, explanation="ok", by=staff["counter"])
    assert caught.value.code == "same_user"
    with pytest.raises(InvalidRecord):
        sign_off_variance(count=count, explanation="  ", by=staff["manager"])
    sign_off = sign_off_variance(count=count, explanation="$5 found in the toke box", by=staff["manager"])
    assert (sign_off.recorded_cents, sign_off.counted_cents, sign_off.variance_cents) == (1000, 500, -500)
    assert sign_off.threshold_bp == 300
    with pytest.raises(RecordConflict) as caught:
        sign_off_variance(count=count, explanation="again", by=staff["auditor"])
    assert caught.value.code == "already_signed_off"
    line = build_drop_variance_report(ReportFilters(date_from=day, date_to=day, tables=(61,))).lines[0]
    assert (line.status, line.signed_off_by, line.explanation) == (
        DropStatus.SIGNED_OFF,
        "manager",
        "$5 found in the toke box",
    )
    # A correction needs its own sign-off; the superseded count can't be signed off any more.
    corrected = correct_drop_count(
        count=count,
        amount_cents=400,
        counter_one="Rita",
        counter_two="Sam",
        by=staff["counter"],
        reason="recount",
    )
    line = build_drop_variance_report(ReportFilters(date_from=day, date_to=day, tables=(61,))).lines[0]
    assert (line.count_id, line.status) == (corrected.pk, DropStatus.NEEDS_SIGN_OFF)


def test_a_count_within_the_threshold_needs_no_sign_off(
    floor_day: dict[str, Any], staff: dict[str, Any]
) -> None:
    count = _count(floor_day["t61"], floor_day["day"], ShiftCode.DAY, 1000, staff["counter"])
    with pytest.raises(RecordConflict) as caught:
        sign_off_variance(count=count, explanation="nothing to explain", by=staff["manager"])
    assert caught.value.code == "not_flagged"
    assert not VarianceSignOff.objects.exists()


@pytest.mark.tamper
def test_records_are_append_only_in_the_database(floor_day: dict[str, Any], staff: dict[str, Any]) -> None:
    count = _count(floor_day["t61"], floor_day["day"], ShiftCode.DAY, 500, staff["counter"])
    sign_off = sign_off_variance(count=count, explanation="explained", by=staff["manager"])
    with pytest.raises(TypeError):
        count.save()
    with pytest.raises(TypeError):
        DropCount.objects.filter(pk=count.pk).update(amount_cents=1)
    with pytest.raises(TypeError):
        sign_off.delete()
    for sql in (
        "UPDATE ledger_dropcount SET amount_cents = 1",
        "DELETE FROM ledger_dropcount",
        "UPDATE ledger_variancesignoff SET explanation = 'x'",
        "DELETE FROM ledger_variancesignoff",
    ):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)
    count.refresh_from_db()
    assert count.amount_cents == 500
