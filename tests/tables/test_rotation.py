"""The pure button and kill rotation (tables/rotation.py): no database."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables.rotation import (
    KillState,
    RotationError,
    after_pot,
    clear_seat,
    deal_order,
    next_button,
    sitting_out,
)


class TestNextButton:
    def test_new_game_starts_left_of_the_dealer(self) -> None:
        assert next_button(None, [7, 3, 9]) == 3

    def test_moves_clockwise_to_the_next_eligible_seat(self) -> None:
        assert next_button(3, [1, 3, 5, 8]) == 5

    def test_skips_empty_seats(self) -> None:
        assert next_button(5, [1, 3, 5, 8]) == 8

    def test_wraps_from_the_highest_seat(self) -> None:
        assert next_button(8, [1, 3, 5, 8]) == 1

    def test_previous_button_seat_now_empty(self) -> None:
        # The button player left: the button goes to the next seat clockwise of where it was.
        assert next_button(4, [1, 3, 5, 8]) == 5

    def test_no_eligible_seat(self) -> None:
        with pytest.raises(RotationError):
            next_button(1, [])


class TestDealOrder:
    def test_button_first_then_clockwise(self) -> None:
        assert deal_order(5, [1, 3, 5, 8]) == [5, 8, 1, 3]

    def test_capped_at_max_hands(self) -> None:
        assert deal_order(2, [1, 2, 3, 4, 5], max_hands=4) == [2, 3, 4, 5]

    def test_button_must_be_eligible(self) -> None:
        with pytest.raises(RotationError):
            deal_order(2, [1, 3])

    def test_sitting_out(self) -> None:
        assert sitting_out([2, 3, 4, 5], [1, 2, 3, 4, 5]) == [1]


def test_chinese_poker_fifth_player_rotates_in() -> None:
    """Five seated, four hands: the button moves each round and the one who sat out plays next."""
    seated = [1, 2, 3, 4, 5]
    button = None
    rounds = []
    for _ in range(6):
        button = next_button(button, seated)
        dealt = deal_order(button, seated, max_hands=4)
        rounds.append((button, dealt, sitting_out(dealt, seated)))
    assert rounds == [
        (1, [1, 2, 3, 4], [5]),
        (2, [2, 3, 4, 5], [1]),
        (3, [3, 4, 5, 1], [2]),
        (4, [4, 5, 1, 2], [3]),
        (5, [5, 1, 2, 3], [4]),
        (1, [1, 2, 3, 4], [5]),
    ]
    # Whoever sat out is dealt in the next round.
    for (_, _, out), (_, next_dealt, _) in itertools.pairwise(rounds):
        assert set(out) <= set(next_dealt)


seats = st.lists(st.integers(min_value=1, max_value=10), min_size=1, max_size=10, unique=True)


@given(eligible=seats, previous=st.one_of(st.none(), st.integers(min_value=1, max_value=10)))
def test_button_properties(eligible: list[int], previous: int | None) -> None:
    button = next_button(previous, eligible)
    assert button in eligible
    order = deal_order(button, eligible)
    assert order[0] == button
    assert sorted(order) == sorted(eligible)
    # Clockwise: at most one wrap from the highest seat back to the lowest.
    assert sum(1 for a, b in itertools.pairwise(order) if b < a) <= 1
    if previous is not None and previous not in eligible:
        # No eligible seat lies strictly between the previous button and the new one, clockwise.
        between = [
            s
            for s in eligible
            if (previous < s < button) or (button < previous and (s > previous or s < button))
        ]
        assert between == []


@given(eligible=seats)
def test_button_visits_every_seat_in_turn(eligible: list[int]) -> None:
    button = None
    seen = []
    for _ in range(len(eligible)):
        button = next_button(button, eligible)
        seen.append(button)
    assert seen == sorted(eligible)


class TestKill:
    def test_two_outright_wins_put_the_kill_on(self) -> None:
        state = after_pot(KillState(), 4, kill_enabled=True)
        assert state == KillState(streak_seat=4, streak_wins=1, kill_seat=None)
        state = after_pot(state, 4, kill_enabled=True)
        assert state == KillState(streak_seat=4, streak_wins=2, kill_seat=4)

    def test_the_kill_lasts_while_the_same_player_keeps_winning(self) -> None:
        state = KillState(streak_seat=4, streak_wins=2, kill_seat=4)
        assert after_pot(state, 4, kill_enabled=True).kill_seat == 4

    def test_another_winner_ends_it_and_starts_their_own_run(self) -> None:
        state = after_pot(KillState(streak_seat=4, streak_wins=3, kill_seat=4), 2, kill_enabled=True)
        assert state == KillState(streak_seat=2, streak_wins=1, kill_seat=None)

    def test_a_split_pot_breaks_the_run(self) -> None:
        assert after_pot(KillState(streak_seat=4, streak_wins=1), None, kill_enabled=True) == KillState()

    def test_no_kill_at_a_table_without_kill(self) -> None:
        state = after_pot(after_pot(KillState(), 4, kill_enabled=False), 4, kill_enabled=False)
        assert state.kill_seat is None
        assert state.streak_wins == 2

    def test_leaving_clears_the_players_streak(self) -> None:
        state = KillState(streak_seat=4, streak_wins=2, kill_seat=4)
        assert clear_seat(state, 4) == KillState()
        assert clear_seat(state, 3) == state
