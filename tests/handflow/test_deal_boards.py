"""What the deal records for the auditor (issue "Records an auditor can read..."): the boards agreed
for Taiwanese poker before the deal (:mod:`handflow.deal`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from handflow import services as hand_flow
from tables import errors
from tables.models import Table

MakeTable = Callable[..., Table]
BuyIn = Callable[..., Any]


def test_the_boards_agreed_before_the_deal_are_recorded_and_kept(
    make_table: MakeTable, buy_in_players: BuyIn
) -> None:
    table = make_table(game="taiwanese-poker", stakes="points-5", schedule="CP1")
    buy_in_players(table, [1, 2, 3], amount_cents=10_000)
    for boards in (0, 4, True, "2"):
        with pytest.raises(errors.FloorValidationError) as refused:
            hand_flow.start_hand(table=table, by=None, boards=boards)  # type: ignore[arg-type]
        assert refused.value.field == "boards"
    hand = hand_flow.start_hand(table=table, by=None, boards=2).hand
    assert hand.boards == 2
    players = [
        {"seat": 1, "top": ["Qs"], "middle": ["As", "Kd"], "bottom": ["9c", "9d", "4s", "5s"]},
        {"seat": 2, "top": ["Jh"], "middle": ["7c", "7d"], "bottom": ["Ks", "Kc", "6h", "8h"]},
        {"seat": 3, "top": ["2c"], "middle": ["3c", "4c"], "bottom": ["Th", "Jc", "Qc", "5d"]},
    ]
    with pytest.raises(errors.InvalidShowdown, match="2 board"):
        hand_flow.submit_showdown(
            hand=hand, submitted={"boards": [["Ac", "Ad", "Kh", "3s", "2d"]], "players": players}, by=None
        )
    reading = hand_flow.submit_showdown(
        hand=hand,
        submitted={
            "boards": [["Ac", "Ad", "Kh", "3s", "2d"], ["6c", "6d", "Ts", "8c", "3h"]],
            "players": players,
        },
        by=None,
    ).reading
    assert len(reading.engine_input["boards"]) == 2
    assert {p["reason"].split()[1] for p in reading.engine_result["payments"]} == {"1", "2"}


def test_only_taiwanese_poker_agrees_boards_and_the_deck_must_hold_them(
    make_table: MakeTable, buy_in_players: BuyIn
) -> None:
    holdem = make_table()
    buy_in_players(holdem, [1, 2])
    with pytest.raises(errors.FloorValidationError, match="no boards"):
        hand_flow.start_hand(table=holdem, by=None, boards=1)
    table = make_table(game="taiwanese-poker", stakes="points-5", schedule="CP1")
    buy_in_players(table, [1, 2, 3, 4, 5, 6], amount_cents=10_000)
    with pytest.raises(errors.FloorValidationError, match="more than 52 cards"):  # 42 + 15 cards
        hand_flow.start_hand(table=table, by=None, boards=3)
    assert hand_flow.start_hand(table=table, by=None).hand.boards == 1  # the default: one board
