"""A table change carries every chip (handflow.services.move_player): one TABLE_TRANSFER in the same
transaction as the seating rows, posted once, and a refused move changes nothing."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from rest_framework.test import APIClient

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger.models import Entry, JournalTransaction, TransactionKind
from ledger.verification import verify_ledger
from tables import errors, services
from tables import services as floor_services
from tables.models import Player, Seating, Table

MakeTable = Callable[..., Table]
_keys = (f"tc-{n}" for n in itertools.count())


@pytest.fixture
def floor_manager(users: dict[str, AbstractBaseUser]) -> AbstractBaseUser:
    return users["floor"]


@pytest.fixture
def bought_in(
    floor_manager: AbstractBaseUser, make_player: Callable[..., Player]
) -> Callable[[Table, int, int], Seating]:
    """``bought_in(table, seat, cents)``: a new player seated there with that buy-in."""

    def make(table: Table, seat: int, cents: int) -> Seating:
        player = make_player()
        hand_flow.buy_in(
            table=table,
            player=player,
            amount_cents=cents,
            seat_number=seat,
            by=floor_manager,
            idempotency_key=next(_keys),
        )
        return Seating.objects.active().get(table=table, player=player)

    return make


def books() -> tuple[Any, ...]:
    """The ledger and the floor as a refused move must leave them."""
    return (
        JournalTransaction.objects.count(),
        sorted(Entry.objects.values_list("account_id", "amount")),
        sorted(Seating.objects.values_list("pk", "table_id", "seat__number", "left_at")),
    )


def test_table_change_carries_every_chip(
    make_table: MakeTable, bought_in: Callable[..., Seating], floor_manager: AbstractBaseUser
) -> None:
    one, two = make_table(), make_table()
    seating = bought_in(one, 1, 12_300)
    ana = seating.player

    moved = hand_flow.move_player(seating=seating, to_table=two, to_seat_number=3, by=floor_manager)

    assert (moved.table, moved.seat.number, moved.player) == (two, 3, ana)
    seating.refresh_from_db()
    assert seating.left_at == moved.seated_at
    assert ledger_selectors.player_chips(table=one, player=ana) == 0
    assert ledger_selectors.player_chips(table=two, player=ana) == 12_300
    transfer = JournalTransaction.objects.get(kind=TransactionKind.TABLE_TRANSFER)
    assert transfer.idempotency_key == f"seating:{seating.pk}:table-change"
    assert sorted(transfer.entries.values_list("amount", flat=True)) == [-12_300, 12_300]
    assert transfer.created_by == floor_manager
    assert verify_ledger().ok


def test_seat_change_and_chipless_move_post_nothing(
    make_table: MakeTable,
    bought_in: Callable[..., Seating],
    make_player: Callable[..., Player],
    floor_manager: AbstractBaseUser,
) -> None:
    one, two = make_table(), make_table()
    seating = bought_in(one, 1, 10_000)
    walk_in = services.seat_player(table=one, seat_number=2, player=make_player(), by=None)
    posted = JournalTransaction.objects.count()

    same_table = hand_flow.move_player(seating=seating, to_seat_number=5, by=floor_manager)
    no_chips = hand_flow.move_player(seating=walk_in, to_table=two, to_seat_number=2, by=floor_manager)

    assert (same_table.table, same_table.seat.number) == (one, 5)
    assert (no_chips.table, no_chips.seat.number) == (two, 2)
    assert JournalTransaction.objects.count() == posted
    assert ledger_selectors.player_chips(table=one, player=seating.player) == 10_000


@pytest.mark.parametrize("refusal", ["in_hand", "seat_taken", "table_closed", "chips_not_whole", "moved"])
def test_refused_table_change_changes_nothing(
    refusal: str,
    make_table: MakeTable,
    bought_in: Callable[..., Seating],
    floor_manager: AbstractBaseUser,
    users: dict[str, AbstractBaseUser],
) -> None:
    one = make_table()
    # $5 chips, on a schedule whose fee is whole $5 chips (a fee is whole chips of its table).
    services.create_schedule(
        code="FIVES",
        name="$5 a hand",
        rates=[{"structure": "limit", "small_bet_cents": 400, "big_bet_cents": 800, "players_min": 1,
                "players_max": 10, "payer": "button", "fee_cents": 500}],
        by=None,
    )  # fmt: skip
    two = make_table(chip_unit_cents=500, schedule="FIVES", open=refusal != "table_closed")
    seating = bought_in(one, 1, 10_100)  # 101 one-dollar chips: not whole five-dollar chips
    if refusal == "in_hand":
        bought_in(one, 2, 10_000)
        floor_services.clock_in(table=one, dealer=users["dealer"], by=users["floor"])
        hand_flow.start_hand(table=one, by=users["dealer"])
    if refusal == "seat_taken":
        bought_in(two, 3, 10_000)
    if refusal == "moved":  # a retry of a table change already made
        hand_flow.move_player(seating=seating, to_table=make_table(), to_seat_number=3, by=floor_manager)
    expected = {
        "in_hand": errors.PlayerInHand,
        "seat_taken": errors.SeatTaken,
        "table_closed": errors.TableClosed,
        "chips_not_whole": errors.FloorValidationError,
        "moved": errors.NotSeated,
    }[refusal]
    before = books()

    with pytest.raises(expected) as raised:
        hand_flow.move_player(seating=seating, to_table=two, to_seat_number=3, by=floor_manager)

    assert books() == before
    if refusal == "chips_not_whole":
        assert raised.value.code == "chips_not_whole"
        assert "($101) are not a whole number of table" in raised.value.message
    assert verify_ledger().ok


def test_table_change_through_the_floor_api(
    make_table: MakeTable, bought_in: Callable[..., Seating], client_for: Callable[[str | None], APIClient]
) -> None:
    one, two = make_table(), make_table()
    seating = bought_in(one, 4, 20_000)

    response = client_for("floor").post(
        f"/api/seatings/{seating.pk}/move/", {"to_table": two.number, "to_seat_number": 1}, format="json"
    )

    assert response.status_code == 201, response.json()
    assert (response.json()["table"], response.json()["seat_number"]) == (two.number, 1)
    assert ledger_selectors.player_chips(table=two, player=seating.player) == 20_000
    assert ledger_selectors.player_chips(table=one, player=seating.player) == 0
    refused = client_for("dealer").post(
        f"/api/seatings/{response.json()['id']}/move/",
        {"to_table": one.number, "to_seat_number": 4},
        format="json",
    )
    assert refused.status_code == 403
    assert ledger_selectors.player_chips(table=two, player=seating.player) == 20_000
