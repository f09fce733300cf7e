"""Closing a table with players seated is refused until they are cashed out or moved.

Before, ``close_table`` ended everyone's seating: four players were left "away" with chips on a
closed table, to be found and cashed out one by one. Now the service refuses (FloorConflict
``players_seated``, naming them) and changes nothing; the API answers 409 and the page and the
admin show the refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from tables import errors, services
from tables.models import ConfigChange, Player, Seating, Table, TableStatus

BuyIn = Callable[..., list[Player]]


def state(table: Table) -> tuple[Any, ...]:
    """What a refused close must leave as it was: the table, its seatings, chips and history."""
    table.refresh_from_db()
    return (
        table.status,
        table.closed_at,
        sorted(Seating.objects.active().filter(table=table).values_list("player_id", "seat__number")),
        ledger_selectors.table_chips(table=table),
        ConfigChange.objects.count(),
    )


def test_close_with_players_seated_is_refused_naming_them(
    make_table: Callable[..., Table], buy_in_players: BuyIn
) -> None:
    table = make_table(stakes="limit-4-8")
    players = buy_in_players(table, [2, 5, 7, 9])
    before = state(table)
    with pytest.raises(errors.FloorConflict) as refused:
        services.close_table(table=table, by=None, reason="end of the night")
    assert refused.value.code == "players_seated"
    for seat, player in zip((2, 5, 7, 9), players, strict=True):
        assert f"seat {seat} {player.name}" in refused.value.message
    assert "4 player(s) seated" in refused.value.message
    assert state(table) == before
    assert table.status == TableStatus.OPEN


def test_a_seated_player_without_chips_also_keeps_the_table_open(
    make_table: Callable[..., Table], seat_players: Callable[..., list[Player]]
) -> None:
    table = make_table()
    (ana,) = seat_players(table, [3])
    with pytest.raises(errors.FloorConflict, match=f"seat 3 {ana.name}"):
        services.close_table(table=table, by=None)
    table.refresh_from_db()
    assert table.is_open


def test_close_once_everyone_is_cashed_out_or_moved(
    make_table: Callable[..., Table], buy_in_players: BuyIn, users: dict[str, Any]
) -> None:
    table, other = make_table(stakes="limit-4-8"), make_table(stakes="limit-4-8")
    ana, ben = buy_in_players(table, [1, 2])
    hand_flow.cash_out(table=table, player=ana, by=None, idempotency_key="close-cash-out")
    with pytest.raises(errors.FloorConflict, match=f"1 player\\(s\\) seated \\(seat 2 {ben.name}\\)"):
        services.close_table(table=table, by=None)
    seating = Seating.objects.active().get(table=table, player=ben)
    hand_flow.move_player(seating=seating, to_table=other, to_seat_number=4, by=None)
    closed = services.close_table(table=table, by=users["floor"], reason="quiet")
    assert closed.status == TableStatus.CLOSED
    assert ledger_selectors.table_chips(table=table).get(ben.pk, 0) == 0
    assert ledger_selectors.player_chips(table=other, player=ben) == 8_000


def test_the_api_answers_409_and_changes_nothing(
    client_for: Callable[[str | None], APIClient], make_table: Callable[..., Table], buy_in_players: BuyIn
) -> None:
    table = make_table()
    (ana,) = buy_in_players(table, [6])
    before = state(table)
    response = client_for("floor").post(f"/api/tables/{table.number}/close/", {"reason": "r"}, format="json")
    assert response.status_code == 409
    assert response.json()["code"] == "players_seated"
    assert f"seat 6 {ana.name}" in response.json()["detail"]
    assert state(table) == before


def test_the_page_shows_the_refusal(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: BuyIn
) -> None:
    table = make_table()
    (ana,) = buy_in_players(table, [4])
    before = state(table)
    client = Client()
    client.force_login(users["floor"])
    response = client.post(f"/floor/tables/{table.number}/", {"action": "close", "token": "c1"}, follow=True)
    page = response.content.decode()
    assert 'class="error"' in page
    assert f"seat 4 {ana.name}" in page
    assert "cash them out or move them" in page
    assert state(table) == before


def test_the_admin_action_shows_the_refusal(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: BuyIn
) -> None:
    table = make_table()
    (ana,) = buy_in_players(table, [1])
    client = Client()
    client.force_login(users["admin"])
    response = client.post(
        "/admin/tables/table/", {"action": "close_tables", "_selected_action": [table.pk]}, follow=True
    )
    assert f"seat 1 {ana.name}" in response.content.decode()
    table.refresh_from_db()
    assert table.is_open
