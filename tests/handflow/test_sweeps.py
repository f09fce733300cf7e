"""What a declared clean sweep records for the auditor (issue "Records an auditor can read..."):
the moment a Chinese poker clean sweep was declared (:mod:`handflow.sweeps`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from handflow import services as hand_flow
from tables import errors
from tables.models import HandPlayer, Table

MakeTable = Callable[..., Table]
BuyIn = Callable[..., Any]

DRAGON = ["Ac", "2d", "3h", "4s", "5c", "6d", "7h", "8s", "9c", "Td", "Jh", "Qs", "Kc"]
SET_2 = {"seat": 2, "front": ["Ad", "Ah", "2c"], "middle": ["Kd", "Kh", "Ks", "3c", "4c"],
         "back": ["Qc", "Qd", "Qh", "Jc", "Jd"]}  # fmt: skip
SET_3 = {"seat": 3, "front": ["2s", "3s", "4d"], "middle": ["5s", "6s", "7s", "8d", "9d"],
         "back": ["Ts", "Js", "9h", "8h", "7d"]}  # fmt: skip


def test_a_declared_sweep_is_recorded_with_its_time_and_stands(
    make_table: MakeTable, buy_in_players: BuyIn
) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
    buy_in_players(table, [1, 2, 3], amount_cents=10_000)
    hand = hand_flow.start_hand(table=table, by=None).hand
    with pytest.raises(errors.FloorValidationError, match="not a clean sweep"):
        hand_flow.declare_sweep(hand=hand, seat_number=1, sweep="royal", by=None)
    with pytest.raises(errors.FloorValidationError, match="not dealt in"):
        hand_flow.declare_sweep(hand=hand, seat_number=7, sweep="dragon", by=None)
    seat = hand_flow.declare_sweep(hand=hand, seat_number=1, sweep="dragon", by=None).seat
    assert seat.sweep_declared == "dragon"
    assert seat.sweep_declared_at is not None
    declared_at = seat.sweep_declared_at
    again = hand_flow.declare_sweep(hand=hand, seat_number=1, sweep="Dragon", by=None)
    assert (again.replayed, again.seat.sweep_declared_at) == (True, declared_at)
    with pytest.raises(errors.FloorValidationError, match="a declaration stands"):
        hand_flow.declare_sweep(hand=hand, seat_number=1, sweep="six-pairs", by=None)
    # The entry must carry it: a declaration on record can't be dropped.
    unset = {"seat": 1, "front": DRAGON[:3], "middle": DRAGON[3:8], "back": DRAGON[8:]}
    with pytest.raises(errors.InvalidShowdown, match="declared dragon"):
        hand_flow.submit_showdown(hand=hand, submitted={"players": [unset, SET_2, SET_3]}, by=None)
    reading = hand_flow.submit_showdown(
        hand=hand,
        submitted={"players": [{"seat": 1, "cards": DRAGON, "declare": "dragon"}, SET_2, SET_3]},
        by=None,
    ).reading
    assert reading.engine_result["players"]["1"]["sweep"] == "dragon"
    assert HandPlayer.objects.get(hand=hand, seat__number=1).sweep_declared_at == declared_at


def test_a_sweep_first_entered_in_the_showdown_is_recorded_then(
    make_table: MakeTable, buy_in_players: BuyIn
) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
    buy_in_players(table, [1, 2, 3], amount_cents=10_000)
    hand = hand_flow.start_hand(table=table, by=None).hand
    hand_flow.submit_showdown(
        hand=hand,
        submitted={"players": [{"seat": 1, "cards": DRAGON, "declare": "dragon"}, SET_2, SET_3]},
        by=None,
    )
    declared = {
        hp.seat.number: (hp.sweep_declared, hp.sweep_declared_at is not None) for hp in hand.players.all()
    }
    assert declared == {1: ("dragon", True), 2: ("", False), 3: ("", False)}
    holdem = make_table()
    buy_in_players(holdem, [1, 2])
    with pytest.raises(errors.FloorValidationError, match="no clean sweeps"):
        hand_flow.declare_sweep(
            hand=hand_flow.start_hand(table=holdem, by=None).hand, seat_number=1, sweep="dragon", by=None
        )
