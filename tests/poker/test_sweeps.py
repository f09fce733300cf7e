"""Clean sweeps and naturals: the search in poker.sweeps against a brute-force reference.

The reference below tries every way of splitting the 13 cards (itertools combinations) and
shares no code with the module under test.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from itertools import combinations

import pytest

from poker.cards import FULL_DECK, Card, parse_cards
from poker.sweeps import SweepKind, find_sweeps, has_sweep, parse_sweep_kind, summarise, sweep_tiebreak

K = SweepKind


# --------------------------------------------------------------------------------------
# Brute-force reference
# --------------------------------------------------------------------------------------


def _straight(cards: Sequence[Card]) -> bool:
    ranks = sorted(c.rank for c in cards)
    if len(set(ranks)) != len(ranks):
        return False
    if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        return True
    low = sorted(1 if r == 14 else r for r in ranks)  # the ace played low
    return low == list(range(1, len(ranks) + 1))


def _flush(cards: Sequence[Card]) -> bool:
    return len({c.suit for c in cards}) == 1


def _three_of(cards: Sequence[Card], ok: Callable[[Sequence[Card]], bool]) -> bool:
    """Can the 13 cards be split 3 + 5 + 5 with every part ``ok``?"""
    for front in combinations(cards, 3):
        if not ok(front):
            continue
        rest = [c for c in cards if c not in front]
        for middle in combinations(rest, 5):
            if ok(middle) and ok([c for c in rest if c not in middle]):
                return True
    return False


def _pairable(cards: list[Card]) -> bool:
    """Can ``cards`` be matched into pairs of equal rank (by trying every partner)?"""
    if not cards:
        return True
    first, rest = cards[0], cards[1:]
    return any(rest[i].rank == first.rank and _pairable(rest[:i] + rest[i + 1 :]) for i in range(len(rest)))


def reference(cards: Sequence[Card]) -> set[SweepKind]:
    ranks = Counter(c.rank for c in cards)
    red = sum(1 for c in cards if c.suit in "hd")
    out: set[SweepKind] = set()
    if len(ranks) == 13:
        out.add(K.DRAGON)
    if red == 13 or red == 0:
        out.add(K.THIRTEEN_COLOURS)
    if red >= 12 or red <= 1:
        out.add(K.TWELVE_COLOURS)
    if any(_pairable(list(twelve)) for twelve in combinations(cards, 12)):
        out.add(K.SIX_PAIRS)
    if _three_of(cards, lambda h: len(h) in (3, 5) and _straight(h)):
        out.add(K.THREE_STRAIGHTS)
    if _three_of(cards, _flush):
        out.add(K.THREE_FLUSHES)
    if _three_of(cards, lambda h: _straight(h) and _flush(h)):
        out.add(K.THREE_STRAIGHT_FLUSHES)
    if sum(1 for n in ranks.values() if n >= 3) >= 4:
        out.add(K.FOUR_TRIPS)
    if sum(1 for n in ranks.values() if n == 4) >= 3:
        out.add(K.THREE_QUADS)
    if not any(c.rank in (11, 12, 13) for c in cards):
        out.add(K.NO_PICTURES)
    if all(c.rank >= 11 for c in cards):
        out.add(K.ALL_PICTURES)
    if all(c.rank >= 6 for c in cards):
        out.add(K.SIX_AND_ABOVE)
    return out


# --------------------------------------------------------------------------------------
# Hands to check: random, and random hands biased towards sweeps
# --------------------------------------------------------------------------------------

RUNS3 = [[1, 2, 3], *[[r, r + 1, r + 2] for r in range(2, 13)]]
RUNS5 = [[1, 2, 3, 4, 5], *[[r + i for i in range(5)] for r in range(2, 11)]]


def _card(rank: int, suit: int) -> Card:
    return FULL_DECK[((14 if rank == 1 else rank) - 2) * 4 + suit]


def _from_runs(rng: random.Random, suited: bool) -> list[Card] | None:
    runs = [rng.choice(RUNS3), rng.choice(RUNS5), rng.choice(RUNS5)]
    cards: list[Card] = []
    for run in runs:
        suit = rng.randrange(4)
        cards.extend(_card(r, suit if suited else rng.randrange(4)) for r in run)
    return cards if len(set(cards)) == 13 else None


def _mutate(rng: random.Random, cards: list[Card], n: int) -> list[Card]:
    cards = list(cards)
    for _ in range(n):
        out = rng.randrange(13)
        new = rng.choice([c for c in FULL_DECK if c not in cards])
        cards[out] = new
    return cards


def sample_hands(seed: int, n: int) -> list[list[Card]]:
    rng = random.Random(seed)
    hands: list[list[Card]] = []
    while len(hands) < n:
        kind = len(hands) % 6
        cards: list[Card] | None
        if kind == 0:
            cards = rng.sample(FULL_DECK, 13)
        elif kind in (1, 2):  # three straights (or straight flushes), maybe broken
            cards = _from_runs(rng, suited=kind == 2)
            if cards is not None and rng.random() < 0.5:
                cards = _mutate(rng, cards, 1)
        elif kind == 3:  # few ranks: pairs, trips, quads
            ranks = rng.sample(range(2, 15), rng.randint(4, 7))
            cards = rng.sample([c for c in FULL_DECK if c.rank in ranks], 13)
        elif kind == 4:  # two or three suits: flushes, colours
            suits = rng.sample("cdhs", rng.randint(2, 3))
            cards = rng.sample([c for c in FULL_DECK if c.suit in suits], 13)
        else:  # many distinct ranks: dragons and near-dragons
            cards = [_card(r, rng.randrange(4)) for r in range(2, 15)]
            if rng.random() < 0.5:
                cards = _mutate(rng, cards, 1)
        if cards is not None:
            hands.append(cards)
    return hands


SEEDS = range(4)
PER_SEED = 40


@cache
def checked_sample(seed: int) -> tuple[tuple[tuple[Card, ...], frozenset[SweepKind]], ...]:
    """The sample hands of ``seed`` with the reference's answer for each."""
    return tuple((tuple(cards), frozenset(reference(cards))) for cards in sample_hands(seed, PER_SEED))


@pytest.mark.parametrize("seed", SEEDS)
def test_search_matches_brute_force(seed: int) -> None:
    for cards, expected in checked_sample(seed):
        assert find_sweeps(summarise(cards)) == expected, " ".join(str(c) for c in cards)


def test_the_sample_exercises_every_arrangement_sweep() -> None:
    seen: Counter[SweepKind] = Counter()
    for seed in SEEDS:
        for _, found in checked_sample(seed):
            seen.update(found)
    for kind in (K.THREE_STRAIGHTS, K.THREE_FLUSHES, K.THREE_STRAIGHT_FLUSHES, K.SIX_PAIRS, K.DRAGON):
        assert seen[kind] >= 3, kind
    # the biased hands also give near misses: not every run-built hand is three straights
    assert seen[K.THREE_STRAIGHTS] < len(SEEDS) * PER_SEED // 3


# --------------------------------------------------------------------------------------
# Examples
# --------------------------------------------------------------------------------------


def sweeps(text: str) -> frozenset[SweepKind]:
    return find_sweeps(summarise(parse_cards(text)))


class TestExamples:
    def test_dragon(self) -> None:
        found = sweeps("2c 3d 4h 5s 6c 7d 8h 9s Tc Jh Qs Kc Ad")
        assert K.DRAGON in found
        assert K.THREE_STRAIGHTS in found  # A23 + 45678 + 9TJQK

    def test_six_pairs_counts_quads_as_two_pairs(self) -> None:
        assert K.SIX_PAIRS in sweeps("2c 2d 2h 2s 5c 5d 7h 7s 9c 9d Jh Js Ac")
        assert K.SIX_PAIRS not in sweeps("2c 2d 2h 3s 5c 5d 7h 7s 9c 9d Jh Js Ac")  # trips are 1 pair

    def test_three_straights_with_ace_low_and_ace_high_fronts(self) -> None:
        assert K.THREE_STRAIGHTS in sweeps("Ac 2d 3h  4s 5c 6d 7h 8s  9c Td Jh Qs Kc")  # A-2-3 front
        assert K.THREE_STRAIGHTS in sweeps("Qc Kd Ah  2s 3c 4d 5h 6s  5c 6d 7h 8s 9c")  # Q-K-A front
        assert K.THREE_STRAIGHTS in sweeps("Ac 2d 3h  Ad 2s 3c 4d 5h  Ts Jc Qd Kh As")  # three aces
        # K-A-2 is not a straight (and without a queen the king fits no other run)
        assert K.THREE_STRAIGHTS not in sweeps("Kc Ad 2h  3s 4c 5d 6h 7s  8c 9d Th Js Jc")

    def test_a2345_is_the_smallest_five_card_straight(self) -> None:
        assert K.THREE_STRAIGHTS in sweeps("Ac 2d 3h 4s 5c  6d 7h 8s 9c Td  Jh Qs Kc")

    def test_three_flushes_patterns(self) -> None:
        assert K.THREE_FLUSHES in sweeps("2c 5c 9c 2d 4d 6d 8d Qd 3h 5h 7h 9h Kh")  # 3 + 5 + 5
        assert K.THREE_FLUSHES in sweeps("2c 5c 9c Jc Kc 2d 4d 6d 8d Qd Td 3d 5d")  # 5 + 8
        assert K.THREE_FLUSHES in sweeps("2c 5c 9c Jc Kc 3c 4c 6c 8c Qc 2d 4d 6d")  # 10 + 3
        assert K.THREE_FLUSHES not in sweeps("2c 5c 9c Jc 2d 4d 6d 8d Qd 3h 5h 7h 9h")  # 4 + 5 + 4

    def test_three_straight_flushes(self) -> None:
        assert K.THREE_STRAIGHT_FLUSHES in sweeps("Ah 2h 3h 4s 5s 6s 7s 8s 9d Td Jd Qd Kd")
        assert K.THREE_STRAIGHT_FLUSHES not in sweeps("Ah 2h 3h 4s 5s 6s 7s 8d 9d Td Jd Qd Kd")

    def test_colours_and_002_variants(self) -> None:
        red13 = sweeps("2h 3h 4h 5h 6h 7h 8h 9h Th 2d 3d 4d 5d")
        assert {K.THIRTEEN_COLOURS, K.TWELVE_COLOURS} <= red13
        twelve = sweeps("Jh Qh Kh Ah 6d 7d 8d 9d Td Jd Qd Kd 2s")
        assert K.TWELVE_COLOURS in twelve
        assert K.THIRTEEN_COLOURS not in twelve
        assert K.NO_PICTURES in sweeps("2c 3d 4h 5s 6c 7d 8h 9s Tc Ah As 2d 3c")
        assert K.SIX_AND_ABOVE in sweeps("6c 7d 8h 9s Tc Jh Qs Kc Ad 6d 7h 8s 9c")
        assert K.ALL_PICTURES in sweeps("Jc Jd Jh Js Qc Qd Qh Qs Kc Kd Kh Ks Ac")
        assert K.THREE_QUADS in sweeps("Jc Jd Jh Js Qc Qd Qh Qs Kc Kd Kh Ks Ac")
        assert K.FOUR_TRIPS in sweeps("2c 2d 2h 5s 5c 5d 7h 7s 7c 9d 9h 9s Ac")

    def test_only_thirteen_cards_make_a_sweep(self) -> None:
        assert sweeps("2c 3d 4h 5s 6c 7d 8h 9s Tc Jh Qs Kc") == frozenset()
        assert not has_sweep(K.DRAGON, summarise(parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jh Qs Kc Ad As")))

    def test_aliases(self) -> None:
        assert parse_sweep_kind("13 Colors") is K.THIRTEEN_COLOURS
        assert parse_sweep_kind("six_pairs") is K.SIX_PAIRS
        assert parse_sweep_kind("Dragon") is K.DRAGON
        assert parse_sweep_kind("rainbow") is None


class TestTiebreaks:
    def key(self, kind: SweepKind, text: str) -> tuple[tuple[int, ...], ...]:
        return sweep_tiebreak(kind, summarise(parse_cards(text)))

    def test_six_pairs_by_the_highest_pairs(self) -> None:
        high = self.key(K.SIX_PAIRS, "Ac Ad Kc Kd Qc Qd Jc Jd Tc Td 9c 9d 2s")
        low = self.key(K.SIX_PAIRS, "Ah As Kh Ks Qh Qs Jh Js Th Ts 9h 8s 8h")
        assert high > low

    def test_three_straights_by_back_then_middle_then_front(self) -> None:
        # best arrangement of A..K: 2-3-4 / 5-6-7-8-9 / T-J-Q-K-A
        assert self.key(K.THREE_STRAIGHTS, "Ah 2h 3h 4s 5s 6s 7s 8s 9d Td Jd Qd Kd") == ((14,), (9,), (4,))

    def test_three_flushes_by_back_then_middle_then_front(self) -> None:
        key = self.key(K.THREE_FLUSHES, "2c 5c 9c 2d 4d 6d 8d Qd 3h 5h 7h 9h Kh")
        assert key == ((13, 9, 7, 5, 3), (12, 8, 6, 4, 2), (9, 5, 2))

    def test_other_kinds_have_no_tiebreak(self) -> None:
        assert self.key(K.DRAGON, "2c 3d 4h 5s 6c 7d 8h 9s Tc Jh Qs Kc Ad") == ()
