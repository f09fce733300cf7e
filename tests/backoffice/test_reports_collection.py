"""The collection report: hands, players, fees due under the schedule in force at each hand's start,
fees collected (net of returns), waivers with reasons, and the flags an auditor must look at.

Expected figures are computed here from the test's own schedule numbers (``rpt_fee``,
``EACH_RATE``) and cross-checked against the ledger's balances and ``tables.selectors``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from backoffice.reports.collection import build_collection_report
from backoffice.reports.common import ReportFilterError, ReportFilters, content_sha256
from backoffice.waivers import waive_fee
from ledger import selectors
from ledger import services as ledger_services
from ledger.models import Account, AccountKind, JournalTransaction
from ledger.shifts import Shift, ShiftCode
from tables.models import Hand
from tables.selectors import rate_for_hand
from tests.factories import EACH_RATE, ReportRoom, at_local, rpt_fee

pytestmark = pytest.mark.django_db


def _row(report: Any, table: int) -> Any:
    rows = [row for row in report.rows if row.table_number == table and row.game]
    assert len(rows) == 1, report.rows
    return rows[0]


@pytest.fixture
def day_of_hands(room: ReportRoom, a_past_day: dt.date, staff: dict[str, Any]) -> dict[str, Any]:
    """Two tables' hands across the three shifts of one day (see each line)."""
    day = a_past_day
    schedule = room.limit_schedule(revised_at=at_local(day, 12))
    t1 = room.table(41, schedule=schedule)
    t1_players = room.seat(t1, ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"])
    t2 = room.table(42, schedule=room.each_schedule(), stakes="points-5", game="chinese-poker")
    t2.keep_fees_on_misdeal = True
    t2.save(update_fields=["keep_fees_on_misdeal"])
    t2_players = room.seat(t2, ["Hal", "Ida", "Jo", "Kit"])
    h = {}
    h["grave"] = room.hand(t1, t1_players[:4], at=at_local(day, 3))  # v1, 4 players: $1
    h["day6"] = room.hand(t1, t1_players[:6], at=at_local(day, 9))  # v1, 6: $2
    h["day6v2"] = room.hand(t1, t1_players[1:7], at=at_local(day, 13))  # v2, 6: $2.50
    h["day7v2"] = room.hand(t1, t1_players, at=at_local(day, 14))  # v2, 7: $3.50
    h["waived"] = room.hand(t1, t1_players[:5], at=at_local(day, 15), collect=False)  # v2, 5: $2.50 waived
    waive_fee(
        hand=h["waived"], player=t1_players[0], amount_cents=250, reason="comp: birthday", by=staff["manager"]
    )
    # v2, 3: $1.50 returned
    h["misdeal"] = room.misdeal(room.hand(t1, t1_players[:3], at=at_local(day, 17), settled=False))
    h["short"] = room.hand(
        t1, t1_players[:4], at=at_local(day, 18), fees=[100, 0, 0, 0]
    )  # $1.50 due, $1 taken
    h["t2day"] = room.hand(t2, t2_players, at=at_local(day, 10))  # $1 each x 4
    h["t2kept"] = room.misdeal(  # kept
        room.hand(t2, t2_players, at=at_local(day, 20), settled=False), return_fees=False
    )
    return {"day": day, "t1": t1, "t2": t2, "hands": h, "t1_players": t1_players}


def test_rows_match_the_schedule_and_the_ledger(day_of_hands: dict[str, Any]) -> None:
    day = day_of_hands["day"]
    report = build_collection_report(ReportFilters(date_from=day, date_to=day))

    t1 = _row(report, 41)
    due_t1 = (
        rpt_fee(4)
        + rpt_fee(6)
        + rpt_fee(6, revised=True)
        + rpt_fee(7, revised=True)
        + rpt_fee(5, revised=True)
        + rpt_fee(3, revised=True)
        + rpt_fee(4, revised=True)
    )
    collected_t1 = due_t1 - rpt_fee(5, revised=True) - (rpt_fee(4, revised=True) - 100)
    assert (t1.figures.hands, t1.figures.void_hands, t1.figures.players) == (7, 1, 4 + 6 + 6 + 7 + 5 + 3 + 4)
    assert t1.figures.fees_due_cents == due_t1 == 100 + 200 + 250 + 350 + 250 + 150 + 150
    assert t1.figures.fees_collected_cents == collected_t1
    assert t1.figures.fees_returned_cents == rpt_fee(3, revised=True)
    assert t1.figures.waived_cents == 250
    assert t1.unexplained_cents == 50  # the short hand: $1.50 due, $1 taken, no waiver
    assert t1.net_collected_cents == collected_t1 - rpt_fee(3, revised=True)
    assert (t1.game, t1.stakes, t1.schedule) == ("Texas Hold'em", "$4-$8 limit", "RPT")

    t2 = _row(report, 42)
    assert (t2.figures.hands, t2.figures.void_hands, t2.figures.players) == (2, 1, 8)
    assert t2.figures.fees_due_cents == t2.figures.fees_collected_cents == 2 * 4 * EACH_RATE
    assert t2.figures.fees_returned_cents == 0  # the table keeps fees on a misdeal
    assert t2.unexplained_cents == 0

    # The totals are the rows' sums and equal what the ledger's house accounts hold for the day.
    house_total = sum(selectors.shift_collected(shift=Shift(day, code)) for code in ShiftCode)
    assert report.net_collected_cents == house_total == t1.net_collected_cents + t2.net_collected_cents
    assert report.house_balance_cents == house_total
    assert report.unattributed_cents == 0
    assert report.totals.fees_due_cents == due_t1 + 8 * EACH_RATE
    assert sum(bar.cents for bar in report.by_hour) == house_total
    assert {bar.label: bar.cents for bar in report.by_table} == {
        "Table 41": t1.net_collected_cents,
        "Table 42": t2.net_collected_cents,
    }
    assert [flag.code for flag in report.flags] == ["unexplained_shortfall"]
    assert report.flags[0].cents == 50
    assert [(w.player, w.amount_cents, w.reason) for w in report.waivers] == [("Ann", 250, "comp: birthday")]


def test_due_agrees_with_the_floor_selector_hand_by_hand(day_of_hands: dict[str, Any]) -> None:
    day = day_of_hands["day"]
    report = build_collection_report(ReportFilters(date_from=day, date_to=day))
    expected = 0
    for hand in Hand.objects.filter(table__number__in=[41, 42]):
        rate = rate_for_hand(hand)
        assert rate is not None
        expected += sum(rate.fees_by_position(hand.players.count()))
    assert report.totals.fees_due_cents == expected


def test_shift_lines_and_shift_filter(day_of_hands: dict[str, Any]) -> None:
    day = day_of_hands["day"]
    whole = build_collection_report(ReportFilters(date_from=day, date_to=day))
    by_shift = {line.shift_code: line for line in whole.shifts}
    assert set(by_shift) == {"grave", "day", "swing"}
    assert by_shift["grave"].figures.hands == 1
    assert by_shift["day"].figures.hands == 5  # 4 at table 41, 1 at table 42
    assert by_shift["swing"].figures.hands == 3
    for code, line in by_shift.items():
        ledger_view = selectors.shift_collected(shift=Shift(day, ShiftCode(code)))
        assert line.net_collected_cents == line.house_balance_cents == ledger_view
        assert line.unattributed_cents == 0

    day_only = build_collection_report(ReportFilters(date_from=day, date_to=day, shift=ShiftCode.DAY))
    assert day_only.totals == by_shift["day"].figures
    assert [line.shift_code for line in day_only.shifts] == ["day"]
    t1 = _row(day_only, 41)
    assert t1.figures.fees_due_cents == rpt_fee(6) + rpt_fee(6, revised=True) + rpt_fee(7, revised=True) + 250


def test_table_filter(day_of_hands: dict[str, Any]) -> None:
    day = day_of_hands["day"]
    report = build_collection_report(ReportFilters(date_from=day, date_to=day, tables=(42,)))
    assert [row.table_number for row in report.rows] == [42]
    assert report.net_collected_cents == 8 * EACH_RATE
    assert report.waivers == []


def test_a_period_of_several_days_adds_up(room: ReportRoom, a_past_day: dt.date) -> None:
    schedule = room.limit_schedule()
    table = room.table(43, schedule=schedule)
    players = room.seat(table, ["A", "B", "C", "D", "E"])
    rng = random.Random(7)
    expected_due = expected_hands = 0
    for offset in range(3):
        day = a_past_day + dt.timedelta(days=offset)
        for hour in rng.sample(range(24), 5):
            n = rng.randint(2, 5)
            room.hand(table, players[:n], at=at_local(day, hour, rng.randint(0, 59)))
            expected_due += rpt_fee(n)
            expected_hands += 1
    report = build_collection_report(
        ReportFilters(date_from=a_past_day, date_to=a_past_day + dt.timedelta(days=2))
    )
    assert report.totals.hands == expected_hands == 15
    assert report.totals.fees_due_cents == report.totals.fees_collected_cents == expected_due
    assert len(report.shifts) <= 9
    one_day = build_collection_report(ReportFilters(date_from=a_past_day, date_to=a_past_day))
    assert one_day.totals.hands == 5


def test_flags_no_rate_fees_without_hand_and_returns_without_void(
    room: ReportRoom, a_past_day: dt.date, staff: dict[str, Any]
) -> None:
    schedule = room.limit_schedule()
    table = room.table(44, schedule=schedule)
    players = room.seat(table, ["A", "B", "C"])
    # A hand before the schedule's first version: no rate was in force.
    old = at_local(dt.date(2019, 6, 1), 10)
    room.hand(table, players, at=old, collect=False)
    report = build_collection_report(ReportFilters(date_from=old.date(), date_to=old.date()))
    assert report.totals.hands_without_rate == 1
    assert report.totals.fees_due_cents == 0
    assert [flag.code for flag in report.flags] == ["no_rate"]
    assert report.rows[0].figures.hands_without_rate == 1

    # A fee posted without a hand, and a fee returned for a hand that was not voided.
    shift = Shift.at(at_local(a_past_day, 10))
    ledger_services.collect_fees(
        table=table, fees=[(players[0], 75)], shift=shift, user=room.user, idempotency_key="loose-fee"
    )
    hand = room.hand(table, players, at=at_local(a_past_day, 11))
    ledger_services.reverse(
        transaction=JournalTransaction.objects.get(idempotency_key=f"hand:{hand.pk}:fees"),
        user=room.user,
        reason="returned by mistake",
        idempotency_key="bad-return",
    )
    report = build_collection_report(ReportFilters(date_from=a_past_day, date_to=a_past_day))
    assert {flag.code: flag.cents for flag in report.flags} == {
        "returned_without_void": rpt_fee(3),
        "unattributed_fees": 75,
    }
    house = Account.objects.get(
        kind=AccountKind.HOUSE_COLLECTION, table=table, shift_date=a_past_day, shift_code="day"
    )
    assert report.house_balance_cents == house.balance == 75
    assert report.unattributed_cents == 75
    assert report.net_collected_cents == 0  # the hand's fee, returned
    day_line = next(line for line in report.shifts if line.shift_code == "day")
    assert (day_line.house_balance_cents, day_line.unattributed_cents) == (75, 75)


def test_fees_booked_to_another_shift_are_flagged(room: ReportRoom, a_past_day: dt.date) -> None:
    """A fee is attributed to its hand; booking it to the house account of another shift than the
    hand's is flagged, and that shift's balance shows it."""
    table = room.table(45, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B"])
    room.hand(table, players, at=at_local(a_past_day, 9), fee_shift=Shift(a_past_day, ShiftCode.SWING))
    report = build_collection_report(ReportFilters(date_from=a_past_day, date_to=a_past_day))
    lines = {line.shift_code: line for line in report.shifts}
    assert lines["day"].figures.fees_collected_cents == rpt_fee(2)
    assert lines["day"].unexplained_cents == 0
    assert (lines["day"].house_balance_cents, lines["swing"].house_balance_cents) == (0, rpt_fee(2))
    assert report.unattributed_cents == 0
    assert [(flag.code, flag.cents) for flag in report.flags] == [("booked_to_other_shift", rpt_fee(2))]


def test_a_fee_of_a_hand_outside_the_period_is_unattributed(room: ReportRoom, a_past_day: dt.date) -> None:
    table = room.table(47, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B"])
    day_before = a_past_day - dt.timedelta(days=1)
    room.hand(table, players, at=at_local(day_before, 23, 30), fee_shift=Shift(a_past_day, ShiftCode.GRAVE))
    today = build_collection_report(ReportFilters(date_from=a_past_day, date_to=a_past_day))
    assert today.totals.hands == 0
    assert [(flag.code, flag.cents) for flag in today.flags] == [("unattributed_fees", rpt_fee(2))]
    both = build_collection_report(ReportFilters(date_from=day_before, date_to=a_past_day))
    assert both.unattributed_cents == 0
    assert [flag.code for flag in both.flags] == ["booked_to_other_shift"]


def test_query_count_does_not_grow_with_hands(room: ReportRoom, a_past_day: dt.date) -> None:
    table = room.table(46, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C", "D"])
    filters = ReportFilters(date_from=a_past_day, date_to=a_past_day)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            build_collection_report(filters)
        return len(captured)

    room.hand(table, players, at=at_local(a_past_day, 1))
    few = queries()
    for hour in range(2, 22):
        room.hand(table, players[: 2 + hour % 3], at=at_local(a_past_day, hour))
    assert queries() == few


def test_report_digest_ignores_when_it_was_made(day_of_hands: dict[str, Any]) -> None:
    day = day_of_hands["day"]
    filters = ReportFilters(date_from=day, date_to=day)
    first, second = build_collection_report(filters), build_collection_report(filters)
    assert content_sha256(first) == content_sha256(second)
    later = dataclasses.replace(
        first,
        meta=dataclasses.replace(
            first.meta, generated_at=first.meta.generated_at + dt.timedelta(days=1), software_version="other"
        ),
    )
    assert content_sha256(later) == content_sha256(first)
    # ...but any figure changes it.
    changed = dataclasses.replace(first, net_collected_cents=first.net_collected_cents + 1)
    assert content_sha256(changed) != content_sha256(first)
    other = build_collection_report(ReportFilters(date_from=day, date_to=day, shift=ShiftCode.DAY))
    assert content_sha256(other) != content_sha256(first)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"date_from": "2030-13-01"}, "date_from"),
        ({"date_from": "2030-01-02", "date_to": "2030-01-01"}, "date_to"),
        ({"shift": "night"}, "shift"),
        ({"table": "x"}, "table"),
        ({"table": "0"}, "table"),
    ],
)
def test_bad_filters_are_refused_with_the_field(params: dict[str, str], field: str) -> None:
    with pytest.raises(ReportFilterError) as caught:
        ReportFilters.from_params(params)
    assert field in caught.value.errors


def test_filters_read_a_shift_key_and_table_lists() -> None:
    filters = ReportFilters.from_params({"shift": "2030-01-02/swing", "table": "4, 2,4"})
    assert (filters.date_from, filters.date_to, filters.shift, filters.tables) == (
        dt.date(2030, 1, 2),
        dt.date(2030, 1, 2),
        ShiftCode.SWING,
        (2, 4),
    )
    assert filters.single_shift == Shift(dt.date(2030, 1, 2), ShiftCode.SWING)
    assert ReportFilters.from_params(filters.as_params()) == filters
