"""Cross-checks of the engine's hand reading against independent evaluators, 100,000+ seeded
random deals each.  Orderings are compared, not raw numbers: for consecutive deals a and b the
engine must say a < b, a == b or a > b exactly when the reference does.

* high hands: eval7 (an independent C evaluator; the engine uses phevaluator);
* Omaha high: eval7 over all 60 two-plus-three combinations;
* ace-to-five lows and 8-or-better lows: a deliberately naive reference written here that
  enumerates every 5-card subset, ranks it by the textbook rule and keeps the best.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from itertools import combinations
from typing import Any

import eval7
import pytest

from poker.cards import FULL_DECK, JOKER, Card
from poker.hands import best_high, best_low_a5, omaha_high, omaha_low

pytestmark = pytest.mark.slow

N = 100_000
E7 = [eval7.Card(str(c)) for c in FULL_DECK]
HOLE_PAIRS = list(combinations(range(4), 2))
BOARD_TRIPLES = list(combinations(range(5), 3))


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def assert_same_order(ours: Sequence[Any], theirs: Sequence[Any], deals: Sequence[Any], what: str) -> None:
    """Bigger is better in both sequences."""
    mismatches = [
        i
        for i in range(len(ours) - 1)
        if (ours[i] > ours[i + 1]) - (ours[i] < ours[i + 1])
        != (theirs[i] > theirs[i + 1]) - (theirs[i] < theirs[i + 1])
    ]
    assert not mismatches, (
        f"{what}: {len(mismatches)} orderings differ, first {deals[mismatches[0]]}, "
        f"{deals[mismatches[0] + 1]}"
    )


def deals(seed: int, size: int, n: int = N) -> list[list[Card]]:
    rng = random.Random(seed)
    deck = list(FULL_DECK)
    return [rng.sample(deck, size) for _ in range(n)]


# ----------------------------------------------------------------------------------------
# Naive ace-to-five reference: every 5-card subset, ranked by the textbook rule
# ----------------------------------------------------------------------------------------

SHAPE_ORDER = {(1, 1, 1, 1, 1): 0, (2, 1, 1, 1): 1, (2, 2, 1): 2, (3, 1, 1): 3, (3, 2): 4, (4, 1): 5}


@cache  # memoised only for speed: the same five ranks always rank the same
def naive_low_key(ranks: tuple[int, ...]) -> tuple[int, ...]:
    """Lower is better: (pairing shape, then the ranks by group size and height, highest first)."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    return (SHAPE_ORDER[tuple(c for _, c in groups)], *(r for r, _ in groups))


@cache
def naive_8_key(ranks: tuple[int, ...]) -> tuple[int, ...] | None:
    """Five unpaired ranks 8 or lower, highest first (lower is better); None if not a low."""
    if len(set(ranks)) == 5 and max(ranks) <= 8:
        return tuple(sorted(ranks, reverse=True))
    return None


def low_rank(card: Card) -> int:
    return 1 if card.rank == 14 else card.rank


def naive_best_low(cards: Sequence[Card]) -> tuple[int, ...]:
    ranks = sorted(low_rank(c) for c in cards)  # combinations of a sorted list are sorted
    return min(map(naive_low_key, combinations(ranks, 5)))


def naive_best_low_with_joker(cards: Sequence[Card]) -> tuple[int, ...]:
    """The joker may be any rank: the best choice is the reference (it is the lowest absent rank)."""
    others = [low_rank(c) for c in cards if c is not JOKER]
    return min(naive_low_key(tuple(sorted([*others, r]))) for r in range(1, 14) if others.count(r) < 4)


def naive_8_or_better(ranks_sets: Iterable[tuple[int, ...]]) -> tuple[int, ...] | None:
    """Best qualifying low among candidate 5-rank tuples (lower is better), None if none."""
    qualifying = [key for key in map(naive_8_key, ranks_sets) if key is not None]
    return min(qualifying) if qualifying else None


def negate(key: tuple[int, ...] | None) -> tuple[int, ...]:
    """Turn 'lower is better' (None worst) into 'bigger is better' for assert_same_order."""
    return (-1,) if key is None else tuple(-x for x in (0, *key))


# ----------------------------------------------------------------------------------------
# High hands
# ----------------------------------------------------------------------------------------


def test_seven_card_high_ordering_matches_eval7() -> None:
    hands = deals(101, 7)
    ours = [best_high(h).strength for h in hands]
    theirs = [eval7.evaluate([E7[c.code] for c in h]) for h in hands]
    assert_same_order(ours, theirs, hands, "7-card high")


def test_seven_card_high_shows_five_cards_worth_the_hand() -> None:
    for h in deals(102, 7, 30_000):
        hand = best_high(h)
        assert len(hand.cards) == 5
        assert set(hand.cards) <= set(h)
        assert eval7.evaluate([E7[c.code] for c in hand.cards]) == eval7.evaluate([E7[c.code] for c in h])


def test_five_and_six_card_high_ordering_matches_eval7() -> None:
    for size, seed in ((5, 103), (6, 104)):
        hands = deals(seed, size, 30_000)
        ours = [best_high(h).strength for h in hands]
        theirs = [eval7.evaluate([E7[c.code] for c in h]) for h in hands]
        assert_same_order(ours, theirs, hands, f"{size}-card high")


def reference_omaha(cards: Sequence[Card]) -> int:
    hole = [E7[c.code] for c in cards[:4]]
    board = [E7[c.code] for c in cards[4:]]
    pairs = [[hole[i], hole[j]] for i, j in HOLE_PAIRS]
    triples = [[board[p], board[q], board[r]] for p, q, r in BOARD_TRIPLES]
    return max(map(eval7.evaluate, [pair + triple for pair in pairs for triple in triples]))


def test_omaha_high_ordering_matches_eval7_two_plus_three() -> None:
    hands = deals(201, 9)
    read = [omaha_high(h[:4], h[4:]) for h in hands]
    theirs = [reference_omaha(h) for h in hands]
    assert_same_order([r.strength for r in read], theirs, hands, "Omaha high")
    for h, hand, best in zip(hands[:20_000], read, theirs, strict=False):
        # the five cards shown are two hole cards and three board cards making the best hand
        assert len(set(hand.cards) & set(h[:4])) == 2
        assert len(set(hand.cards) & set(h[4:])) == 3
        assert eval7.evaluate([E7[c.code] for c in hand.cards]) == best


# ----------------------------------------------------------------------------------------
# Lows
# ----------------------------------------------------------------------------------------


def check_lows(
    hands: list[list[Card]], ours_fn: Callable[[list[Card]], Any], ref: Callable[[list[Card]], Any], what: str
) -> None:
    ours = [ours_fn(h) for h in hands]
    theirs = [ref(h) for h in hands]
    assert_same_order(ours, theirs, hands, what)


def test_ace_to_five_low_ordering_matches_naive_seven_cards() -> None:
    hands = deals(301, 7)
    check_lows(hands, lambda h: best_low_a5(h).strength, lambda h: negate(naive_best_low(h)), "razz low")


def test_ace_to_five_low_ordering_matches_naive_five_cards_with_pairs() -> None:
    # a small deck of low ranks makes paired lows common
    rng = random.Random(302)
    small = [c for c in FULL_DECK if c.rank in (14, 2, 3, 4, 5, 6)]
    hands = [rng.sample(small, 5) for _ in range(50_000)]
    check_lows(hands, lambda h: best_low_a5(h).strength, lambda h: negate(naive_best_low(h)), "5-card low")


def test_lowball_joker_ordering_matches_naive() -> None:
    rng = random.Random(303)
    deck = list(FULL_DECK)
    hands = [
        [JOKER, *rng.sample(deck, 4)] if rng.random() < 0.5 else rng.sample(deck, 5) for _ in range(50_000)
    ]

    def ref(h: list[Card]) -> tuple[int, ...]:
        return negate(naive_best_low_with_joker(h) if JOKER in h else naive_best_low(h))

    check_lows(hands, lambda h: best_low_a5(h, joker_ok=True).strength, ref, "lowball with joker")


def test_stud_eight_or_better_ordering_matches_naive() -> None:
    hands = deals(401, 7)

    def ours(h: list[Card]) -> int:
        low = best_low_a5(h)
        return low.strength if low.qualifies_8 else -1

    def ref(h: list[Card]) -> int:
        key = naive_8_or_better(combinations(sorted(low_rank(c) for c in h), 5))
        return -1 if key is None else (1 << 30) - sum(r << (4 * (4 - i)) for i, r in enumerate(key))

    hands_ours = [ours(h) for h in hands]
    hands_ref = [ref(h) for h in hands]
    assert_same_order(hands_ours, hands_ref, hands, "stud 8-or-better")
    assert sum(1 for x in hands_ours if x != -1) > N // 10  # plenty of qualifying lows


def test_omaha_eight_or_better_ordering_matches_naive_two_plus_three() -> None:
    hands = deals(501, 9)

    def ours(h: list[Card]) -> int:
        low = omaha_low(h[:4], h[4:])
        return low.strength if low.qualifies_8 else -1

    def ref(h: list[Card]) -> int:
        hole = [low_rank(c) for c in h[:4]]
        board = [low_rank(c) for c in h[4:]]
        pairs = [(hole[i], hole[j]) for i, j in HOLE_PAIRS]
        triples = [(board[p], board[q], board[r]) for p, q, r in BOARD_TRIPLES]
        key = naive_8_or_better(pair + triple for pair in pairs for triple in triples)
        return -1 if key is None else (1 << 30) - sum(r << (4 * (4 - i)) for i, r in enumerate(key))

    ours_values = [ours(h) for h in hands]
    ref_values = [ref(h) for h in hands]
    assert_same_order(ours_values, ref_values, hands, "Omaha 8-or-better")
    assert sum(1 for x in ours_values if x != -1) > N // 10
    for h in hands[:20_000]:
        low = omaha_low(h[:4], h[4:])
        if low.qualifies_8:
            assert len(set(low.cards) & set(h[:4])) == 2
            assert len(set(low.cards) & set(h[4:])) == 3
