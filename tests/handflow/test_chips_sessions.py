"""The chip services' rules (:mod:`handflow.chips`): the chip rules per structure, sessions (one buy-in,
one short rebuy), retries, and the chips locked for the players dealt in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from handflow import services as hand_flow
from ledger.models import JournalTransaction
from tables import errors, services
from tables.chip_rules import chip_rules
from tables.models import (
    Player,
    Seating,
    Stakes,
)
from tests.handflow.helpers import MakeTable, SeatPlayers, buy, chips


class TestChipRules:
    @pytest.mark.parametrize(
        ("code", "chip", "expected"),
        [
            # (min, max, short min, to be dealt in)
            ("limit-4-8", 100, (8_000, None, 4_000, 100)),  # 10 big bets of $8
            ("limit-2-4-2-8", 100, (8_000, None, 4_000, 100)),  # the larger big bet: $8
            ("limit-1-3-1-6", 25, (6_000, None, 3_000, 25)),
            # No and pot limit: the buy-in range holds for rebuys too (RULINGS §6): no short rebuy.
            ("nl-100-500", 100, (10_000, 50_000, 10_000, 100)),
            ("pl-20-nomax", 100, (2_000, None, 2_000, 100)),
            ("points-5", 100, (10_000, None, 5_000, 4_500)),  # 20, 10 and 9 points
            ("points-25", 500, (50_000, None, 25_000, 22_500)),
        ],
    )
    def test_per_structure(self, house: None, code: str, chip: int, expected: tuple[Any, ...]) -> None:
        rules = chip_rules(stakes=Stakes.objects.get(code=code), chip_unit_cents=chip)
        got = (
            rules.minimum_cents,
            rules.maximum_cents,
            rules.short_minimum_cents,
            rules.to_be_dealt_in_cents,
        )
        assert got == expected

    def test_a_limit_table_with_a_stated_minimum(self, house: None) -> None:
        stakes = services.create_stakes(
            code="limit-4-8-min-50",
            structure="limit",
            small_bet_cents=400,
            big_bet_cents=800,
            buy_in_min_cents=5_000,
        )
        rules = chip_rules(stakes=stakes, chip_unit_cents=100)
        assert (rules.minimum_cents, rules.short_minimum_cents) == (5_000, 2_500)
        assert "stated" in rules.minimum_reason

    def test_whole_chips_range_and_rebuys(self, house: None) -> None:
        rules = chip_rules(stakes=Stakes.objects.get(code="nl-100-500"), chip_unit_cents=500)
        with pytest.raises(errors.BuyInRefused, match="whole number of \\$5 chips"):
            rules.check_buy_in(amount=10_100, chips_before=0)
        with pytest.raises(errors.BuyInRefused, match="minimum buy-in is \\$100"):
            rules.check_buy_in(amount=9_500, chips_before=0)
        with pytest.raises(errors.BuyInRefused, match="at most \\$100 more"):
            rules.check_buy_in(amount=20_000, chips_before=40_000)
        assert rules.classify_rebuy(amount=10_000, chips_before=40_000) is False  # a full rebuy, to the max
        # A $50 rebuy at a $100-$500 table was accepted as "the short rebuy": the posted range holds.
        refused = "buy-in range of \\$100-\\$500 no limit holds for rebuys"
        with pytest.raises(errors.BuyInRefused, match=refused):
            rules.classify_rebuy(amount=5_000, chips_before=0)
        limit = chip_rules(stakes=Stakes.objects.get(code="limit-4-8"), chip_unit_cents=100)
        assert limit.classify_rebuy(amount=4_000, chips_before=0) is True  # limit: the one short rebuy
        with pytest.raises(errors.BuyInRefused, match="at least \\$40"):
            limit.classify_rebuy(amount=3_900, chips_before=0)


class TestSessions:
    def test_buy_in_seats_a_walk_in_and_refuses_a_taken_seat(
        self, make_table: MakeTable, make_player: Callable[..., Player]
    ) -> None:
        table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
        ana, ben = make_player("Ana"), make_player("Ben")
        with pytest.raises(errors.NotSeated):
            buy(table, ana, 5_000)
        movement = buy(table, ana, 5_000, seat=3)
        assert movement.seating is not None
        assert movement.seating.seat.number == 3
        count = JournalTransaction.objects.count()
        with pytest.raises(errors.SeatTaken):
            buy(table, ben, 5_000, seat=3)
        with pytest.raises(errors.PlayerAlreadySeated):
            buy(table, ana, 5_000, seat=4)
        assert JournalTransaction.objects.count() == count
        assert chips(table, ana, ben) == [5_000, 0]

    def test_one_buy_in_and_one_short_rebuy_per_session(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
        (ana,) = seat_players(table, [1])
        with pytest.raises(errors.NoBuyIn):
            hand_flow.rebuy(table=table, player=ana, amount_cents=8_000, by=None, idempotency_key="r0")
        buy(table, ana, 8_000)
        with pytest.raises(errors.AlreadyBoughtIn):
            buy(table, ana, 8_000)
        first = hand_flow.rebuy(
            table=table, player=ana, amount_cents=4_000, by=None, idempotency_key="r1"
        ).movement
        assert first.is_short
        with pytest.raises(errors.ShortRebuyUsed):
            hand_flow.rebuy(table=table, player=ana, amount_cents=4_000, by=None, idempotency_key="r2")
        full = hand_flow.rebuy(
            table=table, player=ana, amount_cents=8_000, by=None, idempotency_key="r3"
        ).movement
        assert not full.is_short
        assert chips(table, ana) == [20_000]

    def test_no_limit_rebuys_within_the_posted_range_and_a_new_session(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
        (ana,) = seat_players(table, [1])
        buy(table, ana, 2_000)
        count = JournalTransaction.objects.count()
        with pytest.raises(errors.BuyInRefused, match="holds for rebuys"):
            hand_flow.rebuy(table=table, player=ana, amount_cents=1_000, by=None, idempotency_key="r1")
        assert JournalTransaction.objects.count() == count
        full = hand_flow.rebuy(
            table=table, player=ana, amount_cents=2_000, by=None, idempotency_key="r3"
        ).movement
        assert not full.is_short
        with pytest.raises(errors.BuyInRefused, match="at most"):
            hand_flow.rebuy(table=table, player=ana, amount_cents=7_000, by=None, idempotency_key="r4")
        hand_flow.rebuy(table=table, player=ana, amount_cents=2_000, by=None, idempotency_key="r4b")
        assert chips(table, ana) == [6_000]
        # A new session (the player leaves and sits down again) starts with a buy-in; the chips the
        # player left with count toward the maximum.
        hand_flow.cash_out(table=table, player=ana, by=None, idempotency_key="out")
        services.seat_player(table=table, seat_number=1, player=ana, by=None)
        with pytest.raises(errors.NoBuyIn):
            hand_flow.rebuy(table=table, player=ana, amount_cents=2_000, by=None, idempotency_key="r5")
        assert buy(table, ana, 10_000).amount_cents == 10_000

    def test_service_retries_and_key_reuse(self, make_table: MakeTable, seat_players: SeatPlayers) -> None:
        table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
        (ana,) = seat_players(table, [1])
        first = hand_flow.buy_in(table=table, player=ana, amount_cents=3_000, by=None, idempotency_key="same")
        again = hand_flow.buy_in(table=table, player=ana, amount_cents=3_000, by=None, idempotency_key="same")
        assert (again.movement.pk, again.replayed, first.replayed) == (first.movement.pk, True, False)
        with pytest.raises(errors.IdempotencyKeyReused):
            hand_flow.buy_in(table=table, player=ana, amount_cents=4_000, by=None, idempotency_key="same")
        out = hand_flow.cash_out(table=table, player=ana, by=None, idempotency_key="leave").movement
        assert (
            hand_flow.cash_out(table=table, player=ana, by=None, idempotency_key="leave").movement.pk
            == out.pk
        )
        assert chips(table, ana) == [0]
        assert not Seating.objects.active().filter(table=table, player=ana).exists()

    def test_chips_are_locked_for_players_dealt_in_only(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="holdem", stakes="nl-20-100", schedule="A")
        ana, ben, cat = seat_players(table, [1, 2, 3])
        buy(table, ana, 5_000)
        buy(table, ben, 5_000)
        hand = hand_flow.start_hand(table=table, by=None, sit_out_seat_numbers=[3]).hand
        assert [hp.player for hp in hand.players.all()] == [ana, ben]
        with pytest.raises(errors.ChipsLocked):
            hand_flow.rebuy(table=table, player=ana, amount_cents=2_000, by=None, idempotency_key="x1")
        with pytest.raises(errors.ChipsLocked):
            hand_flow.cash_out(table=table, player=ben, by=None, idempotency_key="x2")
        buy(table, cat, 5_000)  # not dealt in: may buy in during the hand
        hand_flow.misdeal(hand=hand, reason_code="two_boxed", by=None)
        hand_flow.rebuy(table=table, player=ana, amount_cents=2_000, by=None, idempotency_key="x3")
        assert chips(table, ana, ben, cat) == [7_000, 5_000, 5_000]
