"""The waiting lists' tests' fixtures: the floor manager, an Omaha list, a full table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tables.lists import services
from tables.models import Game, Player, Stakes, Table, WaitingList


@pytest.fixture
def floor(users: dict[str, Any]) -> Any:
    return users["floor"]


@pytest.fixture
def omaha_list(house: None, floor: Any) -> WaitingList:
    return services.create_list(
        game=Game.objects.get(slug="omaha-hi-lo"), stakes=Stakes.objects.get(code="limit-4-8-half"), by=floor
    )


@pytest.fixture
def full_table(
    make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> Callable[..., Table]:
    """``full_table(seats=3)``: an open hold'em $4-$8 table of that many seats, everyone bought in."""

    def make(seats: int = 3, **kwargs: Any) -> Table:
        table = make_table(seat_count=seats, **kwargs)
        buy_in_players(table, list(range(1, seats + 1)))
        return table

    return make
