"""The pure button and kill rotation (tables/buttons.py): no database."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables.buttons import (
    KillState,
    NoFeeBand,
    RotationError,
    after_pot,
    choose_dealt,
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


# --- Who can pay: the fixed point (choose_dealt) ---------------------------------------------------

# Schedule A of seed 004 for a $4-$8 game: $1 for 1-4 players, $2 for 5-6, $3 for 7-10; the button
# pays (RULINGS §6). In cents, with a $1 chip to keep in play.
SCHEDULE_A = {range(1, 5): 100, range(5, 7): 200, range(7, 11): 300}


def button_pays(bands: dict[range, int]) -> Callable[[int], list[int]]:
    def fees_for(n: int) -> list[int]:
        for band, fee in bands.items():
            if n in band:
                return [fee] + [0] * (n - 1)
        raise NoFeeBand(n)

    return fees_for


def test_a_player_who_can_pay_at_the_band_they_are_dealt_at_is_dealt_in() -> None:
    """The issue's case: five seated on schedule A; seat 1 has $0 and seat 2, the next button,
    has $2. At five players the button's fee is $2 and seat 2 can't keep a chip; but once seat
    1 (who can never play) is out, four are dealt at $1 and seat 2 can pay. Today's code left
    both out and dealt three."""
    chips = {1: 0, 2: 200, 3: 5000, 4: 5000, 5: 5000}
    choice = choose_dealt(
        eligible=chips, previous_button=1, chips=chips, fees_for=button_pays(SCHEDULE_A), keep_in_play=100
    )
    assert choice.dealt == (2, 3, 4, 5)
    assert choice.button == 2
    assert choice.fees == (100, 0, 0, 0)
    # Seat 1 would not be the button: it owes no fee but can't keep a chip in play.
    assert choice.cannot_pay == ((1, 0),)


def test_a_player_left_out_as_the_button_can_come_back_at_another_position() -> None:
    """Option 2 fees (button $2, each other player $1 at up to four players; double that at five
    or six). Seats 1-3 can't pay as the button, and leaving each out moves the button to the
    next; seat 4 can. Found by the property test below: stopping when too few remain dealt
    nobody, though seats 4 (button) and 6 can both pay."""

    def option_2(n: int) -> list[int]:
        fee = 100 if n <= 4 else 200
        return [2 * fee] + [fee] * (n - 1)

    chips = {1: 250, 2: 250, 3: 250, 4: 300, 5: 0, 6: 200}
    choice = choose_dealt(
        eligible=chips, previous_button=None, chips=chips, fees_for=option_2, keep_in_play=100
    )
    assert choice.dealt == (4, 6)
    assert choice.fees == (200, 100)
    assert [seat for seat, _fee in choice.cannot_pay] == [1, 2, 3, 5]


def _feasible(
    seats: frozenset[int],
    previous: int | None,
    chips: dict[int, int],
    fees_for: Callable[[int], list[int]],
    keep: int,
    max_hands: int | None,
) -> bool:
    if len(seats) < 2:
        return False
    button = next_button(previous, seats)
    dealt = deal_order(button, seats, max_hands=max_hands)
    try:
        fees = fees_for(len(dealt))
    except NoFeeBand:
        return False
    return all(chips[s] - f >= keep for s, f in zip(dealt, fees, strict=True))


class DealCase(NamedTuple):
    chips: dict[int, int]
    previous: int | None
    fees_for: Callable[[int], list[int]]
    max_hands: int | None
    rising: bool


@st.composite
def deal_cases(draw: st.DrawFn) -> DealCase:
    seats = draw(st.lists(st.integers(1, 10), min_size=2, max_size=8, unique=True))
    chips = {s: draw(st.sampled_from([0, 100, 150, 200, 250, 300, 400, 500, 5000])) for s in seats}
    previous = draw(st.one_of(st.none(), st.integers(1, 10)))
    # Fee bands rising with the number of players, as every schedule of 004 does; or, now and
    # then, a schedule whose bands don't rise (a fixed point must still be reached).
    f1 = draw(st.sampled_from([0, 100, 200]))
    f2 = f1 + draw(st.sampled_from([0, 100, -100]))
    f3 = f2 + draw(st.sampled_from([0, 100, 200, -200]))
    f2, f3 = max(f2, 0), max(f3, 0)
    payer = draw(st.sampled_from(["button", "each", "button_and_others"]))

    def fees_for(n: int) -> list[int]:
        fee = f1 if n <= 4 else f2 if n <= 6 else f3
        if payer == "each":
            return [fee] * n
        if payer == "button_and_others":
            return [2 * fee] + [fee] * (n - 1)
        return [fee] + [0] * (n - 1)

    max_hands = draw(st.sampled_from([None, 4]))
    return DealCase(chips, previous, fees_for, max_hands, rising=f1 <= f2 <= f3)


@given(case=deal_cases())
def test_choose_dealt_is_a_largest_fixed_point(case: DealCase) -> None:
    """Against a brute-force reading of every subset of the players: what is dealt is a set in
    which everyone can pay at the band it is dealt at, no one left out could be added with
    everyone still able to pay, and no larger such set exists (with bands rising with the
    number of players)."""
    chips, previous, fees_for, max_hands = case.chips, case.previous, case.fees_for, case.max_hands
    keep = 100
    seats = frozenset(chips)
    choice = choose_dealt(
        eligible=seats,
        previous_button=previous,
        chips=chips,
        fees_for=fees_for,
        keep_in_play=keep,
        max_hands=max_hands,
    )
    feasible = [
        frozenset(sub)
        for size in range(2, len(seats) + 1)
        for sub in itertools.combinations(sorted(seats), size)
        if _feasible(frozenset(sub), previous, chips, fees_for, keep, max_hands)
    ]
    left_out = {seat for seat, _fee in choice.cannot_pay}
    if not choice.dealt:
        assert not feasible
        assert left_out <= seats
        return
    kept = seats - left_out
    assert _feasible(kept, previous, chips, fees_for, keep, max_hands)
    assert all(not _feasible(kept | {p}, previous, chips, fees_for, keep, max_hands) for p in left_out)
    if case.rising:
        assert len(kept) == max(len(s) for s in feasible)
    assert choice.button == next_button(previous, kept)
    assert list(choice.dealt) == deal_order(choice.button, kept, max_hands=max_hands)
