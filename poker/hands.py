"""Hand reading: high hands (5-7 cards, Omaha 2+3, 3-card Chinese fronts) and ace-to-five lows.

High hands
    Strength comes from phevaluator's C evaluator (see ``docs/engine.md`` for the measured
    rates and why).  phevaluator returns one of 7,462 equivalence classes (1 = royal flush,
    7462 = 7-5-4-3-2); at import this module builds a table from that class number to the
    category, the significance-ordered ranks, the dealer's name and the rank pattern of the
    five cards, so reading a hand is one C call, one list lookup and picking the cards.

    ``HighHand.strength`` is ``category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5``
    where ``r1..r5`` are the significance-ordered ranks (``HighHand.ranks``, 2..14) and a
    missing rank is 0.  Bigger is better and every pair of 5-card hands compares exactly as in
    poker.  A 3-card Chinese-poker front (:func:`three_card_high`) is put on the same scale, so
    a front compares with a middle "by category, then rank by rank" (RULINGS section 3).

Low hands (ace-to-five)
    Ace is low (rank 1), straights and flushes do not count, pairs count against the hand
    (razz, lowball and option alley can be won by a pair).  ``LowHand.strength`` is
    ``LOW_TOP - (category << 20 | r1 << 16 | ... | r5)`` with ace-low ranks, so again bigger is
    better: the lowest hand has the biggest strength.  The 8-or-better qualifier is
    ``LowHand.qualifies_8``: five unpaired ranks, 8 or lower.

Which physical cards are shown (``cards``): the five cards that make the hand, in order of
significance (the biggest group first, kickers from high to low; a wheel as 5-4-3-2-A).  When
several cards of one rank could be used, the lowest suits (clubs, diamonds, hearts, spades)
are taken and listed first, so the answer does not depend on the order of the input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations, pairwise
from typing import Final, NamedTuple

from phevaluator import _pheval

from ._fast import maker
from .cards import CARDS_BY_CODE, JOKER, JOKER_CODE, Card, CardError, card_key

__all__ = [
    "LOW_TOP",
    "Category",
    "HighHand",
    "LowHand",
    "best_high",
    "best_low_a5",
    "high_from_codes",
    "holdem_highs",
    "low8_from_codes",
    "low_from_codes",
    "omaha_high",
    "omaha_high_codes",
    "omaha_low",
    "omaha_low8",
    "qualifies_8",
    "rank_name",
    "rank_plural",
    "three_card_high",
]


class Category(IntEnum):
    """High-hand categories, weakest first (royal flush is a straight flush named "Royal flush").

    Ace-to-five lows reuse the categories without straights and flushes (``HIGH_CARD`` meaning
    no pair); for lows a *smaller* category is better.
    """

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        """Plain English: ``"full house"``, ``"high card"``."""
        return self.name.lower().replace("_", " ")


_SINGULAR: Final = {
    1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
    8: "eight", 9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}  # fmt: skip
_PLURAL: Final = {
    1: "aces", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes", 7: "sevens",
    8: "eights", 9: "nines", 10: "tens", 11: "jacks", 12: "queens", 13: "kings", 14: "aces",
}  # fmt: skip
_LOW_CHAR: Final = {
    1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
    11: "J", 12: "Q", 13: "K", 14: "A",
}  # fmt: skip


def rank_name(rank: int) -> str:
    """``"six"``, ``"ace"`` (rank 1 or 14 is the ace)."""
    return _SINGULAR[rank]


def rank_plural(rank: int) -> str:
    """``"sixes"``, ``"aces"``."""
    return _PLURAL[rank]


def _pack(category: int, ranks: Sequence[int]) -> int:
    """``category << 20 | r1 << 16 | ... | r5 << 0``; missing ranks count 0 (lowest)."""
    value = category
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


# --------------------------------------------------------------------------------------
# High hands
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HighHand:
    """A high hand as read at the showdown.

    Attributes:
        strength: bigger is better; ``category << 20`` plus the ranks packed 4 bits each (see
            the module docstring).  Totally ordered across all 5-card hands and comparable with
            3-card fronts.
        category: the hand's :class:`Category`.
        name: what the dealer reads aloud, e.g. ``"Full house, sixes full of kings"``.
        cards: the cards that make the hand, in order of significance (five, or three for a
            Chinese-poker front).
        ranks: significance-ordered ranks (ace 14): one per group then the kickers, e.g.
            ``(6, 13)`` for sixes full of kings, ``(6, 11, 9)`` for three sixes with J-9,
            ``(5,)`` for a five-high straight.
    """

    strength: int
    category: Category
    name: str
    cards: tuple[Card, ...]
    ranks: tuple[int, ...]


_make_high: Final = maker(HighHand)


def _high_name(category: Category, ranks: tuple[int, ...]) -> str:
    p, s = _PLURAL, _SINGULAR
    if category is Category.STRAIGHT_FLUSH:
        return "Royal flush" if ranks[0] == 14 else f"Straight flush, {s[ranks[0]]} high"
    if category is Category.FOUR_OF_A_KIND:
        return f"Four of a kind, {p[ranks[0]]}"
    if category is Category.FULL_HOUSE:
        return f"Full house, {p[ranks[0]]} full of {p[ranks[1]]}"
    if category is Category.FLUSH:
        return f"Flush, {s[ranks[0]]} high"
    if category is Category.STRAIGHT:
        return f"Straight, {s[ranks[0]]} high"
    if category is Category.THREE_OF_A_KIND:
        return f"Three of a kind, {p[ranks[0]]}"
    if category is Category.TWO_PAIR:
        return f"Two pair, {p[ranks[0]]} and {p[ranks[1]]}"
    if category is Category.PAIR:
        return f"Pair of {p[ranks[0]]}"
    return f"{s[ranks[0]].capitalize()} high"


# Rank groups of a class: ((rank, how many cards), ...) in the order the cards are shown.
_Groups = tuple[tuple[int, int], ...]


class _HighClass(NamedTuple):
    strength: int
    category: Category
    ranks: tuple[int, ...]
    groups: _Groups
    suited: bool  # flush or straight flush: the five cards share a suit


def _straight_ranks(top: int) -> tuple[int, ...]:
    return (5, 4, 3, 2, 14) if top == 5 else tuple(range(top, top - 5, -1))


_ONES: Final = (1, 1, 1, 1, 1)


def _build_high_classes() -> list[_HighClass]:
    """All 7,462 distinct 5-card high hands, strongest first (phevaluator's class order).

    Generated directly in descending order (categories from straight flush down, ranks
    lexicographically descending within a category); the caller checks the order.
    """
    out: list[_HighClass] = []
    add = out.append
    desc = tuple(range(14, 1, -1))
    tops = range(14, 4, -1)
    straights = {frozenset(_straight_ranks(t)) for t in tops}
    five_sets = [c for c in combinations(desc, 5) if frozenset(c) not in straights]
    sf, quads, full = Category.STRAIGHT_FLUSH, Category.FOUR_OF_A_KIND, Category.FULL_HOUSE
    flush, straight, trips = Category.FLUSH, Category.STRAIGHT, Category.THREE_OF_A_KIND
    two, pair, high = Category.TWO_PAIR, Category.PAIR, Category.HIGH_CARD
    runs = {top: tuple(zip(_straight_ranks(top), _ONES, strict=True)) for top in tops}
    for top in tops:
        add(_HighClass(8 << 20 | top << 16, sf, (top,), runs[top], True))
    for q in desc:
        for k in desc:
            if k != q:
                add(_HighClass(7 << 20 | q << 16 | k << 12, quads, (q, k), ((q, 4), (k, 1)), False))
    for t in desc:
        for p in desc:
            if p != t:
                add(_HighClass(6 << 20 | t << 16 | p << 12, full, (t, p), ((t, 3), (p, 2)), False))
    for a, b, c, d, e in five_sets:
        v = 5 << 20 | a << 16 | b << 12 | c << 8 | d << 4 | e
        add(_HighClass(v, flush, (a, b, c, d, e), ((a, 1), (b, 1), (c, 1), (d, 1), (e, 1)), True))
    for top in tops:
        add(_HighClass(4 << 20 | top << 16, straight, (top,), runs[top], False))
    for t in desc:
        for k1, k2 in combinations([r for r in desc if r != t], 2):
            v = 3 << 20 | t << 16 | k1 << 12 | k2 << 8
            add(_HighClass(v, trips, (t, k1, k2), ((t, 3), (k1, 1), (k2, 1)), False))
    for hi, lo in combinations(desc, 2):
        for k in desc:
            if k != hi and k != lo:
                v = 2 << 20 | hi << 16 | lo << 12 | k << 8
                add(_HighClass(v, two, (hi, lo, k), ((hi, 2), (lo, 2), (k, 1)), False))
    for p in desc:
        for k1, k2, k3 in combinations([r for r in desc if r != p], 3):
            v = 1 << 20 | p << 16 | k1 << 12 | k2 << 8 | k3 << 4
            add(_HighClass(v, pair, (p, k1, k2, k3), ((p, 2), (k1, 1), (k2, 1), (k3, 1)), False))
    for a, b, c, d, e in five_sets:
        v = a << 16 | b << 12 | c << 8 | d << 4 | e
        add(_HighClass(v, high, (a, b, c, d, e), ((a, 1), (b, 1), (c, 1), (d, 1), (e, 1)), False))
    return out


_HIGH_CLASSES: Final[list[_HighClass]] = _build_high_classes()
if len(_HIGH_CLASSES) != 7462 or any(  # pragma: no cover - guards the table construction
    x.strength <= y.strength for x, y in pairwise(_HIGH_CLASSES)
):
    raise AssertionError("high-hand class table is not 7462 strictly descending classes")
#: phevaluator class number (1..7462) -> class; index 0 unused.
_CLASS_BY_PHEVAL: Final[list[_HighClass]] = [_HIGH_CLASSES[0], *_HIGH_CLASSES]
#: phevaluator class -> bit ``rank`` set for every rank in the hand.
_RANK_BITS_BY_PHEVAL: Final[list[int]] = [sum(1 << r for r, _ in k.groups) for k in _CLASS_BY_PHEVAL]

# phevaluator's C functions: card ids in, class number out (1 = royal flush .. 7462).
_EVAL5: Final[Callable[..., int]] = _pheval.evaluate_5cards
_EVAL6: Final[Callable[..., int]] = _pheval.evaluate_6cards
_EVAL7: Final[Callable[..., int]] = _pheval.evaluate_7cards
_EVAL_OMAHA: Final[Callable[..., int]] = _pheval.evaluate_omaha_cards
_EVALUATORS: Final[dict[int, Callable[..., int]]] = {5: _EVAL5, 6: _EVAL6, 7: _EVAL7}

# Picking the physical cards.  A hand is also held as a bit set over card codes
# (bit ``code``), so the four cards of a rank are one 4-bit "nibble" (clubs lowest).
# _PICK[rank][nibble][n] is the n lowest-suit cards of ``rank`` present in ``nibble``;
# rank 1 (the ace counted low) shares the ace's nibble.
_SHIFT: Final[tuple[int, ...]] = (0, 48, *(4 * (r - 2) for r in range(2, 15)))


def _build_pick() -> tuple[tuple[tuple[tuple[Card, ...], ...], ...], ...]:
    table = []
    for rank in range(15):
        per_nibble = []
        for nibble in range(16):
            suits = [s for s in range(4) if nibble >> s & 1]
            base = _SHIFT[rank]
            cards = tuple(CARDS_BY_CODE[base + s] for s in suits) if rank else ()
            per_nibble.append(tuple(cards[:n] for n in range(5)))
        table.append(tuple(per_nibble))
    return tuple(table)


_PICK: Final = _build_pick()
_SUIT_MASKS: Final[tuple[int, ...]] = tuple(sum(1 << (4 * r + s) for r in range(13)) for s in range(4))


def _bits(codes: Sequence[int]) -> int:
    bits = 0
    for code in codes:
        bits |= 1 << code
    return bits


def _pick(bits: int, groups: _Groups, suited: bool) -> tuple[Card, ...]:
    """The cards for ``groups`` out of the card set ``bits`` (lowest suits first per rank)."""
    if suited:
        for mask in _SUIT_MASKS:
            if (bits & mask).bit_count() >= 5:
                bits &= mask
                break
    out: tuple[Card, ...] = ()
    for rank, n in groups:
        out += _PICK[rank][(bits >> _SHIFT[rank]) & 15][n]
    return out


# The cards of a class are picked one by one: the k-th card shown is the ``nth``-lowest suit
# of its rank present in the hand, i.e. ``_NTH[rank][nth][nibble]``.  (Slots for cards a
# nibble does not hold are filled with the joker; they are never picked, because
# phevaluator's class guarantees the hand holds the cards of its groups.)
_NTH: Final[tuple[tuple[tuple[Card, ...], ...], ...]] = tuple(
    tuple(
        tuple((_PICK[rank][nibble][4] + (JOKER,) * 4)[nth] if rank else JOKER for nibble in range(16))
        for nth in range(4)
    )
    for rank in range(15)
)

_Table = tuple[Card, ...]  # card by nibble
# (strength, category, ranks, suited, name, then for each of the five cards shown, in order:
# shift, card by nibble), so that card i is ``table_i[(bits >> shift_i) & 15]``.  One flat
# tuple: reading a hand unpacks it in one step and builds its cards as one 5-tuple.
_Hot = tuple[
    int, Category, tuple[int, ...], bool, str,
    int, _Table, int, _Table, int, _Table, int, _Table, int, _Table,
]  # fmt: skip
# phevaluator class -> its _Hot entry, filled on first use (building all 7,462 up front would
# cost ~50 ms at import for classes rarely seen).
_HOT: Final[list[_Hot | None]] = [None] * len(_CLASS_BY_PHEVAL)


def _hot(cls: int) -> _Hot:
    k = _CLASS_BY_PHEVAL[cls]
    (s0, t0), (s1, t1), (s2, t2), (s3, t3), (s4, t4) = [
        (_SHIFT[rank], _NTH[rank][nth]) for rank, n in k.groups for nth in range(n)
    ]
    head = (k.strength, k.category, k.ranks, k.suited, _high_name(k.category, k.ranks))
    hot = _HOT[cls] = (*head, s0, t0, s1, t1, s2, t2, s3, t3, s4, t4)
    return hot


def _high_hand(cls: int, bits: int) -> HighHand:
    """HighHand for phevaluator class ``cls`` made from the card set ``bits``."""
    hot = _HOT[cls] or _hot(cls)
    strength, category, ranks, suited, name, s0, t0, s1, t1, s2, t2, s3, t3, s4, t4 = hot
    if suited:
        for mask in _SUIT_MASKS:
            if (bits & mask).bit_count() >= 5:
                bits &= mask
                break
    cards = (
        t0[bits >> s0 & 15],
        t1[bits >> s1 & 15],
        t2[bits >> s2 & 15],
        t3[bits >> s3 & 15],
        t4[bits >> s4 & 15],
    )
    return _make_high(strength, category, name, cards, ranks)


def high_from_codes(codes: list[int]) -> HighHand:
    """Best high hand of 5 to 7 card codes (jokers already excluded by the caller)."""
    cls = _EVAL7(*codes) if len(codes) == 7 else _EVALUATORS[len(codes)](*codes)
    bits = 0
    for code in codes:
        bits |= 1 << code
    return _high_hand(cls, bits)


def holdem_highs(
    seats: Sequence[int], holes: Sequence[Sequence[Card]], board: Sequence[Card]
) -> tuple[dict[int, HighHand], dict[int, int]]:
    """:func:`high_from_codes` for hold'em's live hands, all two hole cards on one five-card
    board: ``(seat -> hand, seat -> strength)`` in the order of ``seats`` (``holes[i]`` is
    ``seats[i]``'s).  The board's codes and bits are taken once, and the loop runs on local
    names with _high_hand's body inlined (the hottest loop of a hold'em showdown: a call per
    hand would be about 2% of it)."""
    b0, b1, b2, b3, b4 = [c.code for c in board]
    board_bits = 1 << b0 | 1 << b1 | 1 << b2 | 1 << b3 | 1 << b4
    ev, hot, masks, make = _EVAL7, _HOT, _SUIT_MASKS, _make_high
    hands: dict[int, HighHand] = {}
    strengths: dict[int, int] = {}
    for seat, (first, second) in zip(seats, holes, strict=True):
        x, y = first.code, second.code
        cls = ev(x, y, b0, b1, b2, b3, b4)
        bits = board_bits | 1 << x | 1 << y
        entry = hot[cls] or _hot(cls)
        strength, category, ranks, suited, name, s0, t0, s1, t1, s2, t2, s3, t3, s4, t4 = entry
        if suited:
            for mask in masks:
                if (bits & mask).bit_count() >= 5:
                    bits &= mask
                    break
        cards = (
            t0[bits >> s0 & 15],
            t1[bits >> s1 & 15],
            t2[bits >> s2 & 15],
            t3[bits >> s3 & 15],
            t4[bits >> s4 & 15],
        )
        hands[seat] = make(strength, category, name, cards, ranks)
        strengths[seat] = strength
    return hands, strengths


def _check_standard(cards: Sequence[Card]) -> None:
    for c in cards:
        if c.code == JOKER_CODE:
            raise CardError("the joker JK plays only in lowball, not in a high hand")


def best_high(cards: Sequence[Card]) -> HighHand:
    """Best five-card high hand out of 5, 6 or 7 cards (hold'em, stud, draw).

    Raises:
        ValueError: fewer than 5 or more than 7 cards.
        CardError: the joker is among the cards.
    """
    codes = [c.code for c in cards]
    if JOKER_CODE in codes:
        raise CardError("the joker JK plays only in lowball, not in a high hand")
    evaluate = _EVALUATORS.get(len(codes))
    if evaluate is None:
        raise ValueError(f"a high hand needs 5 to 7 cards, got {len(codes)}")
    return _high_hand(evaluate(*codes), _bits(codes))


_HOLE_PAIRS: Final = tuple(combinations(range(4), 2))
_BOARD_TRIPLES: Final = tuple(combinations(range(5), 3))


#: Rank bit of each card code (bit ``rank``, ace 14), for quick "could these cards be in
#: that hand" tests.
_RANK_BIT: Final[tuple[int, ...]] = tuple(1 << ((c >> 2) + 2) for c in range(52))


def omaha_board_triples(bc: Sequence[int]) -> list[tuple[int, int, int, int]]:
    """The ten 3-card choices of a 5-card board (codes sorted ascending) as
    ``(rank bits, code, code, code)``; computed once per board and shared by every player."""
    rb = _RANK_BIT
    return [(rb[bc[p]] | rb[bc[q]] | rb[bc[r]], bc[p], bc[q], bc[r]) for p, q, r in _BOARD_TRIPLES]


def omaha_high_codes(
    hc: list[int], bc: list[int], triples: list[tuple[int, int, int, int]] | None = None
) -> HighHand:
    """Omaha high from 4 hole and 5 board codes, each sorted ascending.

    phevaluator gives the best class; the cards shown are the first 2+3 combination (hole pairs
    and board triples in code order) that makes it.  Combinations holding a rank the class does
    not contain are skipped without evaluating them.
    """
    best = _EVAL_OMAHA(bc[0], bc[1], bc[2], bc[3], bc[4], hc[0], hc[1], hc[2], hc[3])
    outside = ~_RANK_BITS_BY_PHEVAL[best]
    if triples is None:
        triples = omaha_board_triples(bc)
    rb = _RANK_BIT
    for i, j in _HOLE_PAIRS:
        x, y = hc[i], hc[j]
        if (rb[x] | rb[y]) & outside:
            continue
        for bits, p, q, r in triples:
            if not bits & outside and _EVAL5(x, y, p, q, r) == best:
                return _high_hand(best, 1 << x | 1 << y | 1 << p | 1 << q | 1 << r)
    raise AssertionError("phevaluator's Omaha class not reproduced by a 2+3 combination")  # pragma: no cover


def omaha_high(hole: Sequence[Card], board: Sequence[Card]) -> HighHand:
    """Best Omaha high hand: exactly two of the four hole cards and three of the five board cards.

    Raises:
        ValueError: not 4 hole cards and 5 board cards.
        CardError: the joker is among the cards.
    """
    if len(hole) != 4 or len(board) != 5:
        raise ValueError(f"Omaha needs 4 hole cards and 5 board cards, got {len(hole)} and {len(board)}")
    _check_standard(hole)
    _check_standard(board)
    return omaha_high_codes(sorted(c.code for c in hole), sorted(c.code for c in board))


def three_card_high(cards: Sequence[Card]) -> HighHand:
    """A 3-card Chinese-poker front: only high card, pair and three of a kind count.

    Straights and flushes do not count in a front.  The strength is on the same scale as
    5-card hands (``category << 20`` then the significance-ordered ranks packed 4 bits each,
    missing ranks 0), so a front is compared with a middle by category first and then rank by
    rank, position by position, a kicker the front does not have counting lower than any card:

    * ``K-K-5`` (pair of kings, ranks ``(13, 5)``) beats ``K-K-4-3-2`` (``(13, 4, 3, 2)``):
      5 > 4 at the second position, so a front K-K-5 over a middle K-K-4-3-2 fouls;
    * ``K-K-4`` against ``K-K-4-3-2``: ``(13, 4)`` against ``(13, 4, 3, 2)``, the third
      position is missing in the front, so the front is lower and the hand does not foul.
      (A 3-card front can never be *equal* to a 5-card hand.)

    Raises:
        ValueError: not exactly three cards.
        CardError: the joker is among the cards.
    """
    if len(cards) != 3:
        raise ValueError(f"a front hand has 3 cards, got {len(cards)}")
    _check_standard(cards)
    ordered = sorted(cards, key=card_key)
    a, b, c = (x.rank for x in ordered)  # ascending
    category: Category
    ranks: tuple[int, ...]
    groups: _Groups
    if a == c:
        category, ranks, groups = Category.THREE_OF_A_KIND, (a,), ((a, 3),)
    elif a == b or b == c:
        pr, k = (a, c) if a == b else (c, a)
        category, ranks, groups = Category.PAIR, (pr, k), ((pr, 2), (k, 1))
    else:
        category, ranks, groups = Category.HIGH_CARD, (c, b, a), ((c, 1), (b, 1), (a, 1))
    picked = _pick(_bits([x.code for x in ordered]), groups, False)
    return HighHand(_pack(category, ranks), category, _high_name(category, ranks), picked, ranks)


# --------------------------------------------------------------------------------------
# Ace-to-five low hands
# --------------------------------------------------------------------------------------

#: ``LowHand.strength = LOW_TOP - packed``; bigger strength is the better (lower) hand.
LOW_TOP: Final = 1 << 24


@dataclass(frozen=True, slots=True)
class LowHand:
    """An ace-to-five low hand (ace low, straights and flushes ignored, pairs count).

    Attributes:
        strength: bigger is better (a lower hand has a bigger strength):
            ``LOW_TOP - (category << 20 | r1 << 16 | ... | r5)`` with ace-low ranks.
        category: ``Category.HIGH_CARD`` for five unpaired ranks, else the pair category.
        name: ``"8-6-4-3-2"``, ``"7-5-4-3-A"``, ``"Pair of twos, 6-5-4"``.
        cards: the five cards, in order of significance (the joker, if used, where its rank
            falls).
        ranks: significance-ordered ace-low ranks (ace 1), e.g. ``(8, 6, 4, 3, 2)`` or
            ``(2, 6, 5, 4)`` for a pair of twos with 6-5-4.
        qualifies_8: five unpaired ranks, 8 or lower (the 8-or-better qualifier).
    """

    strength: int
    category: Category
    name: str
    cards: tuple[Card, ...]
    ranks: tuple[int, ...]
    qualifies_8: bool


_make_low: Final = maker(LowHand)


@dataclass(frozen=True, slots=True)
class _LowClass:
    strength: int
    category: Category
    ranks: tuple[int, ...]
    name: str
    groups: _Groups
    qualifies_8: bool


def _low_name(category: Category, ranks: tuple[int, ...]) -> str:
    ch, p = _LOW_CHAR, _PLURAL
    if category is Category.HIGH_CARD:
        return "-".join(ch[r] for r in ranks)
    kick = "-".join(ch[r] for r in ranks[1:])
    if category is Category.PAIR:
        return f"Pair of {p[ranks[0]]}, {kick}"
    if category is Category.TWO_PAIR:
        return f"Two pair, {p[ranks[0]]} and {p[ranks[1]]}, {ch[ranks[2]]}"
    if category is Category.THREE_OF_A_KIND:
        return f"Three of a kind, {p[ranks[0]]}, {kick}"
    if category is Category.FULL_HOUSE:
        return f"Full house, {p[ranks[0]]} full of {p[ranks[1]]}"
    return f"Four of a kind, {p[ranks[0]]}, {kick}"


_LOW_CATEGORY_BY_SHAPE: Final = {
    (1, 1, 1, 1, 1): Category.HIGH_CARD,
    (2, 1, 1, 1): Category.PAIR,
    (2, 2, 1): Category.TWO_PAIR,
    (3, 1, 1): Category.THREE_OF_A_KIND,
    (3, 2): Category.FULL_HOUSE,
    (4, 1): Category.FOUR_OF_A_KIND,
}

# Cache: sorted tuple of five ace-low ranks -> low class (at most 6,175 entries).
_LOW_BY_RANKS: dict[tuple[int, ...], _LowClass] = {}
# Cache: bit mask of five distinct ace-low ranks (bit r-1) -> low class (at most 1,287).
_LOW_BY_MASK: dict[int, _LowClass] = {}


def _low_class(ranks5: tuple[int, ...]) -> _LowClass:
    """Low class of five ace-low ranks given in ascending order."""
    klass = _LOW_BY_RANKS.get(ranks5)
    if klass is None:
        counts: dict[int, int] = {}
        for r in ranks5:
            counts[r] = counts.get(r, 0) + 1
        groups = tuple(sorted(counts.items(), key=lambda rc: (-rc[1], -rc[0])))
        if groups[0][1] > 4:
            raise ValueError(f"five cards of one rank: {ranks5}")
        category = _LOW_CATEGORY_BY_SHAPE[tuple(n for _, n in groups)]
        ranks = tuple(r for r, _ in groups)
        qualifies = category is Category.HIGH_CARD and ranks[0] <= 8
        klass = _LowClass(
            LOW_TOP - _pack(category, ranks), category, ranks, _low_name(category, ranks), groups, qualifies
        )
        _LOW_BY_RANKS[ranks5] = klass
    return klass


def _low_class_by_mask(mask: int) -> _LowClass:
    klass = _LOW_BY_MASK.get(mask)
    if klass is None:
        klass = _low_class(tuple(r for r in range(1, 14) if mask >> (r - 1) & 1))
        _LOW_BY_MASK[mask] = klass
    return klass


#: Ace-low rank of each card code (ace 1 .. king 13; the joker 0).
_LOW_RANK: Final[tuple[int, ...]] = (*((c >> 2) + 2 if c < 48 else 1 for c in range(52)), 0)
#: Rank bit (bit ``rank - 1``) of each card code; the joker 0.
_LOW_BIT: Final[tuple[int, ...]] = (*(1 << (r - 1) for r in _LOW_RANK[:52]), 0)
#: "Lowest card by suit" order of each code: ace low, then clubs < diamonds < hearts < spades.
LOW_CARD_ORDER: Final[tuple[int, ...]] = (*(_LOW_RANK[c] * 4 + (c & 3) for c in range(52)), 0)


def _pick_low(bits: int, klass: _LowClass, joker_rank: int = 0) -> tuple[Card, ...]:
    """Cards for a low class out of the card set ``bits`` (the joker stands for ``joker_rank``)."""
    if not joker_rank:
        return _pick(bits, klass.groups, False)
    out: tuple[Card, ...] = ()
    for rank, n in klass.groups:
        out += (JOKER,) if rank == joker_rank else _PICK[rank][(bits >> _SHIFT[rank]) & 15][n]
    return out


def _low_hand(klass: _LowClass, cards: tuple[Card, ...]) -> LowHand:
    return _make_low(klass.strength, klass.category, klass.name, cards, klass.ranks, klass.qualifies_8)


def _lowest_bits(mask: int, n: int) -> int:
    out = 0
    for _ in range(n):
        bit = mask & -mask
        out |= bit
        mask ^= bit
    return out


def low_from_codes(codes: Sequence[int], joker_ok: bool = False) -> LowHand:
    """Best ace-to-five low of five or more card codes (see :func:`best_low_a5`)."""
    mask = 0
    bits = 0
    jokers = 0
    for code in codes:
        if code == JOKER_CODE:
            jokers += 1
        else:
            mask |= _LOW_BIT[code]
            bits |= 1 << code
    joker_rank = 0
    if jokers:
        if not joker_ok:
            raise CardError("the joker JK plays only in lowball")
        if jokers > 1:
            raise CardError("the joker JK appears twice")
        free = ~mask & 0x1FFF
        joker_rank = (free & -free).bit_length()  # the lowest rank not in the hand
        mask |= 1 << (joker_rank - 1)
    if mask.bit_count() >= 5:
        klass = _low_class_by_mask(_lowest_bits(mask, 5))
    else:  # fewer than five ranks: some pairing is forced; rank every choice of five
        ranks = sorted(joker_rank if c == JOKER_CODE else _LOW_RANK[c] for c in codes)
        best: _LowClass | None = None
        for combo in set(combinations(ranks, 5)):
            k = _low_class(combo)
            if best is None or k.strength > best.strength:
                best = k
        assert best is not None
        klass = best
    return _low_hand(klass, _pick_low(bits, klass, joker_rank))


def best_low_a5(cards: Sequence[Card], joker_ok: bool = False) -> LowHand:
    """Best ace-to-five low of five or more cards (razz, lowball, stud-hi-lo, draw, option alley).

    Ace is low, straights and flushes are ignored, pairs count against the hand and are ranked
    like high hands (one pair beats two pair, a lower pair beats a higher pair, then kickers
    from the top down).  With ``joker_ok`` the joker ``JK`` is the lowest rank not already in
    the hand (lowball).

    Raises:
        ValueError: fewer than five cards.
        CardError: the joker is among the cards but not allowed, or appears twice.
    """
    if len(cards) < 5:
        raise ValueError(f"a low hand needs at least 5 cards, got {len(cards)}")
    return low_from_codes([c.code for c in cards], joker_ok)


#: For an 8-bit mask of ranks A..8: its three (five) lowest ranks, or 0 if it has fewer.
_LOW3_OF_8: Final[tuple[int, ...]] = tuple(
    _lowest_bits(m, 3) if m.bit_count() >= 3 else 0 for m in range(256)
)
_LOW5_OF_8: Final[tuple[int, ...]] = tuple(
    _lowest_bits(m, 5) if m.bit_count() >= 5 else 0 for m in range(256)
)


def low8_from_codes(codes: Sequence[int]) -> LowHand | None:
    """The best 8-or-better low of five or more card codes (no joker), or ``None``.

    When five different ranks 8 or lower are present their five lowest are the best low at
    all; otherwise no 8-or-better low exists.
    """
    mask = 0
    bits = 0
    for code in codes:
        mask |= _LOW_BIT[code]
        bits |= 1 << code
    five = _LOW5_OF_8[mask & 0xFF]
    if not five:
        return None
    klass = _low_class_by_mask(five)
    return _low_hand(klass, _pick(bits, klass.groups, False))


def omaha_board_low8(bc: Sequence[int]) -> tuple[int, int]:
    """``(mask of the board's ranks A..8, bit set of the board's cards)`` for :func:`omaha_low8`."""
    mask = 0
    bits = 0
    for code in bc:
        mask |= _LOW_BIT[code]
        bits |= 1 << code
    return mask & 0xFF, bits


def omaha_low8(hc: list[int], board_low8: int, board_bits: int) -> LowHand | None:
    """The best 8-or-better Omaha low (exactly 2 + 3), or ``None``.

    ``hc``: the hole codes sorted by LOW_CARD_ORDER; ``board_low8``/``board_bits`` from
    :func:`omaha_board_low8`.  For each pair of different hole ranks 8 or lower, the board's
    three lowest other ranks complete the best low with that pair; compared as rank masks
    (a lower mask is a lower hand when all five ranks differ).
    """
    if board_low8.bit_count() < 3:
        return None
    best_mask = 0
    x = y = 0
    low3 = _LOW3_OF_8
    for i, j in _HOLE_PAIRS:
        a = _LOW_BIT[hc[i]]
        b = _LOW_BIT[hc[j]]
        if a == b or a > 0x80 or b > 0x80:
            continue
        pair = a | b
        rest = low3[board_low8 & ~pair]
        if rest and (not best_mask or pair | rest < best_mask):
            best_mask, x, y = pair | rest, hc[i], hc[j]
    if not best_mask:
        return None
    klass = _low_class_by_mask(best_mask)
    # The board may not supply the pair's ranks: clear those ranks from the board's cards.
    board_bits &= ~(15 << _SHIFT[_LOW_RANK[x]] | 15 << _SHIFT[_LOW_RANK[y]])
    return _low_hand(klass, _pick(1 << x | 1 << y | board_bits, klass.groups, False))


def _omaha_low_codes(hc: list[int], bc: list[int]) -> LowHand:
    """Omaha low from 4 hole and 5 board codes, the hole codes sorted by LOW_CARD_ORDER."""
    eight = omaha_low8(hc, *omaha_board_low8(bc))
    if eight is not None:  # an 8-or-better low is the best low there is
        return eight
    board_mask = 0
    board_bits = 0
    for code in bc:
        board_mask |= _LOW_BIT[code]
        board_bits |= 1 << code
    best_mask = 0
    best_pair = (0, 0)
    for i, j in _HOLE_PAIRS:
        pair_mask = _LOW_BIT[hc[i]] | _LOW_BIT[hc[j]]
        if pair_mask.bit_count() < 2:
            continue
        rest = board_mask & ~pair_mask
        if rest.bit_count() < 3:
            continue
        m = pair_mask | _lowest_bits(rest, 3)
        if best_mask == 0 or m < best_mask:
            best_mask, best_pair = m, (hc[i], hc[j])
    if best_mask:
        klass = _low_class_by_mask(best_mask)
        x, y = best_pair
        # The board may not supply the pair's ranks: clear those ranks from the board's cards.
        board_bits &= ~(15 << _SHIFT[_LOW_RANK[x]] | 15 << _SHIFT[_LOW_RANK[y]])
        return _low_hand(klass, _pick(1 << x | 1 << y | board_bits, klass.groups, False))
    # No unpaired low at all: rank every 2+3 combination (paired lows).
    best: tuple[_LowClass, int] | None = None
    for i, j in _HOLE_PAIRS:
        for p, q, r in _BOARD_TRIPLES:
            five = (hc[i], hc[j], bc[p], bc[q], bc[r])
            k = _low_class(tuple(sorted(_LOW_RANK[c] for c in five)))
            if best is None or k.strength > best[0].strength:
                best = (k, _bits(five))
    assert best is not None
    return _low_hand(best[0], _pick_low(best[1], best[0]))


def omaha_low(hole: Sequence[Card], board: Sequence[Card]) -> LowHand:
    """Best ace-to-five low using exactly two of four hole cards and three of five board cards.

    Returns the best low even when it does not qualify (check ``qualifies_8``): when any 8-or-
    better low exists, the best low is one.

    Raises:
        ValueError: not 4 hole cards and 5 board cards.
        CardError: the joker is among the cards.
    """
    if len(hole) != 4 or len(board) != 5:
        raise ValueError(f"Omaha needs 4 hole cards and 5 board cards, got {len(hole)} and {len(board)}")
    _check_standard(hole)
    _check_standard(board)
    hc = sorted((c.code for c in hole), key=LOW_CARD_ORDER.__getitem__)
    return _omaha_low_codes(hc, [c.code for c in board])


def qualifies_8(low: LowHand | None) -> bool:
    """The 8-or-better qualifier: five unpaired ranks, 8 or lower (``None`` never qualifies)."""
    return low is not None and low.qualifies_8
