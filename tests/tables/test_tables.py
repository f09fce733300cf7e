"""The floor's tables (tables/services/tables.py): created with their seats and history, opened
and closed, configured (stakes, schedule, chips, seats) within the game's and the schedule's rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tables import errors, services
from tables.models import CollectionSchedule, ConfigAction, Seating, Stakes, Table, TableStatus
from tests.tables.floor_checks import (
    BuyIn,
    Deal,
    MakeTable,
    SeatPlayers,
    Settle,
    cp_rate,
    history_of,
    snapshot_floor,
)


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
            code=f"CP5-{game}", name="$5 each", rates=[{**cp_rate(), "fee_cents": 500}], by=None
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
