"""What a misdeal records for the auditor (issue "Records an auditor can read..."): its reason as one
of its game's codes (004's, Robert's Rules'), with words for "other" (:mod:`handflow.misdeal`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from handflow import services as hand_flow
from tables import errors
from tables.choices import HandStatus, MisdealReason
from tables.games import misdeal_reasons_for
from tables.models import Table

MakeTable = Callable[..., Table]
BuyIn = Callable[..., Any]


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
