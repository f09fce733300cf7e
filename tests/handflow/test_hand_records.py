"""What the hand records for the auditor (issue "Records an auditor can read..."): the misdeal's
reason as one of its game's codes (004's, Robert's Rules'), the boards agreed for Taiwanese poker
before the deal, and the moment a Chinese poker clean sweep was declared."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from handflow import services as hand_flow
from tables import errors
from tables.choices import HandStatus, MisdealReason
from tables.games import misdeal_reasons_for
from tables.models import HandPlayer, Table

MakeTable = Callable[..., Table]
BuyIn = Callable[..., Any]

DRAGON = ["Ac", "2d", "3h", "4s", "5c", "6d", "7h", "8s", "9c", "Td", "Jh", "Qs", "Kc"]
SET_2 = {"seat": 2, "front": ["Ad", "Ah", "2c"], "middle": ["Kd", "Kh", "Ks", "3c", "4c"],
         "back": ["Qc", "Qd", "Qh", "Jc", "Jd"]}  # fmt: skip
SET_3 = {"seat": 3, "front": ["2s", "3s", "4d"], "middle": ["5s", "6s", "7s", "8d", "9d"],
         "back": ["Ts", "Js", "9h", "8h", "7d"]}  # fmt: skip


#: A table of each kind of game whose misdeals differ (tables.games.misdeal_reasons_for).
_TABLES = (
    {"game": "holdem"},
    {"game": "stud", "stakes": "limit-4-8"},
    {"game": "lowball", "stakes": "limit-4-8"},
    {"game": "chinese-poker", "stakes": "points-5", "schedule": "CP2"},
)


@pytest.mark.parametrize("code", [c for c in MisdealReason.values if c != MisdealReason.OTHER])
def test_a_misdeal_is_one_of_its_games_reasons(
    make_table: MakeTable, buy_in_players: BuyIn, code: str
) -> None:
    """Each code voids a hand of a game it fits (004's for Chinese poker and lowball, Robert's Rules
    for the pot games: docs/misdeals.md)."""
    table = make_table(**next(t for t in _TABLES if code in misdeal_reasons_for(t["game"])))
    buy_in_players(table, [1, 2], 10_000)
    hand = hand_flow.misdeal(
        hand=hand_flow.start_hand(table=table, by=None).hand, reason_code=code, by=None
    ).hand
    assert (hand.status, hand.misdeal_reason, hand.void_reason) == (
        HandStatus.VOID,
        code,
        MisdealReason(code).label,
    )


def test_other_needs_words_and_an_unknown_code_is_refused(
    make_table: MakeTable, buy_in_players: BuyIn
) -> None:
    table = make_table()
    buy_in_players(table, [1, 2])
    hand = hand_flow.start_hand(table=table, by=None).hand
    for code, reason, field in (
        ("other", "", "reason"),
        ("exposed", "", "reason_code"),
        (None, "x", "reason_code"),
    ):
        with pytest.raises(errors.FloorValidationError) as refused:
            hand_flow.misdeal(hand=hand, reason_code=code, reason=reason, by=None)  # type: ignore[arg-type]
        assert refused.value.field == field
    hand.refresh_from_db()
    assert hand.status == HandStatus.DEALT  # nothing changed, the fees still taken
    voided = hand_flow.misdeal(hand=hand, reason_code="other", reason="  the deck was short  ", by=None).hand
    assert (voided.misdeal_reason, voided.void_reason) == ("other", "the deck was short")


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
