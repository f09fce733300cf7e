"""A walk-in's buy-in creates the player in the buy-in's own transaction: a refused buy-in leaves
no player behind (a walk-in refused three times left "Kai Wong" four times in the player list)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from tables import errors
from tables.models import Player, Table


def test_a_refused_walk_in_buy_in_leaves_no_player(make_table: Callable[..., Table]) -> None:
    table = make_table(game="holdem", stakes="nl-100-500", schedule="A")
    for key, (amount, seat) in enumerate([(5_000, 3), (60_000, 3), (10_050, 3)]):
        with pytest.raises(errors.FloorError):
            hand_flow.buy_in(
                table=table,
                new_player_name="Kai Wong",
                amount_cents=amount,
                seat_number=seat,
                by=None,
                idempotency_key=f"walk-in-{key}",
            )
    assert not Player.objects.filter(name="Kai Wong").exists()
    movement = hand_flow.buy_in(
        table=table,
        new_player_name="Kai Wong",
        amount_cents=20_000,
        seat_number=3,
        by=None,
        idempotency_key="ok",
    ).movement
    again = hand_flow.buy_in(
        table=table,
        new_player_name="Kai Wong",
        amount_cents=20_000,
        seat_number=3,
        by=None,
        idempotency_key="ok",
    )
    assert again.replayed
    assert again.movement.pk == movement.pk
    assert list(Player.objects.filter(name="Kai Wong")) == [movement.player]
    assert ledger_selectors.player_chips(table=table, player=movement.player) == 20_000
    with pytest.raises(errors.IdempotencyKeyReused):
        hand_flow.buy_in(
            table=table,
            new_player_name="Kai Wang",
            amount_cents=20_000,
            seat_number=4,
            by=None,
            idempotency_key="ok",
        )


def test_a_buy_in_names_one_player(
    make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    table = make_table(game="holdem", stakes="nl-100-500", schedule="A")
    ana = make_player("Ana")
    for who in ({}, {"player": ana, "new_player_name": "Ana"}):
        with pytest.raises(errors.FloorValidationError, match="Choose a player or type"):
            hand_flow.buy_in(
                table=table, amount_cents=20_000, seat_number=1, by=None, idempotency_key="x", **who
            )
    assert Player.objects.count() == 1


def test_the_floor_page_refuses_a_walk_in_three_times_and_creates_nobody(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(number=31, game="holdem", stakes="nl-100-500", schedule="A")
    floor = Client()
    floor.force_login(users["floor"])
    before = Player.objects.count()
    for token, amount in (("a", "50"), ("b", "600"), ("c", "abc")):
        response = floor.post(
            f"/floor/tables/{table.number}/",
            {"action": "buy_in", "token": token, "player": "", "player_name": "Kai Wong", "seat_number": "2",
             "amount": amount},
            follow=True,
        )  # fmt: skip
        assert response.status_code == 400  # the page drawn again, the form as typed
        assert 'class="error"' in response.content.decode()
        assert 'name="player_name" value="Kai Wong"' in response.content.decode()
    assert Player.objects.count() == before
    response = floor.post(
        f"/floor/tables/{table.number}/",
        {"action": "buy_in", "token": "d", "player": "", "player_name": "Kai Wong", "seat_number": "2",
         "amount": "200"},
        follow=True,
    )  # fmt: skip
    assert "Kai Wong bought in for $200.00" in response.content.decode()
    assert Player.objects.filter(name="Kai Wong").count() == 1
