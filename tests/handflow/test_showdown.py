"""The showdown entry (:mod:`handflow.showdown`): its checks, Taiwanese poker's payments in the
engine's order, Chinese poker's card count and a fouled hand, lowball's sevens rule."""

from __future__ import annotations

from typing import Any

import pytest

from handflow import services as hand_flow
from ledger import services as ledger
from tables import errors
from tables.choices import HandStatus
from tables.models import (
    Hand,
    HandResult,
    Player,
    ReadingStatus,
    Table,
)
from tests.handflow.helpers import MakeTable, SeatPlayers, buy, chips, give, heads_up


class TestShowdownChecks:
    @pytest.fixture
    def dealt(self, make_table: MakeTable, seat_players: SeatPlayers) -> Hand:
        table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
        for player in seat_players(table, [1, 2]):
            buy(table, player, 5_000)
        return hand_flow.start_hand(table=table, by=None).hand

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            (lambda s: s | {"players": s["players"][:1]}, "seat(s) 2 were dealt in"),
            (lambda s: s | {"players": s["players"] + s["players"][:1]}, "seat 1 is entered twice"),
            (lambda s: s | {"boards": []}, "unknown field(s) boards"),
            (
                lambda s: s | {"players": [{**s["players"][0], "put_in": 4_901}, s["players"][1]]},
                "has $49 in play",
            ),
            (lambda s: s | {"players": [{**s["players"][0], "put_in": -5}, s["players"][1]]}, "seat 1"),
            (
                lambda s: s | {"players": [{**s["players"][0], "put_in": 1_653}, s["players"][1]]},
                "seat 1 put in $16.53, not a whole number of the table's $1 chips",
            ),
            (lambda s: s | {"players": [{**s["players"][0], "seat": True}, s["players"][1]]}, "seat number"),
            (lambda s: s | {"players": "everyone"}, "non-empty list"),
            (lambda s: s | {"board": ["Ah", "Kd", "7c", "7s", "9c"]}, "9c"),  # 9c twice: a misdeal
        ],
    )
    def test_refused_with_a_clear_message(self, dealt: Hand, change: Any, message: str) -> None:
        with pytest.raises(errors.InvalidShowdown) as caught:
            hand_flow.submit_showdown(hand=dealt, submitted=change(heads_up()), by=None)
        assert message in caught.value.message
        assert Hand.objects.get(pk=dealt.pk).status == HandStatus.DEALT
        assert not HandResult.objects.filter(hand=dealt).exists()

    def test_the_same_entry_twice_keeps_the_revision(self, dealt: Hand) -> None:
        first = hand_flow.submit_showdown(hand=dealt, submitted=heads_up(), by=None).reading
        again = hand_flow.submit_showdown(hand=dealt, submitted=heads_up(), by=None).reading
        assert (again.revision, first.revision) == (1, 1)
        assert Hand.objects.get(pk=dealt.pk).status == HandStatus.SHOWDOWN

    def test_chips_moved_around_the_hand_flow_are_caught(self, dealt: Hand) -> None:
        hand_flow.submit_showdown(hand=dealt, submitted=heads_up(4_900), by=None)
        player = dealt.players.get(position=2).player
        ledger.cash_out(table=dealt.table, player=player, amount=200, user=None, idempotency_key="around")
        with pytest.raises(errors.FloorConflict, match="changed since the reading") as caught:
            hand_flow.confirm_settlement(hand=dealt, by=None)
        assert caught.value.code == "chips_changed"
        assert HandResult.objects.get(hand=dealt).status == ReadingStatus.PROPOSED


def test_taiwanese_poker_payments_in_the_engines_order(
    make_table: MakeTable, seat_players: SeatPlayers
) -> None:
    # Taiwanese poker follows Chinese poker's chip rules (20-point buy-in); option 1: $1 each.
    table = make_table(game="taiwanese-poker", stakes="points-5", schedule="CP1")
    players = seat_players(table, [1, 2, 3])
    for player in players:
        buy(table, player, 10_000)
    hand = hand_flow.start_hand(table=table, by=None).hand
    reading = hand_flow.submit_showdown(
        hand=hand,
        submitted={"boards": [["Ac", "Ad", "Kh", "3s", "2d"]], "players": [
            {"seat": 1, "top": ["Qs"], "middle": ["As", "Kd"], "bottom": ["9c", "9d", "4s", "5s"]},
            {"seat": 2, "top": ["Jh"], "middle": ["7c", "7d"], "bottom": ["Ks", "Kc", "6h", "8h"]},
            {"seat": 3, "top": ["2c"], "middle": ["3c", "4c"], "bottom": ["Th", "Jc", "Qc", "5d"]}]},
        by=None,
    ).reading  # fmt: skip
    assert reading.engine_input["point"] == 500
    assert [p["stack"] for p in reading.engine_input["players"]] == [9_900, 9_900, 9_900]
    order = [(p["from_seat"], p["to_seat"], p["amount"], p["reason"]) for p in reading.postings["payments"]]
    assert order == [
        (p["from"], p["to"], p["amount"], p["reason"]) for p in reading.engine_result["payments"]
    ]
    assert [reason for *_, reason in order] == ["board 1 top"] * 2 + ["board 1 middle"] * 2 + [
        "board 1 bottom"
    ] * 2
    hand_flow.confirm_settlement(hand=hand, by=None)
    assert chips(table, *players) == [9_900 + 1_500, 9_900 + 1_500, 9_900 - 3_000]


class TestChinesePokerCardCount:
    """A hand entered with 12 cards was read as a foul and charged the penalty. A wrong count is
    a data-entry refusal unless the dealer marks the hand fouled on purpose (004 rule 8)."""

    SET = {
        1: {"front": ["Qs", "Qd", "2c"], "middle": ["9s", "9d", "8c", "8d", "3h"],
            "back": ["As", "Ks", "Js", "7s", "4s"]},
        2: {"front": ["5c", "4d", "2d"], "middle": ["Tc", "Td", "6h", "6c", "3c"],
            "back": ["Ah", "Ad", "Kh", "Kd", "7h"]},
    }  # fmt: skip

    @pytest.fixture
    def dealt(self, make_table: MakeTable, seat_players: SeatPlayers) -> tuple[Table, Hand, list[Player]]:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
        players = seat_players(table, [1, 2])
        for player in players:
            buy(table, player, 10_000)
        return table, hand_flow.start_hand(table=table, by=None).hand, players

    def test_twelve_cards_are_refused_and_nothing_is_read(
        self, dealt: tuple[Table, Hand, list[Player]]
    ) -> None:
        table, hand, players = dealt
        short = {**self.SET[2], "middle": self.SET[2]["middle"][:4]}  # 12 cards: a card left off
        refused = r"seat 2: front 3, middle 4, back 5 cards.*mark the hand fouled"
        with pytest.raises(errors.InvalidShowdown, match=refused):
            hand_flow.submit_showdown(
                hand=hand, submitted={"players": [{"seat": 1, **self.SET[1]}, {"seat": 2, **short}]}, by=None
            )
        assert not HandResult.objects.filter(hand=hand).exists()
        assert chips(table, *players) == [9_900, 9_900]

    def test_the_dealer_fouls_the_hand_on_purpose(self, dealt: tuple[Table, Hand, list[Player]]) -> None:
        table, hand, players = dealt
        short = {**self.SET[2], "middle": self.SET[2]["middle"][:4], "fouled": True}
        reading = hand_flow.submit_showdown(
            hand=hand, submitted={"players": [{"seat": 1, **self.SET[1]}, {"seat": 2, **short}]}, by=None
        ).reading
        assert reading.engine_result["players"]["2"]["fouled"] is True
        hand_flow.confirm_settlement(hand=hand, by=None)
        # A fouled hand pays 3 points ($5 each) to the set hand: $15.
        assert chips(table, *players) == [9_900 + 1_500, 9_900 - 1_500]


def test_lowball_sevens_rule_through_the_flow(make_table: MakeTable, seat_players: SeatPlayers) -> None:
    """004 lowball rule 2: seat 1 checked a 7-5-4-3-2 after the draw and seat 2 bet $8, which
    seat 1 called. Seat 1 has the best hand but can't win what was bet after the draw: the $8
    each goes back; seat 1 wins the $4 each put in before the draw."""
    table = make_table(game="lowball", stakes="limit-4-8", schedule="A")
    ana, ben = seat_players(table, [1, 2])
    give(table, ana, 10_000)
    give(table, ben, 10_000)
    hand = hand_flow.start_hand(table=table, by=None).hand
    reading = hand_flow.submit_showdown(
        hand=hand,
        submitted={"players": [
            {"seat": 1, "cards": ["7c", "5d", "4h", "3s", "2c"], "put_in": 1_200, "put_in_after_draw": 800,
             "checked_seven": True},
            {"seat": 2, "cards": ["8c", "6d", "4s", "3h", "2d"], "put_in": 1_200, "put_in_after_draw": 800},
        ]},
        by=None,
    ).reading  # fmt: skip
    assert reading.postings["net"] == {"1": 400, "2": -400}
    assert {(r["seat"], r["amount"]) for r in reading.postings["returned"]} == {(1, 800), (2, 800)}
    hand_flow.confirm_settlement(hand=hand, by=None)
    assert chips(table, ana, ben) == [10_000 - 100 + 400, 10_000 - 400]
