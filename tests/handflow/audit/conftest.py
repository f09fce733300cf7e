"""The replay audit's tests' hands: settled hands of both kinds of game."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tables.models import Hand, Player, Table


@pytest.fixture
def settled(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
) -> dict[str, Hand]:
    """Three settled hold'em hands at one table: an outright win, a split shown down, another win;
    and a Chinese poker hand (everyone surrenders)."""
    table, _ = table_with_players(4, stakes="limit-4-8")
    outright = settle_hand(deal_hand(table))
    split = settle_hand(deal_hand(table), winners=(1, 2))
    later = settle_hand(deal_hand(table))
    chinese_table, _ = table_with_players(4, game="chinese-poker", stakes="points-1", schedule="CP1")
    chinese = settle_hand(deal_hand(chinese_table))
    return {"outright": outright, "split": split, "later": later, "chinese": chinese}
