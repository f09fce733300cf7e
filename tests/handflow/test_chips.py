"""The chip services are the one place of the rules of moving chips (``handflow.chips``): who
moves a table's chips (the dealer clocked in there, the floor or the cage), "same person?" of a
walk-in, one table at a time, and the identification past the gaming day's report threshold.
Each refusal posts nothing, seats nobody and creates nobody."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.models import User as AuthUser

from handflow import services as hand_flow
from tables import errors, services
from tables.models import DealerShift, Player, Seating, Table
from tests.factories import chip_writes

MakeTable = Callable[..., Table]


def _clock_in(table: Table, dealer: AbstractBaseUser) -> DealerShift:
    assert isinstance(dealer, AuthUser)
    return services.clock_in(table=table, dealer=dealer, by=dealer).shift


def _each_movement(table: Table, player: Player, newcomer: Player, by: Any, key: str) -> list[Any]:
    """A buy-in (of ``newcomer``, seated in seat 5), a rebuy and a cash-out (of ``player``), each as
    a call to make, by ``by``."""
    return [
        lambda: hand_flow.buy_in(
            table=table, player=newcomer, amount_cents=2_000, seat_number=5, by=by, idempotency_key=f"{key}-b"
        ),
        lambda: hand_flow.rebuy(
            table=table, player=player, amount_cents=2_000, by=by, idempotency_key=f"{key}-r"
        ),
        lambda: hand_flow.cash_out(table=table, player=player, by=by, idempotency_key=f"{key}-c"),
    ]


class TestWhoMovesChips:
    @pytest.mark.parametrize("clocked_in", ["nowhere", "at table 1"])
    def test_a_dealer_not_clocked_in_at_the_table_moves_none_of_its_chips(
        self,
        users: dict[str, AbstractBaseUser],
        two_tables: tuple[Table, Table],
        ana: Player,
        clocked_in: str,
    ) -> None:
        one, two = two_tables
        if clocked_in == "at table 1":
            _clock_in(one, users["dealer"])
        newcomer = services.create_player(name="Ben Ortiz")
        before = chip_writes()
        for make in _each_movement(two, ana, newcomer, users["dealer"], "dealer"):
            with pytest.raises(errors.NotYourTable, match="Only the dealer clocked in at table 2"):
                make()
        assert chip_writes() == before

    def test_the_dealer_clocked_in_at_the_table_sells_its_chips(
        self, users: dict[str, AbstractBaseUser], two_tables: tuple[Table, Table], ana: Player
    ) -> None:
        two = two_tables[1]
        _clock_in(two, users["dealer"])
        done = hand_flow.rebuy(
            table=two, player=ana, amount_cents=2_000, by=users["dealer"], idempotency_key="r"
        )
        assert (done.movement.kind, done.movement.created_by) == ("rebuy", users["dealer"])

    @pytest.mark.parametrize("who", ["cage", "floor", "system"])
    def test_the_cage_and_the_floor_move_chips_at_any_table(
        self,
        users: dict[str, AbstractBaseUser],
        cage_cashier: AbstractBaseUser,
        two_tables: tuple[Table, Table],
        ana: Player,
        who: str,
    ) -> None:
        by = {"cage": cage_cashier, "floor": users["floor"], "system": None}[who]
        # A dealer clocked in at the table is no obstacle either.
        _clock_in(two_tables[1], users["dealer"])
        newcomer = services.create_player(name="Ben Ortiz")
        kinds = [make().movement.kind for make in _each_movement(two_tables[1], ana, newcomer, by, who)]
        assert kinds == ["buy_in", "rebuy", "cash_out"]

    def test_the_cage_runs_no_hands(
        self, cage_cashier: AbstractBaseUser, two_tables: tuple[Table, Table]
    ) -> None:
        # Only chips: the hand rule stays the dealer's and the floor's.
        with pytest.raises(errors.NotYourTable, match="runs its hands"):
            services.check_runs_hands(two_tables[0], cage_cashier)
        assert services.check_moves_chips(two_tables[0], cage_cashier) is None

    def test_check_moves_chips_returns_the_down(
        self, users: dict[str, AbstractBaseUser], two_tables: tuple[Table, Table]
    ) -> None:
        shift = _clock_in(two_tables[0], users["dealer"])
        assert services.check_moves_chips(two_tables[0], users["dealer"]) == shift
        assert DealerShift.objects.get() == shift


class TestOneTableAtATime:
    def test_a_player_seated_elsewhere_buys_in_only_with_the_floors_reason(
        self, two_tables: tuple[Table, Table], ana: Player
    ) -> None:
        one = two_tables[0]
        before = chip_writes()
        with pytest.raises(errors.SeatedElsewhere, match="already sits at table 2 seat 1"):
            hand_flow.buy_in(
                table=one, player=ana, amount_cents=2_000, seat_number=3, by=None, idempotency_key="e1"
            )
        assert chip_writes() == before
        done = hand_flow.buy_in(
            table=one,
            player=ana,
            amount_cents=2_000,
            seat_number=3,
            elsewhere_reason="  racking up at 2  ",
            by=None,
            idempotency_key="e2",
        )
        assert done.movement.seating.elsewhere_reason == "racking up at 2"
        assert done.movement.seating.table == one

    def test_a_reason_too_long_is_refused(self, two_tables: tuple[Table, Table], ana: Player) -> None:
        with pytest.raises(errors.FloorValidationError) as refused:
            hand_flow.buy_in(
                table=two_tables[0],
                player=ana,
                amount_cents=2_000,
                seat_number=3,
                elsewhere_reason="x" * 501,
                by=None,
                idempotency_key="e3",
            )
        assert refused.value.field == "elsewhere_reason"


class TestSamePerson:
    def test_a_walk_in_named_as_a_player_on_file_is_asked_about(
        self, two_tables: tuple[Table, Table]
    ) -> None:
        one = two_tables[0]
        services.create_player(name="Ana Ruiz")
        before = chip_writes()
        with pytest.raises(errors.PossibleDuplicate, match="Same person"):
            hand_flow.buy_in(
                table=one,
                new_player_name="ruiz, ana",
                amount_cents=2_000,
                seat_number=3,
                by=None,
                idempotency_key="w1",
            )
        assert chip_writes() == before
        done = hand_flow.buy_in(
            table=one,
            new_player_name="ruiz, ana",
            new_player_confirmed=True,
            amount_cents=2_000,
            seat_number=3,
            by=None,
            idempotency_key="w2",
        )
        assert Player.objects.filter(pk=done.movement.player_id, name="ruiz, ana").exists()


class TestIdentification:
    @pytest.fixture
    def big(self, make_table: MakeTable) -> Table:
        return make_table(number=7, game="holdem", stakes="nl-200-nomax", schedule="A")

    def test_a_buy_in_over_the_report_threshold_needs_the_identification(self, big: Table) -> None:
        ana = services.create_player(name="Ana Ruiz")
        before = chip_writes()
        for key, who in (("i1", {"player": ana}), ("i2", {"new_player_name": "Kai Wong"})):
            with pytest.raises(errors.IdentificationRequired, match=r"over \$10,000"):
                hand_flow.buy_in(
                    table=big, amount_cents=1_050_000, seat_number=3, by=None, idempotency_key=key, **who
                )
        assert chip_writes() == before  # no movement, no seating, no walk-in left behind
        services.record_identification(player=ana, kind="passport", number="P9", issued_by="MX", by=None)
        done = hand_flow.buy_in(
            table=big, player=ana, amount_cents=1_050_000, seat_number=3, by=None, idempotency_key="i3"
        )
        assert done.movement.amount_cents == 1_050_000

    def test_a_rebuy_and_a_cash_out_over_it_need_it_too(
        self, big: Table, cage_cashier: AbstractBaseUser
    ) -> None:
        ana = services.create_player(name="Ana Ruiz")
        hand_flow.buy_in(
            table=big, player=ana, amount_cents=600_000, seat_number=3, by=cage_cashier, idempotency_key="j1"
        )
        before = chip_writes()
        with pytest.raises(errors.IdentificationRequired):  # $6,000 + $5,000 in today
            hand_flow.rebuy(
                table=big, player=ana, amount_cents=500_000, by=cage_cashier, idempotency_key="j2"
            )
        # The report threshold lowered to $5,000: the $6,000 going out passes it.
        services.update_cash_day_settings(by=None, reason="test", report_threshold_cents=500_000)
        with pytest.raises(errors.IdentificationRequired, match="cash out today to"):
            hand_flow.cash_out(table=big, player=ana, by=cage_cashier, idempotency_key="j3")
        assert chip_writes() == before
        assert Seating.objects.active().filter(table=big, player=ana).exists()  # still seated
