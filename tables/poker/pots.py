"""Main and side pots, hi/lo halves and odd chips (RULINGS section 2, Robert's Rules).

Everything here is integer cents and pure: the caller says what each seat put in, who folded,
each live seat's hand strengths (bigger is better) and the odd-chip order, and gets back the
pots with their awards, the chips returned to their owners and each seat's net.

Rules applied:

* Pots are built from the contribution levels: every distinct total put in is a level; each
  seat puts ``min(put_in, level) - min(put_in, previous level)`` into the slice between two
  levels.  Folded chips stay in the slices they reached.  A slice may be won by the live
  (not folded) seats that reached its top.  Consecutive slices that the same seats may win are
  one pot.
* Chips that nobody else matched (a slice only one seat reached) go back to that seat; they
  are reported in ``returned``, not as a pot.
* A pot goes to the best hand(s) among its seats.  In hi/lo the high half takes the odd chip
  of the halves; when no seat of the pot has a qualifying low the high hand(s) take it all.
* Tied hands split in whole ``chip`` units; the chips that do not divide go one each, in odd-
  chip order (button games: first seat clockwise from the button; stud games: highest card by
  suit for high, lowest card by suit for low).  An amount below one chip (when an amount is
  not a multiple of ``chip``) goes, as a further odd amount, to the next seat in the same order
  (the first seat that did not get an odd chip), so nobody gets more than one odd piece.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter
from typing import Final, Protocol

from ._fast import maker

__all__ = [
    "Award",
    "ButtonOrder",
    "Pot",
    "PotError",
    "PotResult",
    "Returned",
    "Settlement",
    "Share",
    "Stake",
    "StakeLike",
    "build_pots",
    "button_order",
    "settle",
    "split_amount",
    "split_hi_lo",
]


class PotError(ValueError):
    """Contributions that cannot be settled (e.g. chips no live player can win)."""


class Share(StrEnum):
    HIGH = "high"
    LOW = "low"
    WHOLE = "whole"


@dataclass(frozen=True, slots=True)
class Stake:
    """What one seat put into the pot during the hand, and whether it folded."""

    seat: int
    put_in: int
    folded: bool = False


class StakeLike(Protocol):
    """Anything with a seat, a total put in and a fold flag (e.g. :class:`Stake`)."""

    @property
    def seat(self) -> int: ...

    @property
    def put_in(self) -> int: ...

    @property
    def folded(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Pot:
    """A main or side pot before it is awarded: its amount and the seats that may win it."""

    amount: int
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Returned:
    """Chips nobody else matched, given back to their owner."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class Award:
    seat: int
    amount: int
    share: Share


@dataclass(frozen=True, slots=True)
class PotResult:
    amount: int
    seats: tuple[int, ...]
    awards: tuple[Award, ...]


@dataclass(frozen=True, slots=True)
class Settlement:
    """Pots in order (main pot first), chips returned, and each seat's net (won - put in)."""

    pots: tuple[PotResult, ...]
    returned: tuple[Returned, ...]
    net: Mapping[int, int]


_make_pot: Final = maker(Pot)
_make_returned: Final = maker(Returned)
_make_award: Final = maker(Award)
_make_pot_result: Final = maker(PotResult)
_make_settlement: Final = maker(Settlement)


def _slices(stakes: Sequence[StakeLike]) -> tuple[list[tuple[int, tuple[int, ...]]], list[Returned]]:
    """(amount, seats) of every pot, main first, and the returned chips (see build_pots)."""
    ordered = sorted(stakes, key=_PUT_IN)
    if ordered and ordered[0].put_in < 0:
        s = ordered[0]
        raise PotError(f"seat {s.seat}: negative amount put in ({s.put_in})")
    live = sorted([(s.seat, s.put_in) for s in stakes if not s.folded])
    n = len(ordered)
    pots: list[tuple[int, tuple[int, ...]]] = []
    returned: list[Returned] = []
    prev = 0
    for i, stake in enumerate(ordered):
        level = stake.put_in
        if level == prev:
            continue
        count = n - i  # the seats that put in at least ``level``
        amount = (level - prev) * count
        bottom, prev = prev, level
        if count == 1:
            # Only possible for the top slice: nobody else matched these chips.
            returned.append(_make_returned(stake.seat, amount))
            continue
        seats = tuple([seat for seat, put in live if put >= level])
        if not seats:
            owners = ", ".join(str(x) for x in sorted(s.seat for s in ordered[i:]))
            raise PotError(
                f"{amount} put in between {bottom} and {level} by seats {owners} "
                "(all folded) cannot be won by any live player"
            )
        if pots and pots[-1][1] == seats:
            pots[-1] = (pots[-1][0] + amount, seats)
        else:
            pots.append((amount, seats))
    return pots, returned


def build_pots(stakes: Sequence[StakeLike]) -> tuple[tuple[Pot, ...], tuple[Returned, ...]]:
    """Main and side pots (main first) and the unmatched chips to return.

    Raises:
        PotError: a negative amount, or a slice of chips that no live seat reached (only
            possible with folded seats above every live seat, which cannot happen in a real
            hand).
    """
    pots, returned = _slices(stakes)
    return tuple(_make_pot(amount, seats) for amount, seats in pots), tuple(returned)


_PUT_IN: Final = attrgetter("put_in")


class ButtonOrder(Mapping[int, int]):
    """Odd-chip priority for button games (smaller first): the first seat clockwise from the
    button, then on around the table, the button itself last.

    Seat order clockwise is ascending seat number, wrapping around.  Priorities are computed
    on lookup, so building the order costs nothing when no hands tie.
    """

    __slots__ = ("_button", "_seats")

    def __init__(self, seats: Iterable[int], button: int) -> None:
        self._seats = tuple(seats)
        self._button = button

    def __getitem__(self, seat: int) -> int:
        # seats after the button first (ascending), then those up to and including it
        return seat + (1 << 48) if seat <= self._button else seat

    def __iter__(self) -> Iterator[int]:
        return iter(sorted(self._seats, key=self.__getitem__))

    def __len__(self) -> int:
        return len(self._seats)


def button_order(seats: Iterable[int], button: int) -> ButtonOrder:
    """Odd-chip priority for button games: iterating gives the seats in odd-chip order."""
    return ButtonOrder(seats, button)


def split_amount(amount: int, seats_in_order: Sequence[int], chip: int, share: Share) -> list[Award]:
    """Split ``amount`` among tied ``seats_in_order`` (odd-chip order, first gets the first odd chip).

    Whole chips are shared evenly; the odd chips go one each in order; an amount below one chip
    goes to the next seat in order.  No seat gets more than one odd chip.
    """
    n = len(seats_in_order)
    if n == 1:
        return [_make_award(seats_in_order[0], amount, share)] if amount else []
    if n == 0:
        raise ValueError("nobody to split the pot between")
    if chip <= 0:
        raise ValueError(f"chip must be positive, got {chip}")
    units, below_chip = divmod(amount, chip)
    each, odd = divmod(units, n)
    assert odd < n, "more odd chips than tied hands"
    amounts = [each * chip] * n
    for i in range(odd):
        amounts[i] += chip
    if below_chip:
        amounts[odd] += below_chip  # odd < n: the first seat without an odd chip
    return [_make_award(seat, amounts[i], share) for i, seat in enumerate(seats_in_order) if amounts[i]]


def split_hi_lo(amount: int, chip: int) -> tuple[int, int]:
    """High half and low half of ``amount``: the high half takes the odd chip (and any amount
    below one chip)."""
    low_units = (amount // chip) // 2
    return amount - low_units * chip, low_units * chip


def _winners(seats: Sequence[int], strength: Mapping[int, int], order: Mapping[int, int]) -> list[int]:
    values = [strength[s] for s in seats]
    best = max(values)
    if values.count(best) == 1:
        return [seats[values.index(best)]]
    tied = [s for s, v in zip(seats, values, strict=True) if v == best]
    tied.sort(key=order.__getitem__)
    return tied


def settle(
    stakes: Sequence[StakeLike],
    *,
    chip: int,
    high: Mapping[int, int] | None = None,
    low: Mapping[int, int] | None = None,
    high_order: Mapping[int, int],
    low_order: Mapping[int, int] | None = None,
) -> Settlement:
    """Build the pots and award them.

    Args:
        stakes: every seat's total put in and fold flag (seats unique).
        chip: the smallest chip, in cents; ties split in units of it.
        high: live seat -> high strength (bigger better), or ``None`` for a low-only game.
        low: live seat -> low strength (bigger better) for the seats with a (qualifying) low,
            or ``None`` for a high-only game.  In a hi/lo game a seat missing from ``low`` has
            no qualifying low.
        high_order: odd-chip priority for high (and whole-pot) ties; smaller goes first.
        low_order: odd-chip priority for low ties (defaults to ``high_order``).

    Mode: ``high`` only -> each pot to the best high (share ``whole``); ``low`` only -> to the
    best low (``whole``); both -> hi/lo halves (``high``/``low``), or all to high (``whole``)
    when no seat of the pot has a low.  A pot with a single seat goes to it (``whole``) without
    reading hands.
    """
    if chip <= 0:
        raise PotError(f"chip must be a positive number of cents, got {chip}")
    if high is None and low is None:
        raise ValueError("settle() needs high and/or low strengths")
    if low_order is None:
        low_order = high_order
    by_seat = sorted([(s.seat, s.put_in) for s in stakes])
    won: dict[int, int] = dict.fromkeys([seat for seat, _ in by_seat], 0)
    if len(won) != len(stakes):
        raise PotError("a seat appears twice among the stakes")
    pots, returned = _slices(stakes)
    results: list[PotResult] = []
    whole = Share.WHOLE
    make_award = _make_award
    for amount, seats in pots:
        awards: list[Award]
        if len(seats) == 1:
            awards = [make_award(seats[0], amount, whole)]
        elif low is None:
            assert high is not None
            values = [high[s] for s in seats]
            best = max(values)
            if values.count(best) == 1:  # one winner: no split (the usual case)
                awards = [make_award(seats[values.index(best)], amount, whole)]
            else:
                awards = split_amount(amount, _winners(seats, high, high_order), chip, whole)
        elif high is None:
            awards = split_amount(amount, _winners(seats, low, low_order), chip, whole)
        else:
            low_seats = [s for s in seats if s in low]
            if not low_seats:
                awards = split_amount(amount, _winners(seats, high, high_order), chip, whole)
            else:
                high_half, low_half = split_hi_lo(amount, chip)
                awards = split_amount(high_half, _winners(seats, high, high_order), chip, Share.HIGH)
                awards += split_amount(low_half, _winners(low_seats, low, low_order), chip, Share.LOW)
        for award in awards:
            won[award.seat] += award.amount
        results.append(_make_pot_result(amount, seats, tuple(awards)))
    for r in returned:
        won[r.seat] += r.amount
    net = {seat: won[seat] - put for seat, put in by_seat}
    return _make_settlement(tuple(results), tuple(returned), net)
