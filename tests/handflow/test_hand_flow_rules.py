"""The rules of the hand's money, service by service: chip rules per structure, sessions, who is
dealt in and what they pay, the schedule in force, the showdown's checks, retries."""

from __future__ import annotations

import datetime
import itertools
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from django.utils import timezone

from handflow import deal
from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger import services as ledger
from ledger.models import JournalTransaction
from poker.games import GAME_RULES
from tables import errors, services
from tables.chip_rules import chip_rules
from tables.choices import HandStatus, KillType
from tables.models import (
    ChipMovement,
    CollectionSchedule,
    Game,
    Hand,
    HandResult,
    Player,
    ReadingStatus,
    Seating,
    Stakes,
    Table,
)
from tables.selectors import rate_for_hand

MakeTable = Callable[..., Table]
SeatPlayers = Callable[..., list[Player]]
_keys = (f"rules-{n}" for n in itertools.count())


def buy(table: Table, player: Player, cents: int, seat: int | None = None) -> ChipMovement:
    return hand_flow.buy_in(
        table=table, player=player, amount_cents=cents, seat_number=seat, by=None, idempotency_key=next(_keys)
    ).movement


def chips(table: Table, *players: Player) -> list[int]:
    return [ledger_selectors.player_chips(table=table, player=p) for p in players]


def give(table: Table, player: Player, cents: int) -> None:
    """Chips straight from the ledger (no table rules): to set up odd stacks."""
    ledger.buy_in(table=table, player=player, amount=cents, user=None, idempotency_key=next(_keys))


def heads_up(put_in: int = 1_000) -> dict[str, Any]:
    return {
        "board": ["Ah", "Kd", "7c", "7s", "2h"],
        "players": [
            {"seat": 1, "cards": ["9c", "8c"], "put_in": put_in},
            {"seat": 2, "cards": ["Qc", "Jd"], "put_in": put_in},
        ],
    }


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


class TestDealingIn:
    def test_the_button_skips_a_player_who_cannot_pay(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        # $4-$8, schedule A: the button pays $1 and needs $1 more in play; others need $1.
        table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
        ana, ben, cat = seat_players(table, [1, 2, 3])
        give(table, ana, 100)  # would be the first button, but can't pay and keep a chip
        give(table, ben, 10_000)
        give(table, cat, 10_000)
        preview = hand_flow.preview_fees(table=table)
        assert preview.button == 2
        assert [(d.seat, d.fee_cents) for d in preview.dealt] == [(2, 100), (3, 0)]
        assert [(o.seat, o.reason) for o in preview.left_out] == [(1, "cannot_pay")]
        hand = hand_flow.start_hand(table=table, by=None).hand
        assert (hand.button_seat.number, [hp.seat.number for hp in hand.players.all()]) == (2, [2, 3])
        assert chips(table, ana, ben, cat) == [100, 9_900, 10_000]
        hand_flow.submit_showdown(
            hand=hand,
            submitted={
                "board": heads_up()["board"],
                "players": [
                    {"seat": 2, "cards": ["9c", "8c"], "put_in": 400},
                    {"seat": 3, "cards": ["Qc", "Jd"], "put_in": 400},
                ],
            },
            by=None,
        )
        hand_flow.confirm_settlement(hand=hand, by=None)
        # Ana could play a hand without the button ($1 in play), but the button comes to her next:
        # she is left out again and the button moves on to seat 3.
        assert hand_flow.preview_fees(table=table).button == 3
        give(table, ana, 100)
        nxt = hand_flow.start_hand(table=table, by=None).hand
        assert (nxt.button_seat.number, [hp.seat.number for hp in nxt.players.all()]) == (3, [3, 1, 2])

    def test_the_fee_band_follows_the_players_dealt_in(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        # Schedule A, $4-$8: $1 for 1-4 players, $2 for 5-6. Five seated, one can't play: $1.
        table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
        players = seat_players(table, [1, 2, 3, 4, 5])
        for player in players[:4]:
            give(table, player, 10_000)
        plan = hand_flow.preview_fees(table=table)
        assert (len(plan.dealt), plan.total_fees_cents) == (4, 100)
        give(table, players[4], 10_000)
        assert hand_flow.preview_fees(table=table).total_fees_cents == 200

    def test_who_can_pay_is_decided_at_the_band_they_are_dealt_at(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        """Five seated on schedule A ($4-$8: $1 for 1-4 players, $2 for 5-6; the button pays).
        Seat 5 has $0 and seat 1, the next button, has $2: at five players both are short, but
        once seat 5 is out four are dealt at $1, which seat 1 can pay and keep a chip. (Leaving
        both out dealt three, and a player who could pay lost the hand.)"""
        table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
        players = seat_players(table, [1, 2, 3, 4, 5])
        give(table, players[0], 200)
        for player in players[1:4]:
            give(table, player, 10_000)
        plan = hand_flow.preview_fees(table=table)
        assert [(d.seat, d.fee_cents) for d in plan.dealt] == [(1, 100), (2, 0), (3, 0), (4, 0)]
        assert [(o.seat, o.reason) for o in plan.left_out] == [(5, "cannot_pay")]
        hand = hand_flow.start_hand(table=table, by=None, expected_fees=hand_flow.fees_as_shown(plan)).hand
        assert [hp.seat.number for hp in hand.players.order_by("position")] == [1, 2, 3, 4]
        assert chips(table, *players) == [100, 10_000, 10_000, 10_000, 0]

    def test_the_fee_taken_is_the_fee_the_dealer_confirmed(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        """The start page showed $1 each; a version taking effect before the tap made it $2 for
        the button: nothing is taken, the dealer is told the new fees and confirms again."""
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
        players = seat_players(table, [1, 2, 3])
        for player in players:
            buy(table, player, 10_000)
        shown = hand_flow.fees_as_shown(hand_flow.preview_fees(table=table))
        assert shown == {1: 100, 2: 100, 3: 100}
        services.revise_schedule(
            schedule=CollectionSchedule.objects.get(code="CP1"),
            rates=[{"structure": "points", "point_min_cents": 100, "point_max_cents": 10_000,
                    "players_min": 1, "players_max": 10, "payer": "button_and_others",
                    "fee_cents": 200, "others_fee_cents": 100}],
            effective_from=timezone.now() + datetime.timedelta(seconds=1),
            by=None,
            reason="option 2",
        )  # fmt: skip
        time.sleep(1.1)
        with pytest.raises(errors.FeesChanged, match=r"now seat 1 \$2, seat 2 \$1, seat 3 \$1") as caught:
            hand_flow.start_hand(table=table, by=None, expected_fees=shown)
        assert (caught.value.code, caught.value.field) == ("fees_changed", "expected_fees")
        assert not Hand.objects.filter(table=table).exists()
        assert chips(table, *players) == [10_000] * 3
        shown = hand_flow.fees_as_shown(hand_flow.preview_fees(table=table))
        hand = hand_flow.start_hand(table=table, by=None, expected_fees=shown).hand
        assert [hp.fee_cents for hp in hand.players.order_by("position")] == [200, 100, 100]
        assert chips(table, *players) == [9_800, 9_900, 9_900]

    def test_a_band_that_charges_nothing_is_recorded_with_the_hand(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        services.create_schedule(
            code="FREE",
            name="Promotion: no fee",
            rates=[{"structure": "points", "point_min_cents": 100, "point_max_cents": 10_000,
                    "players_min": 1, "players_max": 10, "payer": "each_player", "fee_cents": 0}],
            by=None,
        )  # fmt: skip
        table = make_table(game="chinese-poker", stakes="points-5", schedule="FREE")
        for player in seat_players(table, [1, 2]):
            buy(table, player, 10_000)
        hand = hand_flow.start_hand(table=table, by=None, expected_fees={1: 0, 2: 0}).hand
        hand.refresh_from_db()
        assert hand.status == HandStatus.DEALT
        assert "schedule FREE version 1: no fee due" in hand.no_fee_reason
        assert not JournalTransaction.objects.filter(hand=hand, kind="fee").exists()

    def test_not_enough_players_says_why(self, make_table: MakeTable, seat_players: SeatPlayers) -> None:
        table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
        ana, _ben = seat_players(table, [1, 2])
        give(table, ana, 10_000)
        with pytest.raises(errors.NotEnoughPlayers, match="seat 2: has \\$0; needs \\$1"):
            hand_flow.start_hand(table=table, by=None)
        assert not Hand.objects.filter(table=table).exists()

    def test_chinese_poker_deals_four_and_the_fifth_rotates_out(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
        players = seat_players(table, [1, 2, 3, 4, 5])
        for player in players:
            buy(table, player, 10_000)
        plan = hand_flow.preview_fees(table=table)
        assert [(d.seat, d.fee_cents) for d in plan.dealt] == [(1, 100), (2, 100), (3, 100), (4, 100)]
        assert [(o.seat, o.reason) for o in plan.left_out] == [(5, "rotates_out")]
        hand = hand_flow.start_hand(table=table, by=None).hand
        assert chips(table, *players) == [9_900, 9_900, 9_900, 9_900, 10_000]
        hand_flow.misdeal(hand=hand, reason_code="wrong_count", by=None)
        assert chips(table, *players) == [10_000] * 5

    def test_no_collection_rate(self, make_table: MakeTable, seat_players: SeatPlayers) -> None:
        services.create_schedule(
            code="CP-HEADSUP",
            name="Heads-up only",
            rates=[{"structure": "points", "point_min_cents": 100, "point_max_cents": 10_000,
                    "players_min": 1, "players_max": 2, "payer": "each_player", "fee_cents": 100}],
            by=None,
        )  # fmt: skip
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP-HEADSUP")
        for player in seat_players(table, [1, 2, 3]):
            buy(table, player, 10_000)
        with pytest.raises(errors.NoCollectionRate, match="no rate for \\$5 a point with 3 players"):
            hand_flow.start_hand(table=table, by=None)

    def test_the_schedule_in_force_when_the_hand_starts_decides_its_fee(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
        players = seat_players(table, [1, 2, 3])
        for player in players:
            buy(table, player, 10_000)
        hand = hand_flow.start_hand(table=table, by=None).hand
        services.revise_schedule(
            schedule=CollectionSchedule.objects.get(code="CP2"),
            rates=[{"structure": "points", "point_min_cents": 100, "point_max_cents": 10_000,
                    "players_min": 1, "players_max": 10, "payer": "button_and_others",
                    "fee_cents": 500, "others_fee_cents": 300}],
            effective_from=timezone.now() + datetime.timedelta(seconds=1),
            by=None,
            reason="new fees",
        )  # fmt: skip
        # The hand in progress keeps the fees it paid; a preview now still shows the old rate.
        assert [hp.fee_cents for hp in hand.players.order_by("position")] == [200, 100, 100]
        assert hand_flow.preview_fees(table=table).total_fees_cents == 400
        hand_flow.misdeal(hand=hand, reason_code="other", reason="redeal", by=None)
        time.sleep(1.1)
        redeal = hand_flow.start_hand(table=table, by=None).hand
        assert [hp.fee_cents for hp in redeal.players.order_by("position")] == [500, 300, 300]
        assert chips(table, *players) == [9_500, 9_700, 9_700]
        # The fees collected are those of tables.selectors.rate_for_hand, for both hands.
        for started, fees in ((hand, [200, 100, 100]), (redeal, [500, 300, 300])):
            rate = rate_for_hand(started)
            assert rate is not None
            assert rate.fees_by_position(3) == fees

    def test_a_hand_pays_the_rate_in_force_at_its_recorded_start(
        self, make_table: MakeTable, seat_players: SeatPlayers, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The hand's start is the moment its plan read the rate: a version that takes effect after
        that moment, even one already in force when the row is written, is the next hand's, and
        the fees collected are always those of ``rate_for_hand`` (the rate at ``created_at``)."""
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
        ana, ben, cat = seat_players(table, [1, 2, 3])
        buy(table, ana, 10_000)
        buy(table, ben, 20_000)
        buy(table, cat, 10_000)
        services.revise_schedule(
            schedule=CollectionSchedule.objects.get(code="CP2"),
            rates=[{"structure": "points", "point_min_cents": 100, "point_max_cents": 10_000,
                    "players_min": 1, "players_max": 10, "payer": "button_and_others",
                    "fee_cents": 6_000, "others_fee_cents": 100}],
            effective_from=timezone.now() + datetime.timedelta(seconds=1),
            by=None,
            reason="a $60 button fee",
        )  # fmt: skip
        time.sleep(1.1)
        # The flow's clock lags behind the new version: the hand starts under the old rate.
        lagging = timezone.now() - datetime.timedelta(seconds=5)
        with monkeypatch.context() as patched:
            # The deal reads its clock in handflow.deal (the module that defines start_hand).
            patched.setattr(deal, "timezone", SimpleNamespace(now=lambda: lagging))
            hand = hand_flow.start_hand(table=table, by=None).hand
        assert hand.created_at == lagging
        old = rate_for_hand(hand)
        assert old is not None
        assert old.fees_by_position(3)[0] == 200  # $2 from Ana, the button
        assert [hp.fee_cents for hp in hand.players.order_by("position")] == old.fees_by_position(3)
        assert sum(chips(table, ana, ben, cat)) == 40_000 - sum(old.fees_by_position(3))
        hand_flow.misdeal(hand=hand, reason_code="other", reason="redeal", by=None)
        # Now: the $60 button fee. Ana can't pay it and keep 9 points: the button goes to Ben,
        # and Ana sits the hand out.
        redeal = hand_flow.start_hand(table=table, by=None).hand
        assert (redeal.button_seat.number, [hp.seat.number for hp in redeal.players.all()]) == (2, [2, 3])
        assert [hp.fee_cents for hp in redeal.players.order_by("position")] == [6_000, 100]
        assert chips(table, ana, ben, cat) == [10_000, 14_000, 9_900]
        new = rate_for_hand(redeal)
        assert new is not None
        assert new.fees_by_position(2) == [6_000, 100]


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


class TestLowballJoker:
    """004 lowball rule 1: lowball is played with the joker, but none is added when lowball is
    played in dealer's choice. A JK-2-3-4-6 won a $16 pot at dealer's choice."""

    SHOWDOWN = {
        "players": [
            {"seat": 1, "cards": ["JK", "2c", "3d", "4h", "6s"], "put_in": 800},
            {"seat": 2, "cards": ["As", "2d", "3h", "5c", "7d"], "put_in": 800},
        ]
    }

    def test_dealers_choice_lowball_has_no_joker(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="dealers-choice", stakes="limit-4-8", schedule="A")
        for player in seat_players(table, [1, 2]):
            give(table, player, 10_000)
        hand = hand_flow.start_hand(table=table, by=None, game=Game.objects.get(slug="lowball")).hand
        assert Hand.objects.get(pk=hand.pk).joker is False
        with pytest.raises(errors.InvalidShowdown, match="joker JK is not in the deck"):
            hand_flow.submit_showdown(hand=hand, submitted=self.SHOWDOWN, by=None)
        assert not HandResult.objects.filter(hand=hand).exists()

    def test_lowball_as_the_tables_game_has_the_joker(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table(game="lowball", stakes="limit-4-8", schedule="A")
        for player in seat_players(table, [1, 2]):
            give(table, player, 10_000)
        hand = hand_flow.start_hand(table=table, by=None).hand
        assert Hand.objects.get(pk=hand.pk).joker is True
        reading = hand_flow.submit_showdown(hand=hand, submitted=self.SHOWDOWN, by=None).reading
        assert reading.postings["net"] == {"1": 800, "2": -800}  # the joker plays as the 5: 6-4-3-2-A


@pytest.mark.parametrize("at_dealers_choice", [False, True])
def test_only_lowball_dealt_as_the_tables_game_has_the_joker(at_dealers_choice: bool) -> None:
    table = Table(
        game=Game(
            slug="dealers-choice" if at_dealers_choice else "lowball", is_dealers_choice=at_dealers_choice
        )
    )
    for slug, rules in GAME_RULES.items():
        if rules.is_pot_game:
            has_joker = deal.joker_in_deck(table=table, game=Game(slug=slug))
            assert has_joker is (slug == "lowball" and not at_dealers_choice), slug
    assert deal.joker_in_deck(table=table, game=Game(slug="a game the engine doesn't know")) is False


@pytest.mark.parametrize(("pct", "blind"), [(150, 600), (200, 800), (100, None), (175, None)])
def test_the_kill_blind_a_hand_posted(pct: int, blind: int | None) -> None:
    """A kill hand's blind from its recorded percent: x1.5 (half kill) or x2 (full kill) the big
    blind, up to a whole chip; a percent no kill has is no kill blind."""
    hand = Hand(
        kill_seat_id=1,
        kill_multiplier_pct=pct,
        stakes=Stakes(small_bet_cents=400),
        table=Table(chip_unit_cents=100),
    )
    assert deal.hand_kill_blind(hand) == blind
    assert KillType.HALF.multiplier_pct == 150
    assert KillType.FULL.multiplier_pct == 200


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
