"""Hand history: each hand with its players, fees, the cards as entered, the engine's reading, the
pots or the payments in settlement order, the misdeal's code, the dealer and the ledger's postings;
a page at a time with a fixed number of queries."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from backoffice.reports.common import ReportFilters
from backoffice.reports.hands import build_hand_history, entered_cards
from backoffice.waivers import waive_fee
from handflow import services as hand_flow
from ledger.models import JournalTransaction
from ledger.shifts import room_zone
from poker.games import rules_for
from tables import services as floor_services
from tables.models import Game, Hand, HandResult, Player, Table
from tests.factories import ReportRoom, at_local, rpt_fee

pytestmark = pytest.mark.django_db


def _today() -> ReportFilters:
    day = timezone.localtime(timezone.now(), room_zone()).date()
    return ReportFilters(date_from=day, date_to=day)


def _only(hand: Hand) -> Any:
    report = build_hand_history(_today(), hand_id=hand.pk)
    assert report.total == 1
    return report.hands[0]


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


def test_lines_show_players_fees_and_the_ledgers_postings(history: dict[str, Any]) -> None:
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
    # Every entry of the hand's transactions in posting order, each transaction with its hash.
    settle = JournalTransaction.objects.get(idempotency_key=f"hand:{played.hand_id}:settle")
    fee = JournalTransaction.objects.get(idempotency_key=f"hand:{played.hand_id}:fees")
    assert [(e.transaction_id, e.account, e.amount_cents) for e in played.payments] == [
        (fee.pk, "chips of Ben", -rpt_fee(3)),
        (fee.pk, f"house collection {day}/day", rpt_fee(3)),
        (settle.pk, "chips of Cy", -500),
        (settle.pk, "chips of Ben", 500),
        (settle.pk, "chips of Dee", -250),
        (settle.pk, "chips of Ben", 250),
        (settle.pk, "chips of Dee", -100),
        (settle.pk, "chips of Cy", 100),
    ]
    assert {e.transaction_hash for e in played.payments if e.transaction_id == settle.pk} == {settle.hash}
    assert [p.result_cents for p in played.players] == [750, -400, -350]
    # No reading was recorded for these hands (they were posted straight to the ledger).
    assert (played.reading_status, played.reading, played.input_digest) == ("no reading recorded", "", "")

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


def test_a_holdem_showdown_with_its_cards_reading_pots_and_settlement(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
    users: dict[str, Any],
) -> None:
    table, players = table_with_players(3, stakes="limit-4-8")
    floor_services.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])
    hand = settle_hand(deal_hand(table, by=users["dealer"]), winners=(1, 2), by=users["dealer"])
    line = _only(hand)
    result = HandResult.objects.select_related("settlement").get(hand=hand)
    assert line.dealer == "dealer"
    assert line.board == "Ah Kh Qh Jh Th"
    # The cards as the dealer entered them, and the reading: the hand's name and its five cards.
    by_seat = {p.seat: p for p in line.players}
    assert by_seat[1].cards == " ".join(result.submitted["players"][0]["cards"])
    assert by_seat[3].cards == "folded"
    assert by_seat[1].reading == "Royal flush (Ah Kh Qh Jh Th)"
    assert by_seat[3].reading == ""
    # One pot, split high between seats 1 and 2, in cents; the nets are the engine's and the ledger's.
    (pot,) = line.pots
    assert sorted((a.seat, a.player, a.share, a.hand) for a in pot.awards) == [
        (1, players[0].name, "whole", "Royal flush"),
        (2, players[1].name, "whole", "Royal flush"),
    ]
    assert sum(a.amount_cents for a in pot.awards) == pot.amount_cents
    assert [p.engine_net_cents for p in line.players] == [p.result_cents for p in line.players]
    assert "with Royal flush" in line.reading
    assert "$" in line.reading
    # The record ties the hand to its input digest and to the settlement the ledger posted.
    assert (line.input_digest, line.settlement_id, line.settlement_hash) == (
        result.digest,
        result.settlement_id,
        result.settlement.hash,
    )
    assert {e.transaction_id for e in line.payments if e.kind == "pot_award"} == {result.settlement_id}
    assert "the hand's pot" in {e.account for e in line.payments}


def test_chinese_poker_set_hands_a_declared_sweep_and_capped_payments(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    buy_in_players: Callable[..., list[Player]],
    deal_hand: Callable[..., Hand],
) -> None:
    table, _ = table_with_players(
        seats=[1, 2], game="chinese-poker", stakes="points-5", schedule="CP1", amount_cents=50_000
    )
    buy_in_players(table, [3])  # the table's minimum: too little for all seat 3 owes
    hand = deal_hand(table)
    hand_flow.declare_sweep(hand=hand, seat_number=2, sweep="dragon", by=None)
    submitted = {
        "players": [
            {"seat": 1, "front": ["Jc", "Jd", "Js"], "middle": ["Ad", "As", "Ac", "9c", "7c"],
             "back": ["6h", "5h", "4h", "3h", "2h"]},
            {"seat": 2, "declare": "dragon",
             "cards": ["2c", "3d", "4d", "5s", "6c", "7d", "8h", "9s", "Tc", "Jh", "Qs", "Kc", "Ah"]},
            {"seat": 3, "front": ["2s", "3s", "4s"], "middle": ["8c", "8d", "Ts", "Td", "Kd"],
             "back": ["Qc", "Qd", "Qh", "9d", "9h"]},
        ]
    }  # fmt: skip
    hand_flow.submit_showdown(hand=hand, submitted=submitted, by=None)
    hand_flow.confirm_settlement(hand=hand, by=None)
    line = _only(hand)
    by_seat = {p.seat: p for p in line.players}
    assert by_seat[1].cards == "front Jc Jd Js / middle Ad As Ac 9c 7c / back 6h 5h 4h 3h 2h"
    assert by_seat[2].cards == "declared dragon: 2c 3d 4d 5s 6c 7d 8h 9s Tc Jh Qs Kc Ah"
    assert by_seat[2].sweep_declared == "dragon"
    assert by_seat[2].sweep_declared_at is not None
    assert by_seat[2].reading == "clean sweep: dragon (declared dragon, verified)"
    assert (
        by_seat[1].reading
        == "front Three of a kind, jacks / middle Three of a kind, aces / back Straight flush, six high"
    )
    # The payments in settlement order, with what was due and what the caps let move.
    assert [p.order for p in line.settlement] == list(range(1, len(line.settlement) + 1))
    assert any(p.capped for p in line.settlement)
    for payment in line.settlement:
        assert payment.amount_cents <= payment.due_cents
    moved = {p.seat: p.result_cents for p in line.players}
    for payment in line.settlement:
        moved[payment.from_seat] += payment.amount_cents
        moved[payment.to_seat] -= payment.amount_cents
    assert set(moved.values()) == {0}  # the ledger moved exactly the payments
    assert "(due $" in line.reading


def test_taiwanese_boards_agreed_and_each_boards_reading(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
) -> None:
    table, _ = table_with_players(2, game="taiwanese-poker", stakes="points-2", schedule="CP1")
    hand = hand_flow.start_hand(table=table, by=None, boards=2).hand
    submitted = {
        "boards": [["Ac", "Ad", "Kh", "3s", "2d"], ["8c", "8d", "7h", "6s", "Jd"]],
        "players": [
            {"seat": 1, "top": ["Qs"], "middle": ["As", "Kd"], "bottom": ["9c", "9d", "4s", "5s"]},
            {"seat": 2, "top": ["Js"], "middle": ["7s", "7d"], "bottom": ["Tc", "Td", "8s", "6c"]},
        ],
    }
    hand_flow.submit_showdown(hand=hand, submitted=submitted, by=None)
    hand_flow.confirm_settlement(hand=hand, by=None)
    line = _only(hand)
    assert line.boards_agreed == 2
    assert line.boards == ["Ac Ad Kh 3s 2d", "8c 8d 7h 6s Jd"]
    assert line.players[0].cards == "top Qs / middle As Kd / bottom 9c 9d 4s 5s"
    assert line.players[0].reading.startswith("board 1: top Pair of aces (")
    assert "; board 2: top " in line.players[0].reading
    assert line.settlement
    assert all(p.reason.startswith("board ") for p in line.settlement)


def test_a_surrender_is_shown(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
) -> None:
    """The engine writes a surrender ``surrendered``: the history says so (it once looked for
    ``surrender`` and showed nothing)."""
    table, _ = table_with_players(2, game="chinese-poker", stakes="points-5", schedule="CP1")
    line = _only(settle_hand(deal_hand(table)))  # everyone surrenders
    assert [p.reading for p in line.players] == ["surrendered", "surrendered"]
    assert [p.cards.split(":")[0] for p in line.players] == ["surrendered", "surrendered"]


def test_a_razz_pot_names_the_low_hand_that_won_it(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
) -> None:
    """A low-only game's whole pot is won by a low hand: the history names it (it once named only
    high hands, so nothing here)."""
    table, players = table_with_players(2, game="dealers-choice", stakes="limit-4-8", schedule="A")
    hand = hand_flow.start_hand(table=table, by=None, game=Game.objects.get(slug="razz")).hand
    submitted = {"players": [
        {"seat": 1, "cards": ["Ac", "2d", "3h", "4s", "5c", "Kd", "Kh"], "put_in": 1_000},
        {"seat": 2, "cards": ["6c", "7d", "8h", "9s", "Tc", "Qd", "Qh"], "put_in": 1_000},
    ]}  # fmt: skip
    hand_flow.submit_showdown(hand=hand, submitted=submitted, by=None)
    hand_flow.confirm_settlement(hand=hand, by=None)
    line = _only(hand)
    ((award,),) = [pot.awards for pot in line.pots]
    assert (award.seat, award.who, award.share, award.hand) == (
        1,
        f"seat 1 ({players[0].name})",
        "whole",
        "5-4-3-2-A",
    )
    assert line.pots[0].title == "Main pot"
    assert line.reading == f"main pot $20: seat 1 ({players[0].name}) whole $20 with 5-4-3-2-A"
    assert line.players[0].reading == "low 5-4-3-2-A (5c 4s 3h 2d Ac)"


def test_a_reading_the_engine_cant_read_back_shows_nothing(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
) -> None:
    table, _ = table_with_players(2, stakes="limit-4-8")
    hand = settle_hand(deal_hand(table))
    HandResult.objects.filter(hand=hand).update(engine_result={"pots": "garbage"})
    line = _only(hand)
    assert (line.reading, line.pots, line.returned, line.settlement) == ("", [], [], [])
    assert [p.reading for p in line.players] == ["", ""]
    assert [p.engine_net_cents for p in line.players] == [None, None]
    assert line.input_digest  # the rest of the record is still there


def test_a_misdeal_shows_its_code_and_words(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
) -> None:
    table, _ = table_with_players(3)
    hand = hand_flow.misdeal(
        hand=deal_hand(table), reason_code="two_exposed", reason="two cards flashed", by=None
    ).hand
    line = _only(hand)
    assert (line.status, line.misdeal_reason) == ("void", "two_exposed")
    assert line.void_reason == "two cards flashed"
    assert line.misdeal_label == "Two or more cards exposed by the dealer (Robert's Rules, misdeal 2b)"
    assert line.fees_returned_cents == line.fees_paid_cents


def test_entered_cards_by_the_games_rows() -> None:
    holdem, chinese, taiwanese = (rules_for(slug) for slug in ("holdem", "chinese-poker", "taiwanese-poker"))
    assert entered_cards({"seat": 1, "cards": ["Ah", "Kd"], "put_in": 400}, holdem) == "Ah Kd"
    assert entered_cards({"seat": 2, "put_in": 100, "folded": True}, holdem) == "folded"
    assert entered_cards({"seat": 3, "surrender": True, "cards": ["2c"]}, chinese) == "surrendered: 2c"
    assert (
        entered_cards({"seat": 4, "fouled": True, "front": ["Jc", "9c"]}, chinese)
        == "fouled by the house: front Jc 9c"
    )
    assert (
        entered_cards(
            {"seat": 1, "bottom": ["9c", "9d", "4s", "5s"], "top": ["Qs"], "middle": ["As", "Kd"]}, taiwanese
        )
        == "top Qs / middle As Kd / bottom 9c 9d 4s 5s"
    )
    assert entered_cards({"seat": 1, "cards": ["Ah"]}, None) == "Ah"  # a game the engine doesn't know


def test_pages_and_a_fixed_number_of_queries(room: ReportRoom, a_past_day: dt.date) -> None:
    table = room.table(92, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C", "D"])
    filters = ReportFilters(date_from=a_past_day, date_to=a_past_day)
    for minute in range(0, 60, 5):
        hand = room.hand(table, players[: 2 + minute % 3], at=at_local(a_past_day, 20, minute))
        room.settle(hand, [(players[1], players[0], 100)])
    dealer = get_user_model().objects.create_user(username="dee", password=None)
    Hand.objects.filter(table=table).update(dealer=dealer)

    def run(limit: int) -> tuple[Any, int]:
        with CaptureQueriesContext(connection) as captured:
            report = build_hand_history(filters, offset=0, limit=limit)
        return report, len(captured)

    small, few = run(2)
    large, many = run(12)
    assert few == many
    assert (small.total, len(small.hands), len(large.hands)) == (12, 2, 12)
    assert {h.dealer for h in large.hands} == {"dee"}
    page = build_hand_history(filters, offset=10, limit=5)
    assert [h.hand_number for h in page.hands] == [11, 12]
    shift_filtered = build_hand_history(ReportFilters(date_from=a_past_day, date_to=a_past_day, shift="day"))
    assert shift_filtered.total == 0
    assert Game.objects.filter(slug="holdem").exists()
