"""Main and side pots, returned chips, hi/lo halves and odd chips (RULINGS section 2)."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from poker.pots import (
    Award,
    Pot,
    PotError,
    Returned,
    Share,
    Stake,
    build_pots,
    button_order,
    settle,
    split_amount,
    split_hi_lo,
)


def test_folded_chips_stay_in_the_pots_they_reached_and_same_seat_pots_merge() -> None:
    stakes = [Stake(1, 2000), Stake(2, 2000), Stake(3, 2000), Stake(5, 500, folded=True)]
    pots, returned = build_pots(stakes)
    assert pots == (Pot(6500, (1, 2, 3)),)
    assert returned == ()


def test_side_pots_from_contribution_levels() -> None:
    stakes = [Stake(1, 300), Stake(2, 700), Stake(3, 1500), Stake(4, 1500), Stake(5, 100, folded=True)]
    pots, returned = build_pots(stakes)
    assert pots == (
        Pot(100 * 5 + 200 * 4, (1, 2, 3, 4)),
        Pot(400 * 3, (2, 3, 4)),
        Pot(800 * 2, (3, 4)),
    )
    assert returned == ()


def test_uncalled_chips_go_back_to_their_owner() -> None:
    pots, returned = build_pots([Stake(1, 1000), Stake(2, 400), Stake(3, 400)])
    assert pots == (Pot(1200, (1, 2, 3)),)
    assert returned == (Returned(1, 600),)


def test_a_side_pot_with_one_live_seat_is_still_a_pot() -> None:
    # seat 3 called the raise and folded later: the slice is seat 2's pot, not returned chips
    pots, returned = build_pots([Stake(1, 100), Stake(2, 500), Stake(3, 500, folded=True)])
    assert pots == (Pot(300, (1, 2)), Pot(800, (2,)))
    assert returned == ()


def test_chips_no_live_player_reached_are_refused() -> None:
    with pytest.raises(PotError, match="seats 2, 3"):
        build_pots([Stake(1, 100), Stake(2, 500, folded=True), Stake(3, 500, folded=True)])
    with pytest.raises(PotError, match="negative"):
        build_pots([Stake(1, -1), Stake(2, 5)])


def test_button_order_starts_left_of_the_button_and_ends_on_it() -> None:
    assert list(button_order([1, 3, 5, 8], button=5)) == [8, 1, 3, 5]
    assert list(button_order([2, 4, 6], button=9)) == [2, 4, 6]
    assert list(button_order([2, 4, 6], button=4)) == [6, 2, 4]


def test_split_amount_odd_chips_one_each_in_order() -> None:
    assert split_amount(700, [4, 2, 9], 100, Share.WHOLE) == [
        Award(4, 300, Share.WHOLE),
        Award(2, 200, Share.WHOLE),
        Award(9, 200, Share.WHOLE),
    ]
    assert split_amount(800, [4, 2, 9], 100, Share.HIGH) == [
        Award(4, 300, Share.HIGH),
        Award(2, 300, Share.HIGH),
        Award(9, 200, Share.HIGH),
    ]


def test_split_amount_below_one_chip_goes_to_the_next_seat_in_order() -> None:
    # 3 chips of 100 and 50 below a chip: 200 / 100 / 50 would give seat 4 two odd pieces
    assert split_amount(350, [4, 2], 100, Share.WHOLE) == [
        Award(4, 200, Share.WHOLE),
        Award(2, 150, Share.WHOLE),
    ]
    assert split_amount(250, [4, 2], 100, Share.WHOLE) == [
        Award(4, 150, Share.WHOLE),
        Award(2, 100, Share.WHOLE),
    ]
    assert split_amount(50, [4, 2], 100, Share.WHOLE) == [Award(4, 50, Share.WHOLE)]


def test_hi_lo_halves_high_takes_the_odd_chip() -> None:
    assert split_hi_lo(6500, 100) == (3300, 3200)
    assert split_hi_lo(6400, 100) == (3200, 3200)
    assert split_hi_lo(650, 100) == (350, 300)  # the 50 below a chip goes high too


def test_hi_lo_no_qualifying_low_high_scoops() -> None:
    s = settle([Stake(1, 500), Stake(2, 500)], chip=100, high={1: 10, 2: 20}, low={}, high_order={1: 0, 2: 1})
    assert s.pots[0].awards == (Award(2, 1000, Share.WHOLE),)
    assert s.net == {1: -500, 2: 500}


def test_hi_lo_split_and_odd_chip_in_each_half() -> None:
    # 1300 = 13 chips: high 7, low 6.  High tied between 1 and 3 (odd chip by order: 3 first)
    s = settle(
        [Stake(1, 500), Stake(2, 300), Stake(3, 500)],
        chip=100,
        high={1: 50, 2: 10, 3: 50},
        low={2: 7},
        high_order={3: 0, 1: 1, 2: 2},
    )
    main, side = s.pots
    assert main.amount == 900
    assert main.seats == (1, 2, 3)
    assert main.awards == (
        Award(3, 300, Share.HIGH),
        Award(1, 200, Share.HIGH),
        Award(2, 400, Share.LOW),
    )
    # side pot between 1 and 3: no low there, the high hands split it
    assert side.amount == 400
    assert side.seats == (1, 3)
    assert side.awards == (Award(3, 200, Share.WHOLE), Award(1, 200, Share.WHOLE))
    assert s.net == {1: -100, 2: 100, 3: 0}


def test_main_and_side_pots_split_separately() -> None:
    # 3 ways in the main pot of 700 -> odd chip; 2 ways in the side pot of 400
    s = settle(
        [Stake(1, 100), Stake(2, 300), Stake(3, 300), Stake(4, 100, folded=True)],
        chip=50,
        high={1: 9, 2: 9, 3: 9},
        high_order={2: 0, 3: 1, 1: 2},
    )
    assert [p.amount for p in s.pots] == [400, 400]
    assert s.pots[0].awards == (
        Award(2, 150, Share.WHOLE),
        Award(3, 150, Share.WHOLE),
        Award(1, 100, Share.WHOLE),
    )
    assert s.pots[1].awards == (Award(2, 200, Share.WHOLE), Award(3, 200, Share.WHOLE))


def test_low_only_game_pays_the_whole_pot_to_the_low() -> None:
    s = settle([Stake(1, 200), Stake(2, 200)], chip=1, low={1: 5, 2: 9}, high_order={1: 0, 2: 1})
    assert s.pots[0].awards == (Award(2, 400, Share.WHOLE),)


def test_settle_refuses_a_seat_twice_and_a_bad_chip() -> None:
    with pytest.raises(PotError, match="twice"):
        settle([Stake(1, 5), Stake(1, 5)], chip=1, high={1: 1}, high_order={1: 0})
    with pytest.raises(PotError, match="chip"):
        settle([Stake(1, 5)], chip=0, high={1: 1}, high_order={1: 0})


# ----------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------


@st.composite
def hands(
    draw: st.DrawFn,
) -> tuple[list[Stake], int, dict[int, int] | None, dict[int, int] | None, dict[int, int]]:
    chip = draw(st.sampled_from([1, 5, 25, 100]))
    seats = draw(st.lists(st.integers(1, 10), min_size=1, max_size=9, unique=True))
    exact = draw(st.booleans())
    stakes = []
    for seat in seats:
        units = draw(st.integers(0, 40))
        extra = 0 if exact else draw(st.integers(0, chip - 1))
        stakes.append(Stake(seat, units * chip + extra, draw(st.booleans())))
    mode = draw(st.sampled_from(["high", "low", "hi-lo"]))
    live = [s.seat for s in stakes if not s.folded]
    assume(live)
    strength = st.integers(0, 3)  # few values: many ties
    high = {seat: draw(strength) for seat in live} if mode != "low" else None
    low = None
    if mode == "low":
        low = {seat: draw(strength) for seat in live}
    elif mode == "hi-lo":
        low = {seat: draw(strength) for seat in live if draw(st.booleans())}
    order = {seat: i for i, seat in enumerate(draw(st.permutations(live)))}
    return stakes, chip, high, low, order


def _all_folded_slice(stakes: list[Stake]) -> bool:
    levels = sorted({s.put_in for s in stakes if s.put_in > 0})
    for level in levels:
        reached = [s for s in stakes if s.put_in >= level]
        if len(reached) > 1 and all(s.folded for s in reached):
            return True
    return False


@settings(max_examples=400, deadline=None)
@given(hands())
def test_pot_properties(
    case: tuple[list[Stake], int, dict[int, int] | None, dict[int, int] | None, dict[int, int]],
) -> None:
    stakes, chip, high, low, order = case
    try:
        s = settle(stakes, chip=chip, high=high, low=low, high_order=order)
    except PotError:
        assert _all_folded_slice(stakes)
        return
    assert not _all_folded_slice(stakes)
    put = {x.seat: x.put_in for x in stakes}
    folded = {x.seat for x in stakes if x.folded}
    won: dict[int, int] = defaultdict(int)
    for pot in s.pots:
        assert pot.amount > 0
        # awards of each pot sum to the pot
        assert sum(a.amount for a in pot.awards) == pot.amount
        # only live seats may win a pot, and only a pot they reached
        assert not set(pot.seats) & folded
        for a in pot.awards:
            assert a.seat in pot.seats
            won[a.seat] += a.amount
        # the best hand(s) among the pot's seats win; tied hands are within one chip
        by_share: dict[Share, list[Award]] = defaultdict(list)
        for a in pot.awards:
            by_share[a.share].append(a)
        for share, awards in by_share.items():
            table = low if share is Share.LOW or (share is Share.WHOLE and high is None) else high
            assert table is not None
            candidates = [seat for seat in pot.seats if seat in table]
            best = max(table[seat] for seat in candidates)
            assert {a.seat for a in awards} <= {seat for seat in candidates if table[seat] == best}
            amounts = [a.amount for a in awards]
            assert max(amounts) - min(amounts) <= chip  # no seat gets more than one odd chip
            assert len({a.seat for a in awards}) == len(awards)
        if high is not None and low is not None and len(pot.seats) > 1 and any(s in low for s in pot.seats):
            assert {a.share for a in pot.awards} <= {Share.HIGH, Share.LOW}
            high_total = sum(a.amount for a in pot.awards if a.share is Share.HIGH)
            assert high_total - (pot.amount - high_total) in range(0, 2 * chip)
    # a seat never wins more from an opponent than it put in itself
    for seat, amount in won.items():
        assert amount <= sum(min(put[seat], other) for other in put.values())
    # returned chips: only the top contributor's unmatched excess
    for r in s.returned:
        others = [p for seat, p in put.items() if seat != r.seat]
        assert r.amount == put[r.seat] - max(others, default=0)
    # chips in equal chips out
    total_out = sum(a.amount for pot in s.pots for a in pot.awards) + sum(r.amount for r in s.returned)
    assert total_out == sum(put.values())
    assert sum(s.net.values()) == 0
    assert set(s.net) == set(put)
    for seat in put:
        back = sum(r.amount for r in s.returned if r.seat == seat)
        assert s.net[seat] == won[seat] + back - put[seat]


# ----------------------------------------------------------------------------------------
# settle() against a plain reading of the rules (its shortcuts must not change any award)
# ----------------------------------------------------------------------------------------


def _reference_high_settlement(
    stakes: list[Stake], chip: int, high: dict[int, int], order: dict[int, int]
) -> tuple[list[tuple[int, tuple[int, ...], list[Award]]], list[Returned], dict[int, int]]:
    """Pots sliced level by level (same seats: same pot), each read in full, no shortcuts."""
    pots: list[tuple[int, tuple[int, ...]]] = []
    returned: list[Returned] = []
    prev = 0
    for level in sorted({s.put_in for s in stakes if s.put_in > 0}):
        reached = [s for s in stakes if s.put_in >= level]
        amount, prev = (level - prev) * len(reached), level
        if len(reached) == 1:
            returned.append(Returned(reached[0].seat, amount))
            continue
        seats = tuple(sorted(s.seat for s in reached if not s.folded))
        if pots and pots[-1][1] == seats:
            pots[-1] = (pots[-1][0] + amount, seats)
        else:
            pots.append((amount, seats))
    net = {s.seat: -s.put_in for s in sorted(stakes, key=lambda s: s.seat)}
    results = []
    for amount, seats in pots:
        best = max(high[seat] for seat in seats)
        winners = sorted((seat for seat in seats if high[seat] == best), key=order.__getitem__)
        awards = split_amount(amount, winners, chip, Share.WHOLE)
        for a in awards:
            net[a.seat] += a.amount
        results.append((amount, seats, awards))
    for r in returned:
        net[r.seat] += r.amount
    return results, returned, net


def test_settle_high_agrees_with_a_plain_reading_on_random_side_pots() -> None:
    """Many side pots, folds at every level and frequent ties: settle() (which takes the winner
    of a pot as the winner of every later pot it is in, and merges slices without comparing
    their seats) gives exactly the pots, awards, returns and nets of the plain reading."""
    rng = random.Random(20261125)
    compared = 0
    for _ in range(20_000):
        chip = rng.choice([1, 25, 100])
        seats = rng.sample(range(1, 11), rng.randint(2, 9))
        levels = [0, 1, 100, 200, 300, 700, 1500, 1500, 1525]
        stakes = [Stake(seat, rng.choice(levels), rng.random() < 0.3) for seat in seats]
        live = [s.seat for s in stakes if not s.folded]
        if not live:
            continue
        spread = rng.choice([2, 4, 1000])  # few strengths: many ties
        high = {seat: rng.randrange(spread) for seat in live}
        order = {seat: i for i, seat in enumerate(rng.sample(live, len(live)))}
        try:
            got = settle(stakes, chip=chip, high=high, high_order=order)
        except PotError:
            assert _all_folded_slice(stakes)
            continue
        pots, returned, net = _reference_high_settlement(stakes, chip, high, order)
        assert [(p.amount, p.seats, list(p.awards)) for p in got.pots] == pots
        assert list(got.returned) == returned
        assert list(got.net.items()) == list(net.items())
        compared += 1
    assert compared > 15_000


def test_negative_put_in_names_the_first_such_seat_as_given() -> None:
    stakes = [Stake(7, -5), Stake(2, 100), Stake(3, -5)]
    with pytest.raises(PotError, match=r"^seat 7: negative amount put in \(-5\)$"):
        build_pots(stakes)
    with pytest.raises(PotError, match=r"^seat 7: negative amount put in \(-5\)$"):
        settle(stakes, chip=1, high={2: 1, 3: 1, 7: 1}, high_order={2: 0, 3: 1, 7: 2})
