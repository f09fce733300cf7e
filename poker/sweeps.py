"""Clean sweeps and naturals of Chinese poker, verified from the 13 cards by search.

A clean sweep (004, RULINGS section 3) or natural (002) is declared with the 13 cards unset
and the engine checks that the 13 cards really hold it.  Every check works on ``(rank, suit)``
pairs (rank 2..14, ace 14; suit 0..3 = clubs, diamonds, hearts, spades, the order of
:attr:`poker.cards.Card.code`), summarised once into bit planes:

* ``planes[k]`` has bit ``r`` set when at least ``k + 1`` cards of rank ``r`` are held (bit 1
  is used for aces counted low while searching for straights);
* one rank mask per suit.

Counting sweeps (dragon, six pairs, colours, ...) are a few bit operations.  The arrangement
sweeps (three straights, three flushes, three straight flushes: a 3-card hand and two 5-card
hands) are decided by a pruned exact-cover recursion: the lowest card still unused must
*start* a run, so at most two branches (a 3-run or a 5-run) are tried at each of at most three
levels, for each way of counting the aces low or high.  Three flushes need no search at all:
the suit counts must be one of 13, 10+3, 8+5 or 5+5+3.

``find_sweeps`` returns every kind the cards hold; the caller keeps the most valuable one
(RULINGS section 3: "with two sweeps only the higher counts").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from enum import StrEnum
from typing import Final

from .cards import Card

__all__ = [
    "SWEEP_ALIASES",
    "HandSummary",
    "SweepKind",
    "find_sweeps",
    "has_sweep",
    "pairs_of_cards",
    "parse_sweep_kind",
    "summarise",
    "sweep_tiebreak",
]


class SweepKind(StrEnum):
    """Every clean sweep / natural the engine can verify (the JSON ``declare`` names)."""

    DRAGON = "dragon"  # one card of each of the 13 ranks (003, 004, 002)
    THIRTEEN_COLOURS = "thirteen-colours"  # all 13 cards red, or all black (003)
    TWELVE_COLOURS = "twelve-colours"  # at least 12 cards of one colour (003 "exactly 12"; see docs)
    SIX_PAIRS = "six-pairs"  # six pairs, quads counting as two pairs (004, 003, 002)
    THREE_STRAIGHTS = "three-straights"  # 3-card straight + two 5-card straights
    THREE_FLUSHES = "three-flushes"  # 3 suited + 5 suited + 5 suited
    FOUR_TRIPS = "four-trips"  # four three-of-a-kinds (002); quads hold a three of a kind
    THREE_QUADS = "three-quads"  # three four-of-a-kinds (002)
    THREE_STRAIGHT_FLUSHES = "three-straight-flushes"  # 3-card SF + two 5-card SFs (002)
    NO_PICTURES = "no-pictures"  # no J, Q, K (ace is not a picture) (002 variant)
    ALL_PICTURES = "all-pictures"  # only J, Q, K, A (002 variant)
    SIX_AND_ABOVE = "six-and-above"  # no card below six (ace counts above) (002 variant)


#: Other accepted spellings of ``declare`` (after lower-casing, ``_``/space -> ``-`` and
#: ``colors`` -> ``colours``).
SWEEP_ALIASES: Final[dict[str, SweepKind]] = {
    "13-colours": SweepKind.THIRTEEN_COLOURS,
    "12-colours": SweepKind.TWELVE_COLOURS,
    "6-pairs": SweepKind.SIX_PAIRS,
    "3-straights": SweepKind.THREE_STRAIGHTS,
    "3-flushes": SweepKind.THREE_FLUSHES,
    "4-trips": SweepKind.FOUR_TRIPS,
    "four-three-of-a-kinds": SweepKind.FOUR_TRIPS,
    "four-three-of-a-kind": SweepKind.FOUR_TRIPS,
    "3-quads": SweepKind.THREE_QUADS,
    "three-four-of-a-kinds": SweepKind.THREE_QUADS,
    "three-four-of-a-kind": SweepKind.THREE_QUADS,
    "3-straight-flushes": SweepKind.THREE_STRAIGHT_FLUSHES,
    "three-straight-flush": SweepKind.THREE_STRAIGHT_FLUSHES,
    "6-and-above": SweepKind.SIX_AND_ABOVE,
}


def parse_sweep_kind(text: str) -> SweepKind | None:
    """The kind named by ``text`` (canonical name or alias), or ``None``."""
    key = text.strip().lower().replace("_", "-").replace(" ", "-").replace("colors", "colours")
    try:
        return SweepKind(key)
    except ValueError:
        return SWEEP_ALIASES.get(key)


# Rank bits: bit r for rank r (2..14); bit 1 stands for an ace counted low.
_ALL_RANKS: Final = sum(1 << r for r in range(2, 15))  # bits 2..14
_ACE: Final = 1 << 14
_PICTURES_JQK: Final = (1 << 11) | (1 << 12) | (1 << 13)
_PICTURES_JQKA: Final = _PICTURES_JQK | _ACE
_BELOW_SIX: Final = (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5)
_RUN3: Final = 0b111
_RUN5: Final = 0b11111
_RED: Final = (1, 2)  # diamonds, hearts
#: Sorted non-zero suit counts that split into 3 + 5 + 5 suited cards.
_FLUSH_PATTERNS: Final = frozenset({(13,), (3, 10), (5, 8), (3, 5, 5)})


class HandSummary:
    """Bit summary of a set of cards, computed once and shared by every sweep check.

    Attributes:
        n: number of cards.
        counts: cards per rank, index 0..14 (indexes 0 and 1 unused).
        planes: ``planes[k]`` = ranks held at least ``k + 1`` times (k = 0..3), rank bits.
        suit_masks: per suit (clubs, diamonds, hearts, spades) the rank bits held.
        suit_counts: cards per suit.
    """

    __slots__ = ("counts", "n", "planes", "suit_counts", "suit_masks")

    def __init__(self, pairs: Iterable[tuple[int, int]]) -> None:
        counts = [0] * 15
        masks = [0, 0, 0, 0]
        scount = [0, 0, 0, 0]
        n = 0
        for rank, suit in pairs:
            counts[rank] += 1
            masks[suit] |= 1 << rank
            scount[suit] += 1
            n += 1
        p1 = p2 = p3 = p4 = 0
        for rank in range(2, 15):
            c = counts[rank]
            if c:
                bit = 1 << rank
                p1 |= bit
                if c > 1:
                    p2 |= bit
                    if c > 2:
                        p3 |= bit
                        if c > 3:
                            p4 |= bit
        self.n = n
        self.counts = counts
        self.planes = (p1, p2, p3, p4)
        self.suit_masks = tuple(masks)
        self.suit_counts = tuple(scount)


def pairs_of_cards(cards: Iterable[Card]) -> list[tuple[int, int]]:
    """``(rank, suit)`` pairs of standard cards (suit 0..3 = c, d, h, s)."""
    return [(c.rank, c.code & 3) for c in cards]


def summarise(cards: Iterable[Card]) -> HandSummary:
    """Summary of standard cards (the joker is not allowed in Chinese poker)."""
    return HandSummary((c.rank, c.code & 3) for c in cards)


# --------------------------------------------------------------------------------------
# Run cover search (straights and straight flushes)
# --------------------------------------------------------------------------------------


def _cover(p1: int, p2: int, p3: int, p4: int, n3: int, n5: int) -> bool:
    """Can the multiset (planes p1..p4) be split exactly into ``n3`` 3-runs and ``n5`` 5-runs?

    Runs are consecutive bits; bit planes may hold several independent rows (suits) kept apart
    by bits that are never set.  The lowest remaining card must start a run.
    """
    if not p1:
        return n3 == 0 and n5 == 0
    low = p1 & -p1
    if n5:
        run = low * _RUN5
        if p1 & run == run and _cover(
            (p1 & ~run) | (p2 & run),
            (p2 & ~run) | (p3 & run),
            (p3 & ~run) | (p4 & run),
            p4 & ~run,
            n3,
            n5 - 1,
        ):
            return True
    if n3:
        run = low * _RUN3
        if p1 & run == run and _cover(
            (p1 & ~run) | (p2 & run),
            (p2 & ~run) | (p3 & run),
            (p3 & ~run) | (p4 & run),
            p4 & ~run,
            n3 - 1,
            n5,
        ):
            return True
    return False


def _covers(
    p1: int, p2: int, p3: int, p4: int, n3: int, n5: int, run_tops: tuple[int, ...]
) -> Iterator[tuple[int, ...]]:
    """Every exact cover (as the sorted tuple of ``(top bit << 3 | length)`` runs)."""
    if not p1:
        if n3 == 0 and n5 == 0:
            yield run_tops
        return
    low = p1 & -p1
    for length, mask, left3, left5 in ((5, _RUN5, n3, n5 - 1), (3, _RUN3, n3 - 1, n5)):
        if left3 < 0 or left5 < 0:
            continue
        run = low * mask
        if p1 & run == run:
            top = (low.bit_length() - 1) + length - 1
            yield from _covers(
                (p1 & ~run) | (p2 & run),
                (p2 & ~run) | (p3 & run),
                (p3 & ~run) | (p4 & run),
                p4 & ~run,
                left3,
                left5,
                (*run_tops, top << 3 | length),
            )


def _ace_variants(planes: tuple[int, int, int, int], aces: int) -> Iterator[tuple[int, int, int, int]]:
    """The planes with ``k`` of the ``aces`` aces counted low (bit 1), for every ``k``."""
    p1, p2, p3, p4 = planes
    yield planes
    if not aces:
        return
    # Remove all aces from bit 14, then put k back high and aces - k low.
    base = (p1 & ~_ACE, p2 & ~_ACE, p3 & ~_ACE, p4 & ~_ACE)
    for low in range(1, aces + 1):
        high = aces - low
        out = list(base)
        for k in range(high):
            out[k] |= _ACE
        for k in range(low):
            out[k] |= 2
        yield (out[0], out[1], out[2], out[3])


def _three_straights(s: HandSummary) -> bool:
    if s.n != 13:
        return False
    # Three runs hold a rank at most three times (an ace too: A-2-3, A-2-3-4-5, T-J-Q-K-A).
    if s.planes[3] or s.planes[0].bit_count() < 5:
        return False
    return any(_cover(*v, 1, 2) for v in _ace_variants(s.planes, s.counts[14]))


def _suit_rows(s: HandSummary) -> Iterator[int]:
    """All suits' rank masks in one integer (suit ``k`` at bits ``16k..16k+15``), once for each
    way of counting each suit's ace low or high."""
    rows = 0
    ace_suits: list[int] = []
    for k, mask in enumerate(s.suit_masks):
        rows |= mask << (16 * k)
        if mask & _ACE:
            ace_suits.append(k)
    n = len(ace_suits)
    for choice in range(1 << n):
        r = rows
        for i, k in enumerate(ace_suits):
            if choice >> i & 1:
                r = (r & ~(_ACE << (16 * k))) | (2 << (16 * k))
        yield r


def _three_flushes(s: HandSummary) -> bool:
    return s.n == 13 and tuple(sorted(c for c in s.suit_counts if c)) in _FLUSH_PATTERNS


def _three_straight_flushes(s: HandSummary) -> bool:
    if not _three_flushes(s):
        return False
    return any(_cover(rows, 0, 0, 0, 1, 2) for rows in _suit_rows(s))


def _pair_count(s: HandSummary) -> int:
    return s.planes[1].bit_count() + s.planes[3].bit_count()


def _colour_max(s: HandSummary) -> int:
    c = s.suit_counts
    red = c[1] + c[2]
    return max(red, s.n - red)


def has_sweep(kind: SweepKind, s: HandSummary) -> bool:
    """Do the cards summarised by ``s`` hold ``kind``?  (13 cards are needed for every kind.)"""
    if s.n != 13:
        return False
    p1, _p2, p3, p4 = s.planes
    if kind is SweepKind.DRAGON:
        return p1 == _ALL_RANKS
    if kind is SweepKind.SIX_PAIRS:
        return _pair_count(s) >= 6
    if kind is SweepKind.THREE_STRAIGHTS:
        return _three_straights(s)
    if kind is SweepKind.THREE_FLUSHES:
        return _three_flushes(s)
    if kind is SweepKind.THIRTEEN_COLOURS:
        return _colour_max(s) == 13
    if kind is SweepKind.TWELVE_COLOURS:
        return _colour_max(s) >= 12
    if kind is SweepKind.FOUR_TRIPS:
        return p3.bit_count() >= 4
    if kind is SweepKind.THREE_QUADS:
        return p4.bit_count() >= 3
    if kind is SweepKind.THREE_STRAIGHT_FLUSHES:
        return _three_straight_flushes(s)
    if kind is SweepKind.NO_PICTURES:
        return not p1 & _PICTURES_JQK
    if kind is SweepKind.ALL_PICTURES:
        return not p1 & ~_PICTURES_JQKA
    if kind is SweepKind.SIX_AND_ABOVE:
        return not p1 & _BELOW_SIX
    raise AssertionError(f"unknown sweep kind {kind!r}")  # pragma: no cover


def find_sweeps(s: HandSummary, kinds: Iterable[SweepKind] = tuple(SweepKind)) -> frozenset[SweepKind]:
    """Every kind among ``kinds`` that the cards hold."""
    if s.n != 13:
        return frozenset()
    return frozenset(k for k in kinds if has_sweep(k, s))


# --------------------------------------------------------------------------------------
# Tie-breaks between two naturals of the same kind (002)
# --------------------------------------------------------------------------------------


def _flush_key(ranks: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(ranks, reverse=True))


def _three_flushes_key(s: HandSummary) -> tuple[tuple[int, ...], ...]:
    """Best (back, middle, front) flushes, compared as flushes (ranks from the top down)."""
    by_suit = [
        [r for r in range(14, 1, -1) if mask >> r & 1]
        for mask, n in zip(s.suit_masks, s.suit_counts, strict=True)
        if n
    ]
    by_suit.sort(key=len)
    sizes = tuple(len(x) for x in by_suit)
    fives: list[tuple[int, ...]]
    if sizes == (13,):
        ranks = by_suit[0]
        fives, front = [_flush_key(ranks[:5]), _flush_key(ranks[5:10])], _flush_key(ranks[10:])
    elif sizes == (3, 10):
        ranks = by_suit[1]
        fives, front = [_flush_key(ranks[:5]), _flush_key(ranks[5:])], _flush_key(by_suit[0])
    elif sizes == (5, 8):
        ranks = by_suit[1]
        fives, front = [_flush_key(by_suit[0]), _flush_key(ranks[:5])], _flush_key(ranks[5:])
    else:  # (3, 5, 5)
        fives, front = [_flush_key(by_suit[1]), _flush_key(by_suit[2])], _flush_key(by_suit[0])
    fives.sort(reverse=True)
    return (fives[0], fives[1], front)


def _three_straights_key(s: HandSummary) -> tuple[tuple[int, ...], ...]:
    """Best (back, middle, front) straights by their top card (a wheel's top is the five)."""
    best: tuple[tuple[int, ...], ...] = ()
    for v in _ace_variants(s.planes, s.counts[14]):
        for cover in _covers(*v, 1, 2, ()):
            fives = sorted((run >> 3 for run in cover if run & 7 == 5), reverse=True)
            front = [run >> 3 for run in cover if run & 7 == 3]
            key = ((fives[0],), (fives[1],), (front[0],))
            best = max(best, key)
    return best


def _six_pairs_key(s: HandSummary) -> tuple[tuple[int, ...], ...]:
    ranks: list[int] = []
    for r in range(14, 1, -1):
        ranks.extend([r] * (s.counts[r] // 2))
    return (tuple(ranks[:6]),)


def sweep_tiebreak(kind: SweepKind, s: HandSummary) -> tuple[tuple[int, ...], ...]:
    """Comparison key between two naturals of the same kind (002): six pairs by the pairs from
    the highest down; three straights and three flushes by the back, then middle, then front
    hand of their best arrangement.  Other kinds have no tie-break (an empty key: a push)."""
    if kind is SweepKind.SIX_PAIRS:
        return _six_pairs_key(s)
    if kind is SweepKind.THREE_FLUSHES:
        return _three_flushes_key(s)
    if kind is SweepKind.THREE_STRAIGHTS:
        return _three_straights_key(s)
    return ()
