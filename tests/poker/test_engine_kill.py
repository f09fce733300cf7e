"""Kill hands (004 kill rules, RULINGS section 2)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from poker.kill import KillKind, kill_blind, kill_limits, next_hand_kill


def test_no_kill_until_two_pots_in_a_row() -> None:
    assert not next_hand_kill([], "half", 200).on
    assert not next_hand_kill([3], "half", 200).on
    assert not next_hand_kill([3, 4], "half", 200).on
    assert not next_hand_kill([3, None, 3], "half", 200).on  # a split pot breaks the run


def test_half_kill_after_two_outright_wins() -> None:
    d = next_hand_kill([5, 3, 3], KillKind.HALF, 200)
    assert d.on
    assert d.poster == 3
    assert d.streak == 2
    assert d.multiplier == Fraction(3, 2)
    assert d.kill_blind == 300  # 004: a $2 big blind becomes $3


def test_full_kill_doubles_and_lasts_while_the_same_player_keeps_winning() -> None:
    d = next_hand_kill([3, 3, 3, 3], "full", 400)
    assert d.on
    assert d.poster == 3
    assert d.streak == 4
    assert d.multiplier == 2
    assert d.kill_blind == 800
    assert not next_hand_kill([3, 3, 3, 4], "full", 400).on  # the kill button goes back
    assert not next_hand_kill([3, 3, 3, None], "full", 400).on


def test_no_kill_table() -> None:
    d = next_hand_kill([3, 3], "none", 400)
    assert not d.on
    assert d.kill_blind is None
    assert d.multiplier == 1


def test_kill_blind_rounds_up_to_the_chip() -> None:
    assert kill_blind(500, "half") == 750
    assert kill_blind(500, "half", chip=100) == 800
    assert kill_blind(500, "half", chip=25) == 750
    assert kill_blind(300, "full", chip=100) == 600
    with pytest.raises(ValueError, match="big blind"):
        kill_blind(0, "half")
    with pytest.raises(ValueError, match="chip"):
        kill_blind(200, "half", chip=0)
    with pytest.raises(ValueError, match="triple"):
        kill_blind(200, "triple")


def test_a_kill_hands_limits_go_up_as_its_blind_does() -> None:
    """$4-$8 half kill plays $6-$12, full kill $8-$16; with $5 chips a half kill of $5-$10 rounds
    up to whole chips ($10-$15), as the kill blind does; no kill leaves the limits alone."""
    assert kill_limits(400, 800, "half") == (600, 1_200)
    assert kill_limits(400, 800, KillKind.FULL) == (800, 1_600)
    assert kill_limits(500, 1_000, "half", chip=500) == (1_000, 1_500)
    assert kill_limits(500, 1_000, "none", chip=500) == (500, 1_000)
