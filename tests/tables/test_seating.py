"""Seating (tables/services/seating.py): a player seated and unseated, one player a seat and one
table at a time; a move is the hand's money's (handflow.services.move_player), never the floor's."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from handflow import services as hand_flow
from tables import errors, services
from tables.models import Player, Seating
from tests.tables.floor_checks import BuyIn, Deal, MakeTable, SeatPlayers, snapshot_floor


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
