"""Hand history: time, table, game, button, players, fees due and paid, the engine's reading and
the payments the ledger posted, a page at a time with a fixed number of queries."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from backoffice.reports import hands as hands_report
from backoffice.reports.common import ReportFilters
from backoffice.reports.hands import READING_UNAVAILABLE, build_hand_history, summarize_reading
from backoffice.waivers import waive_fee
from tests.factories import ReportRoom, at_local, rpt_fee

pytestmark = pytest.mark.django_db

POT_RESULT = {
    "pots": [
        {
            "amount": 6500,
            "seats": [1, 2, 3],
            "awards": [
                {"seat": 3, "amount": 3300, "share": "high"},
                {"seat": 1, "amount": 3200, "share": "low"},
            ],
        }
    ],
    "hands": {
        "1": {"high": "Pair of twos", "low": "8-6-4-3-2"},
        "3": {"high": "Full house, kings over sevens"},
    },
    "net": {"1": 1200, "2": -2000, "3": 1300},
}


@pytest.fixture
def history(room: ReportRoom, a_past_day: dt.date, staff: dict[str, Any]) -> dict[str, Any]:
    table = room.table(91, schedule=room.limit_schedule(revised_at=at_local(a_past_day, 12)))
    ann, ben, cy, dee, eve = room.seat(table, ["Ann", "Ben", "Cy", "Dee", "Eve"])
    played = room.hand(table, [ben, cy, dee], at=at_local(a_past_day, 10))  # v1: $1 from Ben
    room.settle(played, [(cy, ben, 500), (dee, ben, 250), (dee, cy, 100)])
    # v2: $2.50
    void = room.misdeal(
        room.hand(table, [cy, dee, eve, ann, ben], at=at_local(a_past_day, 13), settled=False)
    )
    waived = room.hand(table, [dee, eve], at=at_local(a_past_day, 14), collect=False)  # v2: $1.50
    waive_fee(hand=waived, player=dee, amount_cents=150, reason="new player promotion", by=staff["manager"])
    return {"day": a_past_day, "played": played, "void": void, "waived": waived, "table": table}


def test_lines_show_players_fees_and_payments(history: dict[str, Any]) -> None:
    day = history["day"]
    report = build_hand_history(ReportFilters(date_from=day, date_to=day))
    assert report.total == 3
    played, void, waived = report.hands
    assert (played.table_number, played.hand_number, played.game, played.status) == (
        91,
        1,
        "Texas Hold'em",
        "settled",
    )
    assert (played.button_seat, played.button_player) == (2, "Ben")
    assert [(p.position, p.seat, p.player) for p in played.players] == [
        (1, 2, "Ben"),
        (2, 3, "Cy"),
        (3, 4, "Dee"),
    ]
    assert [p.fee_due_cents for p in played.players] == [rpt_fee(3), 0, 0]
    assert [p.fee_paid_cents for p in played.players] == [rpt_fee(3), 0, 0]
    assert (played.fees_due_cents, played.fees_paid_cents) == (rpt_fee(3), rpt_fee(3))
    assert played.rate == "$1 from the button"
    # Payments in posting order, and each player's net result from them.
    assert [(p.player, p.amount_cents) for p in played.payments] == [
        ("Cy", -500),
        ("Ben", 500),
        ("Dee", -250),
        ("Ben", 250),
        ("Dee", -100),
        ("Cy", 100),
    ]
    assert [p.result_cents for p in played.players] == [750, -400, -350]

    assert (void.status, void.void_reason) == ("void", "exposed card")
    assert (void.fees_due_cents, void.fees_paid_cents, void.fees_returned_cents) == (
        rpt_fee(5, revised=True),
        rpt_fee(5, revised=True),
        rpt_fee(5, revised=True),
    )
    assert (waived.fees_due_cents, waived.fees_paid_cents, waived.waived_cents) == (
        rpt_fee(2, revised=True),
        0,
        150,
    )


def test_the_engine_reading_column(history: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    model = hands_report.hand_result_model()
    if model is None:
        pytest.skip("the floor's hand-result model is not installed")
    model.objects.create(
        hand=history["played"],
        status="settled",
        revision=2,
        digest="0" * 64,
        submitted={},
        engine_input={},
        engine_result=POT_RESULT,
        postings=[],
        confirmed_at=history["played"].created_at,
    )
    day = history["day"]
    report = build_hand_history(ReportFilters(date_from=day, date_to=day))
    assert report.reading_available
    assert report.note == ""
    played, void, _ = report.hands
    assert played.reading_status == "settled (r2)"
    assert (
        played.reading
        == "pot 1 6500: seat 3 high 3300 (Full house, kings over sevens), seat 1 low 3200 (8-6-4-3-2)"
    )
    assert (void.reading_status, void.reading) == ("not recorded", "")

    # Without the floor's model the column says so and the payments still come from the ledger.
    monkeypatch.setattr(hands_report, "hand_result_model", lambda: None)
    report = build_hand_history(ReportFilters(date_from=day, date_to=day))
    assert (report.reading_available, report.note) == (False, READING_UNAVAILABLE)
    assert report.hands[0].reading_status == "unavailable"
    assert len(report.hands[0].payments) == 6


def test_player_dealer_readings_are_summarized() -> None:
    result = {"players": {"2": {"net": -1500, "fouled": True}, "1": {"net": 1500, "sweep": "dragon"}}}
    assert summarize_reading(result) == "seat 1 net 1500 sweep dragon; seat 2 net -1500 fouled"
    assert summarize_reading(None) == ""
    assert summarize_reading({"pots": "garbage"}) == ""


def test_pages_and_a_fixed_number_of_queries(room: ReportRoom, a_past_day: dt.date) -> None:
    table = room.table(92, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C", "D"])
    filters = ReportFilters(date_from=a_past_day, date_to=a_past_day)
    for minute in range(0, 60, 5):
        hand = room.hand(table, players[: 2 + minute % 3], at=at_local(a_past_day, 20, minute))
        room.settle(hand, [(players[1], players[0], 100)])

    def run(limit: int) -> tuple[Any, int]:
        with CaptureQueriesContext(connection) as captured:
            report = build_hand_history(filters, offset=0, limit=limit)
        return report, len(captured)

    small, few = run(2)
    large, many = run(12)
    assert few == many
    assert (small.total, len(small.hands), len(large.hands)) == (12, 2, 12)
    page = build_hand_history(filters, offset=10, limit=5)
    assert [h.hand_number for h in page.hands] == [11, 12]
    shift_filtered = build_hand_history(ReportFilters(date_from=a_past_day, date_to=a_past_day, shift="day"))
    assert shift_filtered.total == 0
