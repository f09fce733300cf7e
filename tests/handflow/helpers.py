"""What the tests of the hand's money share: a table and its players made, chips bought through the
chip services or straight from the ledger, a heads-up showdown."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from ledger import services as ledger
from tables.models import (
    ChipMovement,
    Player,
    Table,
)

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
