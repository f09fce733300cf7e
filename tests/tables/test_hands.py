"""The floor's part of each hand (tables/services/hands.py): numbers, buttons and the players
dealt in, the game dealt, the statuses, a void, the pot's result and the kill."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from handflow import services as hand_flow
from tables import errors, services
from tables.choices import HandStatus
from tables.models import Hand
from tests.tables.floor_checks import BuyIn, Deal, MakeTable, Settle


def dealt(hand: Hand) -> list[tuple[int, int]]:
    """(position, seat number) of each player dealt in."""
    return [(hp.position, hp.seat.number) for hp in hand.players.select_related("seat").order_by("position")]


class TestHands:
    """The floor's part of each hand (buttons, players dealt in, kill), dealt the one way a hand is:
    :func:`handflow.services.start_hand`, which takes the fees first (the ``deal_hand`` fixture)."""

    def test_start_hand_numbers_and_deals_in_clockwise_from_the_button(
        self,
        make_table: MakeTable,
        buy_in_players: BuyIn,
        deal_hand: Deal,
        settle_hand: Settle,
        users: dict[str, Any],
    ) -> None:
        table = make_table()
        buy_in_players(table, [2, 5, 9])
        services.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])
        hand = deal_hand(table, by=users["dealer"])
        assert (hand.number, hand.status, hand.game.slug) == (1, HandStatus.DEALT, "holdem")
        assert hand.stakes == table.stakes
        assert hand.collection_schedule == table.collection_schedule
        assert hand.button_seat.number == 2
        assert (hand.created_by, hand.dealt_by) == (users["dealer"], users["dealer"])
        assert dealt(hand) == [(1, 2), (2, 5), (3, 9)]
        settle_hand(hand)
        hand2 = deal_hand(table)
        assert hand2.number == 2
        assert hand2.button_seat.number == 5
        assert dealt(hand2) == [(1, 5), (2, 9), (3, 2)]
        settle_hand(hand2)
        settle_hand(deal_hand(table))
        assert deal_hand(table).button_seat.number == 2  # wrapped

    def test_button_skips_a_player_who_sits_out(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal, settle_hand: Settle
    ) -> None:
        table = make_table()
        buy_in_players(table, [1, 2, 3])
        settle_hand(deal_hand(table))  # button 1
        hand = deal_hand(table, sit_out_seat_numbers=[2])
        assert hand.button_seat.number == 3
        assert dealt(hand) == [(1, 3), (2, 1)]

    def test_sitting_out_an_empty_seat_is_refused(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal
    ) -> None:
        table = make_table()
        buy_in_players(table, [1, 2])
        with pytest.raises(errors.FloorValidationError, match="Nobody sits in seat"):
            deal_hand(table, sit_out_seat_numbers=[4])
        assert not Hand.objects.exists()

    def test_not_enough_players(self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal) -> None:
        table = make_table()
        buy_in_players(table, [4])
        with pytest.raises(errors.NotEnoughPlayers):
            deal_hand(table)
        assert not Hand.objects.exists()

    def test_one_hand_at_a_time(self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal) -> None:
        table = make_table()
        buy_in_players(table, [1, 2])
        deal_hand(table)
        with pytest.raises(errors.HandInProgress):
            deal_hand(table)
        assert Hand.objects.count() == 1

    def test_closed_table_deals_no_hand(self, make_table: MakeTable, deal_hand: Deal) -> None:
        with pytest.raises(errors.TableClosed):
            deal_hand(make_table(open=False))
        assert not Hand.objects.exists()

    def test_chinese_poker_four_hands_fifth_rotates_in(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal, settle_hand: Settle
    ) -> None:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
        assert table.seat_count == 5
        buy_in_players(table, [1, 2, 3, 4, 5])
        seen = []
        for _ in range(3):
            hand = deal_hand(table)
            table.buttons.refresh_from_db()
            seen.append((dealt(hand), table.buttons.sitting_out_seat.number))
            settle_hand(hand)
        assert seen == [
            ([(1, 1), (2, 2), (3, 3), (4, 4)], 5),
            ([(1, 2), (2, 3), (3, 4), (4, 5)], 1),
            ([(1, 3), (2, 4), (3, 5), (4, 1)], 2),
        ]

    def test_chinese_poker_fifth_plays_when_one_sits_out(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal
    ) -> None:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
        buy_in_players(table, [1, 2, 3, 4, 5])
        hand = deal_hand(table, sit_out_seat_numbers=[3])
        assert dealt(hand) == [(1, 1), (2, 2), (3, 4), (4, 5)]

    def test_dealers_choice_records_the_game_picked(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal
    ) -> None:
        table = make_table(game="dealers-choice", stakes="limit-4-8")
        buy_in_players(table, [1, 2, 3])
        with pytest.raises(errors.FloorValidationError, match="dealer's choice"):
            deal_hand(table)
        with pytest.raises(errors.ConfigMismatch):
            deal_hand(table, game="chinese-poker")
        hand = deal_hand(table, game="razz")
        assert hand.game.slug == "razz"

    def test_fixed_game_table_refuses_another_game(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal
    ) -> None:
        table = make_table()
        buy_in_players(table, [1, 2])
        with pytest.raises(errors.ConfigMismatch, match="deals Texas Hold'em"):
            deal_hand(table, game="omaha")
        assert not Hand.objects.exists()

    def test_transitions(
        self,
        make_table: MakeTable,
        buy_in_players: BuyIn,
        deal_hand: Deal,
        settle_hand: Settle,
        users: dict[str, Any],
    ) -> None:
        table = make_table()
        buy_in_players(table, [1, 2])
        services.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])
        hand = deal_hand(table, by=users["dealer"])
        assert hand.status == HandStatus.DEALT
        assert hand.dealt_at is not None
        assert hand.dealt_by == users["dealer"]
        hand = settle_hand(hand, by=users["dealer"])  # all folded to the button
        assert hand.status == HandStatus.SETTLED
        assert hand.settled_at is not None
        assert hand.settled_by == users["dealer"]
        # settled is final, whatever asks.
        with pytest.raises(errors.IllegalTransition, match="final"):
            services.void_hand(hand=hand, reason_code="other", reason="x", by=None)
        for status in HandStatus.values:
            with pytest.raises(errors.IllegalTransition, match="final"):
                services.move_hand(hand, status, by=None, reason="x", save=False)
        with pytest.raises(errors.IllegalTransition, match="not a hand status"):
            services.move_hand(hand, "folded", by=None, save=False)
        hand.refresh_from_db()
        assert hand.status == HandStatus.SETTLED

    def test_void_needs_a_reason_and_restores_the_button(
        self,
        make_table: MakeTable,
        buy_in_players: BuyIn,
        deal_hand: Deal,
        settle_hand: Settle,
        users: dict[str, Any],
    ) -> None:
        table = make_table()
        buy_in_players(table, [1, 2, 3])
        settle_hand(deal_hand(table))  # button at 1
        hand = deal_hand(table)  # button at 2
        assert hand.button_seat.number == 2
        with pytest.raises(errors.FloorValidationError, match="misdeal's reason"):
            hand_flow.misdeal(hand=hand, reason_code="", by=None)
        with pytest.raises(errors.FloorValidationError, match="Say what happened"):
            hand_flow.misdeal(hand=hand, reason_code="other", reason="  ", by=None)
        with pytest.raises(errors.NotYourTable):  # not clocked in at this table
            hand_flow.misdeal(hand=hand, reason_code="two_exposed", by=users["dealer"])
        services.clock_in(table=table, dealer=users["dealer"], by=users["floor"])
        hand = hand_flow.misdeal(hand=hand, reason_code="two_exposed", by=users["dealer"]).hand
        assert (hand.status, hand.voided_by, hand.misdeal_reason, hand.void_reason) == (
            HandStatus.VOID,
            users["dealer"],
            "two_exposed",
            "Two or more cards exposed by the dealer (Robert's Rules, misdeal 2b)",
        )
        with pytest.raises(errors.IllegalTransition):
            services.void_hand(hand=hand, reason_code="other", reason="again", by=None)
        # The redeal has the same button (Robert's Rules) and the next number.
        redeal = deal_hand(table)
        assert (redeal.number, redeal.button_seat.number) == (3, 2)

    def test_kill_after_two_outright_wins(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal, settle_hand: Settle
    ) -> None:
        table = make_table(stakes="limit-4-8-half")
        buy_in_players(table, [1, 2, 3])
        for _ in range(2):
            settle_hand(deal_hand(table), winners=[3])  # the confirmation records the outright win
        table.buttons.refresh_from_db()
        assert (table.buttons.kill_seat.number, table.buttons.kill_multiplier_pct) == (3, 150)
        kill_hand = deal_hand(table)
        assert (kill_hand.kill_seat.number, kill_hand.kill_multiplier_pct) == (3, 150)
        kill_hand = settle_hand(kill_hand, winners=[1, 2])  # split pot: no outright winner
        assert kill_hand.outright_winner_seat is None
        assert kill_hand.result_recorded_at is not None  # recorded once, by the confirmation
        assert deal_hand(table).kill_seat is None

    def test_pot_result_of_a_seat_not_dealt_in_is_refused(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal, settle_hand: Settle
    ) -> None:
        # Chinese poker's confirmation records no pot (no kill at points): record_pot_result is open.
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
        buy_in_players(table, [1, 2, 3, 4, 5])
        hand = settle_hand(deal_hand(table))  # seat 5 rotates out
        dealt = {hp.seat.number: hp.seat for hp in hand.players.select_related("seat")}
        with pytest.raises(errors.FloorValidationError, match="Seat 5 was not dealt"), transaction.atomic():
            services.record_pot_result_locked(
                table=services.lock_table(table), hand=hand, outright_winner_seat_number=5, dealt=dealt
            )

    def test_no_kill_without_kill_stakes(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal, settle_hand: Settle
    ) -> None:
        table = make_table(stakes="limit-4-8")
        buy_in_players(table, [1, 2])
        for _ in range(3):
            settle_hand(deal_hand(table), winners=[1])
        assert deal_hand(table).kill_multiplier_pct == 100

    def test_kill_ends_when_the_player_leaves(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal, settle_hand: Settle
    ) -> None:
        table = make_table(stakes="limit-4-8-full")
        players = buy_in_players(table, [1, 2, 3])
        for _ in range(2):
            settle_hand(deal_hand(table), winners=[2])
        table.buttons.refresh_from_db()
        assert table.buttons.kill_seat.number == 2
        hand_flow.cash_out(table=table, player=players[1], by=None, idempotency_key="kill-leaves")
        table.buttons.refresh_from_db()
        assert table.buttons.kill_seat is None
        assert table.buttons.streak_wins == 0
