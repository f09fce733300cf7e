"""Concurrency on PostgreSQL: row locks and constraints let exactly one of two racers win."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from handflow import services as hand_flow
from tables import services
from tables.errors import FloorError, HandInProgress, SeatTaken
from tables.models import Hand, Player, Seating, Table

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def race(*calls: Callable[[], Any]) -> list[Any]:
    """Run ``calls`` in threads released together; each returns its result or its exception."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except (FloorError, Exception) as exc:
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def test_two_players_race_for_one_seat(
    make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    table, ana, ben = make_table(), make_player("Ana"), make_player("Ben")
    results = race(
        lambda: services.seat_player(table=table, seat_number=5, player=ana, by=None),
        lambda: services.seat_player(table=table, seat_number=5, player=ben, by=None),
    )
    winners = [r for r in results if isinstance(r, Seating)]
    losers = [r for r in results if isinstance(r, SeatTaken)]
    assert len(winners) == 1, results
    assert len(losers) == 1, results
    assert Seating.objects.active().filter(seat__table=table, seat__number=5).count() == 1


def test_two_dealers_race_to_start_a_hand(
    make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> None:
    table = make_table()
    buy_in_players(table, [1, 2])
    results = race(
        lambda: hand_flow.start_hand(table=table, by=None),
        lambda: hand_flow.start_hand(table=table, by=None),
    )
    assert sorted(type(r).__name__ for r in results) == sorted(["Hand", HandInProgress.__name__]), results
    assert Hand.objects.filter(table=table).count() == 1
