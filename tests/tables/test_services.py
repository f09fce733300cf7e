"""Floor services: tables, seating, hands and buttons, configuration and schedule versions."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.utils import timezone

from handflow import services as hand_flow
from tables import errors, services
from tables.models import (
    CollectionSchedule,
    ConfigAction,
    ConfigChange,
    Hand,
    HandStatus,
    Player,
    Seating,
    Stakes,
    Table,
    TableStatus,
)
from tables.selectors import rate_for, rate_for_hand, table_rates

MakeTable = Callable[..., Table]
SeatPlayers = Callable[..., list[Player]]
BuyIn = Callable[..., list[Player]]
Deal = Callable[..., Hand]
Settle = Callable[..., Hand]


def dealt(hand: Hand) -> list[tuple[int, int]]:
    """(position, seat number) of each player dealt in."""
    return [(hp.position, hp.seat.number) for hp in hand.players.select_related("seat").order_by("position")]


def history_of(obj: Any) -> Any:
    return ConfigChange.objects.filter(
        content_type=ContentType.objects.get_for_model(obj), object_id=str(obj.pk)
    )


def snapshot_floor() -> tuple[Any, ...]:
    """Counts and states that a refused call must leave exactly as they were."""
    return (
        Seating.objects.count(),
        Seating.objects.active().count(),
        Hand.objects.count(),
        list(Hand.objects.values_list("status", flat=True).order_by("pk")),
        list(Table.objects.values_list("status", "stakes_id", "collection_schedule_id").order_by("pk")),
        ConfigChange.objects.count(),
    )


# --- Tables ----------------------------------------------------------------------------------


class TestTables:
    def test_create_table_makes_seats_and_history(self, make_table: MakeTable) -> None:
        table = make_table(open=False)
        assert table.status == TableStatus.CLOSED
        assert list(table.seats.values_list("number", flat=True)) == list(range(1, 11))
        change = history_of(table).filter(action=ConfigAction.CREATE).get()
        assert change.after["stakes_id"] == table.stakes_id

    def test_open_and_close(self, make_table: MakeTable, floor_user: Any) -> None:
        table = make_table(open=False)
        table = services.open_table(table=table, by=floor_user, reason="evening")
        assert table.status == TableStatus.OPEN
        assert table.opened_at is not None
        with pytest.raises(errors.TableAlreadyInState):
            services.open_table(table=table, by=floor_user)
        table = services.close_table(table=table, by=floor_user)
        assert table.status == TableStatus.CLOSED
        actions = list(history_of(table).values_list("action", "by_username"))
        assert (ConfigAction.OPEN, "floor") in actions
        assert (ConfigAction.CLOSE, "floor") in actions

    def test_close_refused_while_a_hand_is_in_progress(
        self,
        make_table: MakeTable,
        buy_in_players: BuyIn,
        deal_hand: Deal,
        settle_hand: Settle,
        cash_out_everyone: Callable[..., None],
    ) -> None:
        table = make_table()
        buy_in_players(table, [1, 2])
        hand = deal_hand(table)
        before = snapshot_floor()
        with pytest.raises(errors.HandInProgress, match="hand 1 is dealt"):
            services.close_table(table=table, by=None)
        assert snapshot_floor() == before
        settle_hand(hand)
        cash_out_everyone(table)
        services.close_table(table=table, by=None)

    def test_close_resets_buttons_once_everyone_has_left(
        self,
        make_table: MakeTable,
        buy_in_players: BuyIn,
        deal_hand: Deal,
        settle_hand: Settle,
        cash_out_everyone: Callable[..., None],
    ) -> None:
        table = make_table()
        buy_in_players(table, [1, 2, 3])
        settle_hand(deal_hand(table))
        cash_out_everyone(table)
        services.close_table(table=table, by=None)
        assert not Seating.objects.active().filter(table=table).exists()
        table.buttons.refresh_from_db()
        assert table.buttons.button_seat is None

    def test_points_stakes_on_a_holdem_table_is_refused(self, make_table: MakeTable) -> None:
        before = Table.objects.count()
        with pytest.raises(errors.ConfigMismatch, match="points") as caught:
            make_table(game="holdem", stakes="points-5", schedule="CP1")
        assert caught.value.field == "stakes"
        assert Table.objects.count() == before

    def test_limit_stakes_on_chinese_poker_is_refused(self, make_table: MakeTable) -> None:
        with pytest.raises(errors.ConfigMismatch, match="played for points"):
            make_table(game="chinese-poker", stakes="limit-4-8", schedule="A")

    @pytest.mark.parametrize("game", ["chinese-poker", "taiwanese-poker"])
    def test_a_point_must_be_whole_chips(self, make_table: MakeTable, game: str) -> None:
        before = Table.objects.count()
        # $2 a point with $5 chips: no settlement of an odd number of points could be paid.
        with pytest.raises(errors.ConfigMismatch, match=r"a point \(\$2\) must be a whole number") as caught:
            make_table(game=game, stakes="points-2", schedule="CP1", chip_unit_cents=500)
        assert caught.value.field == "chip_unit_cents"
        assert Table.objects.count() == before
        # $10 = 2 chips; the fees must be whole $5 chips too (tests/tables/test_rates_whole_chips.py).
        five = services.create_schedule(
            code=f"CP5-{game}", name="$5 each", rates=[{**_cp_rate(), "fee_cents": 500}], by=None
        )
        table = make_table(game=game, stakes="points-10", schedule=five.code, chip_unit_cents=500)
        with pytest.raises(
            errors.ConfigMismatch, match=r"point \(\$10\) must be a whole number of the table's chips"
        ):
            services.configure_table(table=table, by=None, reason="new chips", chip_unit_cents=300)
        table.refresh_from_db()
        assert table.chip_unit_cents == 500

    def test_too_many_seats_for_the_game(self, make_table: MakeTable) -> None:
        with pytest.raises(errors.ConfigMismatch, match="2 to 8 seats") as caught:
            make_table(game="stud", stakes="limit-4-8", seat_count=10)
        assert caught.value.field == "seat_count"

    def test_stakes_without_a_rate_in_the_schedule(self, make_table: MakeTable) -> None:
        # $1-$3/$1-$6 is a posted betting limit but schedule A prints no rate for it.
        with pytest.raises(errors.ConfigMismatch, match="No collection rate"):
            make_table(stakes="limit-1-3-1-6", schedule="A")

    def test_change_stakes_with_reason_is_recorded(self, make_table: MakeTable, floor_user: Any) -> None:
        table = make_table()
        new = Stakes.objects.get(code="limit-6-12")
        services.configure_table(table=table, stakes=new, by=floor_user, reason="busy night")
        table.refresh_from_db()
        assert table.stakes == new
        change = history_of(table).filter(action=ConfigAction.UPDATE).get()
        assert change.reason == "busy night"
        assert change.by == floor_user
        assert change.before["stakes_id"] != change.after["stakes_id"] == new.pk

    def test_change_needs_a_reason(self, make_table: MakeTable) -> None:
        table = make_table()
        with pytest.raises(errors.FloorValidationError, match="reason"):
            services.configure_table(
                table=table, stakes=Stakes.objects.get(code="limit-6-12"), by=None, reason=" "
            )

    def test_change_schedule_refused_during_a_hand(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal
    ) -> None:
        table = make_table()
        buy_in_players(table, [1, 2])
        deal_hand(table)
        with pytest.raises(errors.HandInProgress):
            services.configure_table(
                table=table, collection_schedule=CollectionSchedule.objects.get(code="B"), by=None, reason="x"
            )

    def test_resize_seats(self, make_table: MakeTable, seat_players: SeatPlayers) -> None:
        table = make_table(seat_count=6)
        seat_players(table, [6])
        with pytest.raises(errors.FloorConflict, match="move them first"):
            services.configure_table(table=table, seat_count=5, by=None, reason="smaller table")
        services.configure_table(table=table, seat_count=9, by=None, reason="bigger table")
        assert table.seats.count() == 9


# --- Seating --------------------------------------------------------------------------------------


class TestSeating:
    def test_seat_and_unseat(self, make_table: MakeTable, make_player: Callable[..., Player]) -> None:
        table, player = make_table(), make_player("Ana")
        seating = services.seat_player(table=table, seat_number=3, player=player, by=None)
        assert (seating.seat.number, seating.is_active) == (3, True)
        services.unseat_player(seating=seating, by=None)
        seating.refresh_from_db()
        assert seating.left_at is not None
        with pytest.raises(errors.NotSeated):
            services.unseat_player(seating=seating, by=None)

    def test_seat_that_does_not_exist(
        self, make_table: MakeTable, make_player: Callable[..., Player]
    ) -> None:
        table = make_table()
        with pytest.raises(errors.SeatNotFound, match="no seat 11"):
            services.seat_player(table=table, seat_number=11, player=make_player(), by=None)
        assert not Seating.objects.exists()

    def test_second_player_in_a_taken_seat(
        self, make_table: MakeTable, make_player: Callable[..., Player]
    ) -> None:
        table = make_table()
        services.seat_player(table=table, seat_number=2, player=make_player("Ana"), by=None)
        with pytest.raises(errors.SeatTaken, match="taken by Ana"):
            services.seat_player(table=table, seat_number=2, player=make_player("Ben"), by=None)
        assert Seating.objects.count() == 1

    def test_player_seated_twice_at_a_table(
        self, make_table: MakeTable, make_player: Callable[..., Player]
    ) -> None:
        table, ana = make_table(), make_player("Ana")
        services.seat_player(table=table, seat_number=2, player=ana, by=None)
        with pytest.raises(errors.PlayerAlreadySeated, match="seat 2"):
            services.seat_player(table=table, seat_number=5, player=ana, by=None)
        assert Seating.objects.count() == 1

    def test_a_second_table_only_with_the_floors_reason(
        self, make_table: MakeTable, make_player: Callable[..., Player]
    ) -> None:
        ana = make_player("Ana")
        services.seat_player(table=make_table(), seat_number=1, player=ana, by=None)
        second = make_table()
        with pytest.raises(errors.SeatedElsewhere, match="one table at a time"):
            services.seat_player(table=second, seat_number=1, player=ana, by=None)
        seating = services.seat_player(
            table=second, seat_number=1, player=ana, by=None, elsewhere_reason="moving over, chips racked"
        )
        assert seating.elsewhere_reason == "moving over, chips racked"
        assert Seating.objects.active().filter(player=ana).count() == 2

    def test_seating_at_a_closed_table(
        self, make_table: MakeTable, make_player: Callable[..., Player]
    ) -> None:
        table = make_table(open=False)
        with pytest.raises(errors.TableClosed):
            services.seat_player(table=table, seat_number=1, player=make_player(), by=None)
        assert not Seating.objects.exists()

    def test_seat_is_free_again_after_leaving(
        self, make_table: MakeTable, make_player: Callable[..., Player]
    ) -> None:
        table = make_table()
        first = services.seat_player(table=table, seat_number=4, player=make_player(), by=None)
        services.unseat_player(seating=first, by=None)
        services.seat_player(table=table, seat_number=4, player=make_player(), by=None)
        assert Seating.objects.filter(seat__table=table, seat__number=4).count() == 2

    def test_move_within_a_table(self, make_table: MakeTable, make_player: Callable[..., Player]) -> None:
        one, ana = make_table(), make_player("Ana")
        seating = services.seat_player(table=one, seat_number=1, player=ana, by=None)
        moved = hand_flow.move_player(seating=seating, to_seat_number=7, by=None)
        assert (moved.table, moved.seat.number) == (one, 7)
        seating.refresh_from_db()
        assert seating.left_at == moved.seated_at
        assert list(Seating.objects.active().filter(player=ana)) == [moved]

    def test_a_move_is_the_money_flows_alone(self) -> None:
        # A seat or table change carries the chips: handflow.services.move_player (the table
        # change tests in tests/handflow/test_table_change.py). The floor has no move of its own
        # that could leave them behind.
        assert not hasattr(services, "move_player")

    def test_move_to_a_taken_seat_changes_nothing(
        self, make_table: MakeTable, seat_players: SeatPlayers
    ) -> None:
        table = make_table()
        seat_players(table, [1, 2])
        seating = Seating.objects.active().get(seat__table=table, seat__number=1)
        before = snapshot_floor()
        with pytest.raises(errors.SeatTaken):
            hand_flow.move_player(seating=seating, to_seat_number=2, by=None)
        assert snapshot_floor() == before

    def test_player_in_a_hand_cannot_leave_or_move(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal
    ) -> None:
        table = make_table()
        buy_in_players(table, [1, 2])
        hand = deal_hand(table)
        seating = Seating.objects.active().get(seat__table=table, seat__number=1)
        with pytest.raises(errors.PlayerInHand):
            services.unseat_player(seating=seating, by=None)
        with pytest.raises(errors.PlayerInHand):
            hand_flow.move_player(seating=seating, to_seat_number=5, by=None)
        hand_flow.misdeal(hand=hand, reason_code="two_exposed", by=None)
        services.unseat_player(seating=seating, by=None)

    def test_member_numbers_are_unique(self, make_player: Callable[..., Player]) -> None:
        make_player("Ana", member_number="M-1")
        with pytest.raises(errors.FloorConflict, match="belongs to Ana"):
            services.create_player(name="Ben", member_number="M-1")
        # Many players may have none.
        services.create_player(name="Cy", member_number="")
        services.create_player(name="Di", member_number=None)
        assert Player.objects.filter(member_number__isnull=True).count() == 2


# --- Hands and buttons ------------------------------------------------------------------------------


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


# --- Stakes and schedules -------------------------------------------------------------------------------


class TestStakesAndSchedules:
    def test_kill_at_no_limit_is_refused(self, db: None) -> None:
        with pytest.raises(errors.InvalidStakes, match="No kill at no limit") as caught:
            services.create_stakes(
                code="nl-kill", structure="no_limit", buy_in_min_cents=2000, kill="half", by=None
            )
        assert caught.value.field == "kill"
        assert not Stakes.objects.filter(code="nl-kill").exists()

    @pytest.mark.parametrize(
        ("fields", "field"),
        [
            ({"structure": "limit", "small_bet_cents": 800}, "big_bet_cents"),
            ({"structure": "limit", "small_bet_cents": 800, "big_bet_cents": 400}, "big_bet_cents"),
            (
                {
                    "structure": "limit",
                    "small_bet_cents": 200,
                    "big_bet_cents": 400,
                    "alt_small_bet_cents": 200,
                },
                "alt_big_bet_cents",
            ),
            (
                {"structure": "pot_limit", "buy_in_min_cents": 5000, "buy_in_max_cents": 2000},
                "buy_in_max_cents",
            ),
            ({"structure": "no_limit"}, "buy_in_min_cents"),
            ({"structure": "points"}, "point_cents"),
            ({"structure": "points", "point_cents": 500, "small_bet_cents": 100}, "small_bet_cents"),
        ],
    )
    def test_inconsistent_stakes(self, db: None, fields: dict[str, Any], field: str) -> None:
        with pytest.raises(errors.InvalidStakes) as caught:
            services.create_stakes(code="bad", by=None, **fields)
        assert field in caught.value.errors

    def test_revise_schedule_never_rewrites_the_past(self, house: None, floor_user: Any) -> None:
        schedule = CollectionSchedule.objects.get(code="CP1")
        old = schedule.version_at()
        assert old is not None
        stakes = Stakes.objects.get(code="points-5")
        before = timezone.now()
        later = before + datetime.timedelta(hours=2)
        version = services.revise_schedule(
            schedule=schedule,
            rates=[
                {
                    "structure": "points",
                    "point_min_cents": 100,
                    "point_max_cents": 10000,
                    "players_min": 1,
                    "players_max": 10,
                    "payer": "each_player",
                    "fee_cents": 150,
                }
            ],
            effective_from=later,
            by=floor_user,
            reason="new fee from tonight",
        )
        assert version.number == old.number + 1
        found_now = rate_for(schedule=schedule, stakes=stakes, players=4, at=before)
        found_later = rate_for(schedule=schedule, stakes=stakes, players=4, at=later)
        assert found_now is not None
        assert found_now.fee_cents == 100
        assert found_later is not None
        assert found_later.fee_cents == 150
        change = history_of(schedule).filter(action=ConfigAction.NEW_VERSION).get()
        assert change.before["rates"][0]["fee_cents"] == 100
        assert change.after["rates"][0]["fee_cents"] == 150
        with pytest.raises(errors.InvalidSchedule, match="after it"):
            services.revise_schedule(
                schedule=schedule,
                rates=[{**_cp_rate(), "fee_cents": 1}],
                effective_from=later,
                by=floor_user,
                reason="x",
            )

    def test_past_effective_time_is_refused(self, house: None) -> None:
        schedule = CollectionSchedule.objects.get(code="CP1")
        with pytest.raises(errors.InvalidSchedule, match="never rewrites the past"):
            services.revise_schedule(
                schedule=schedule,
                rates=[_cp_rate()],
                by=None,
                reason="x",
                effective_from=timezone.now() - datetime.timedelta(minutes=5),
            )
        assert schedule.versions.count() == 1

    def test_hand_fee_is_looked_up_as_in_force_when_it_started(
        self, make_table: MakeTable, buy_in_players: BuyIn, deal_hand: Deal, settle_hand: Settle
    ) -> None:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP2")
        buy_in_players(table, [1, 2, 3])
        hand = deal_hand(table)
        services.revise_schedule(
            schedule=table.collection_schedule,
            rates=[{**_cp_rate(), "payer": "button_and_others", "fee_cents": 500, "others_fee_cents": 300}],
            by=None,
            reason="higher fee",
        )
        rate = rate_for_hand(hand)
        assert rate is not None
        assert rate.fees_by_position(3) == [200, 100, 100]
        settle_hand(hand)
        later = rate_for_hand(deal_hand(table))
        assert later is not None
        assert later.fees_by_position(3) == [500, 300, 300]

    def test_at_most_five_rates_at_a_table(self, make_table: MakeTable) -> None:
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
        six = [{**_cp_rate(), "players_min": n, "players_max": n} for n in range(1, 7)]
        with pytest.raises(errors.TooManyRates, match="at most 5"):
            services.revise_schedule(
                schedule=table.collection_schedule, rates=six, by=None, reason="split bands"
            )
        assert table.collection_schedule.versions.count() == 1
        five = [*six[:4], {**_cp_rate(), "players_min": 5, "players_max": 10}]
        services.revise_schedule(
            schedule=table.collection_schedule, rates=five, by=None, reason="split bands"
        )
        assert len(table_rates(table)) == 5

    def test_new_schedule_with_six_rates_cannot_be_put_on_a_table(self, make_table: MakeTable) -> None:
        six = [{**_cp_rate(), "players_min": n, "players_max": n} for n in range(1, 7)]
        schedule = services.create_schedule(code="CP9", name="Too fine", rates=six, by=None)
        table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
        with pytest.raises(errors.TooManyRates):
            services.configure_table(table=table, collection_schedule=schedule, by=None, reason="try it")
        table.refresh_from_db()
        assert table.collection_schedule.code == "CP1"

    def test_overlapping_bands_are_refused(self, house: None) -> None:
        with pytest.raises(errors.InvalidSchedule, match="overlap"):
            services.create_schedule(
                code="X",
                name="x",
                by=None,
                rates=[
                    {**_cp_rate(), "players_min": 1, "players_max": 4},
                    {**_cp_rate(), "players_min": 4, "players_max": 6},
                ],
            )

    @pytest.mark.parametrize(
        ("rate", "field"),
        [
            ({"payer": "button_and_others", "fee_cents": 200}, "others_fee_cents"),
            ({"payer": "each_player", "fee_cents": 100, "others_fee_cents": 50}, "others_fee_cents"),
            ({"fee_cents": -1}, "fee_cents"),
            ({"players_min": 5, "players_max": 4}, "players_max"),
            ({"point_min_cents": None}, "point_min_cents"),
        ],
    )
    def test_bad_rates(self, house: None, rate: dict[str, Any], field: str) -> None:
        with pytest.raises(errors.InvalidSchedule) as caught:
            services.create_schedule(code="X", name="x", by=None, rates=[{**_cp_rate(), **rate}])
        assert f"rates[0].{field}" in caught.value.errors
        assert not CollectionSchedule.objects.filter(code="X").exists()


def _cp_rate() -> dict[str, Any]:
    return {
        "structure": "points",
        "point_min_cents": 100,
        "point_max_cents": 10000,
        "players_min": 1,
        "players_max": 10,
        "payer": "each_player",
        "fee_cents": 100,
    }
