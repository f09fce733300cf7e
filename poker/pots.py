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
* Lowball's sevens rule (004 lowball rule 2, :func:`settle_void_after_draw`): in a pot whose
  best hand checked a seven or better after the draw, the chips bet after the draw go back to
  whoever bet them.  :func:`settle`, the usual path, does not look at it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
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
    "settle_void_after_draw",
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
    """An awarded pot.

    Attributes:
        amount: what the awards add up to.
        seats: the seats that may win it.
        awards: who got what.
        voided: chips of this pot that went back to the seats that bet them after the draw
            (lowball's sevens rule, :func:`settle_void_after_draw`); the pot as built from the
            contributions is ``amount + voided``.  0 everywhere else.
    """

    amount: int
    seats: tuple[int, ...]
    awards: tuple[Award, ...]
    voided: int = 0


@dataclass(frozen=True, slots=True)
class Settlement:
    """Pots in order (main pot first), chips returned, and each seat's net (won - put in).

    ``voided``: after-draw chips given back to the seats that bet them, one entry per seat in
    seat order (only :func:`settle_void_after_draw` fills it).  Every chip put in is in exactly
    one of: a pot's awards, ``returned``, ``voided``.
    """

    pots: tuple[PotResult, ...]
    returned: tuple[Returned, ...]
    net: Mapping[int, int]
    voided: tuple[Returned, ...] = ()


_make_pot: Final = maker(Pot)
_make_returned: Final = maker(Returned)
_make_award: Final = maker(Award)
_make_pot_result: Final = maker(PotResult)
_make_settlement: Final = maker(Settlement)


def _slices(stakes: Sequence[StakeLike]) -> tuple[list[tuple[int, tuple[int, ...]]], list[Returned]]:
    """(amount, seats) of every pot, main first, and the returned chips (see build_pots)."""
    return _slices_of(sorted(stakes, key=_SEAT), stakes)


def _slices_of(
    by_seat: list[StakeLike], stakes: Sequence[StakeLike]
) -> tuple[list[tuple[int, tuple[int, ...]]], list[Returned]]:
    """:func:`_slices` for the stakes sorted by seat (the hot path of :func:`settle`, which
    has them already); ``stakes`` as given only names the seat of an error."""
    ordered = sorted(by_seat, key=_PUT_IN)
    if ordered and ordered[0].put_in < 0:
        first = min(stakes, key=_PUT_IN)  # the first in the given order, of the smallest
        raise PotError(f"seat {first.seat}: negative amount put in ({first.put_in})")
    live = [s for s in by_seat if not s.folded]
    n = len(ordered)
    pots: list[tuple[int, tuple[int, ...]]] = []
    returned: list[Returned] = []
    prev = 0
    # A slice may be won by the live seats that reached its top: the same seats as the slice
    # below (so the same pot) unless a live seat stopped at the level between the two.
    live_stopped = True  # (the first slice has no slice below)
    i = -1
    for stake in ordered:
        i += 1
        level = stake.put_in
        if level == prev:
            live_stopped = live_stopped or not stake.folded
            continue
        count = n - i  # the seats that put in at least ``level``
        amount = (level - prev) * count
        bottom, prev = prev, level
        if count == 1:
            # Only possible for the top slice: nobody else matched these chips.
            returned.append(_make_returned(stake.seat, amount))
            continue
        if live_stopped:
            seats = tuple([s.seat for s in live if s.put_in >= level])
            if not seats:
                owners = ", ".join(str(x) for x in sorted(s.seat for s in ordered[i:]))
                raise PotError(
                    f"{amount} put in between {bottom} and {level} by seats {owners} "
                    "(all folded) cannot be won by any live player"
                )
            pots.append((amount, seats))
        else:
            pots[-1] = (pots[-1][0] + amount, pots[-1][1])
        live_stopped = not stake.folded
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


_SEAT: Final = attrgetter("seat")
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
    by_seat = sorted(stakes, key=_SEAT)
    # net starts at minus what each seat put in; every award and return is added to it
    net: dict[int, int] = {s.seat: -s.put_in for s in by_seat}
    if len(net) != len(by_seat):
        raise PotError("a seat appears twice among the stakes")
    pots, returned = _slices_of(by_seat, stakes)
    results: list[PotResult] = []
    add_result = results.append
    whole = Share.WHOLE
    make_award, make_result = _make_award, _make_pot_result
    # Pots nest: each pot's seats are among the previous pot's (the seats that put in more).
    # So the seat with the one best high of a pot also has the one best high of every later
    # pot it is in, which then needs no reading: the usual case of side pots.
    leader: int | None = None
    for amount, seats in pots:
        awards: list[Award]
        if len(seats) == 1:
            net[seats[0]] += amount
            add_result(make_result(amount, seats, (make_award(seats[0], amount, whole),), 0))
            continue
        if low is None:
            assert high is not None
            if leader not in seats:
                values = [high[s] for s in seats]
                best = max(values)
                leader = seats[values.index(best)] if values.count(best) == 1 else None
            if leader is not None:  # one winner: no split (the usual case)
                net[leader] += amount
                add_result(make_result(amount, seats, (make_award(leader, amount, whole),), 0))
                continue
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
            net[award.seat] += award.amount
        add_result(make_result(amount, seats, tuple(awards), 0))
    for r in returned:
        net[r.seat] += r.amount
    return _make_settlement(tuple(results), tuple(returned), net, ())


def _pot_ranges(by_seat: Sequence[StakeLike], amounts: Iterable[int]) -> list[tuple[int, int]]:
    """The chip levels ``[bottom, top)`` of each pot, given the pots' amounts in order.

    Pots are consecutive level ranges from 0 (each slice between two levels is in a pot, except
    a top slice that only one seat reached), and every slice holds chips, so walking the
    levels until a pot's amount is reached finds its top.
    """
    puts = [s.put_in for s in by_seat]
    levels = sorted(set(puts))
    ranges: list[tuple[int, int]] = []
    bottom = 0
    i = 0
    for amount in amounts:
        top, got = bottom, 0
        while got < amount:
            while levels[i] <= top:
                i += 1
            level = levels[i]
            got += sum(min(p, level) - min(p, top) for p in puts)
            top = level
        assert got == amount, "a pot does not end on a contribution level"
        ranges.append((bottom, top))
        bottom = top
    return ranges


def settle_void_after_draw(
    stakes: Sequence[StakeLike],
    *,
    chip: int,
    strength: Mapping[int, int],
    order: Mapping[int, int],
    after_draw: Mapping[int, int],
    checked: Collection[int],
) -> Settlement:
    """Settle a one-winner-per-pot game (lowball) under 004 lowball rule 2, the sevens rule.

    A ``checked`` seat checked a seven or better after the draw: it cannot win what was bet
    after the draw (Robert's Rules: if it is the best hand, all action after the draw is void).

    Reading, exact in chips:

    * Pots are built from the totals put in, exactly as :func:`settle` builds them.
    * Each seat's chips sit in the levels in the order they went in: its pre-draw chips fill
      ``[0, put_in - after)``, its after-draw chips ``[put_in - after, put_in)``.  So a pot
      with the levels ``[bottom, top)`` holds ``max(0, min(top, put_in) - max(bottom,
      put_in - after))`` of each seat's after-draw chips.
    * A pot whose best hand (or one of whose tied best hands) is a ``checked`` seat gives its
      after-draw chips back, every seat getting its own (``voided``); the rest of the pot, the
      pre-draw chips, goes to the best hand(s) as usual (ties and odd chips as in
      :func:`settle`).  Every other pot is awarded as usual.

    Args:
        stakes: every seat's total put in and fold flag (seats unique).
        chip: the smallest chip, in cents.
        strength: live seat -> hand strength (bigger better); each pot goes ``whole``.
        order: odd-chip priority between tied hands (smaller first).
        after_draw: seat -> chips put in after the draw, ``0 <= after <= put_in``; a seat
            missing counts 0.
        checked: the seats marked as having checked a seven or better (live seats).

    Returns:
        The settlement: a voiding pot's ``amount`` is what was awarded of it and its
        ``voided`` what went back; ``voided`` lists each seat's chips given back (seat order).
        ``net`` sums to zero.

    Raises:
        PotError: as :func:`settle`; an after-draw amount above the seat's total or negative.
    """
    if chip <= 0:
        raise PotError(f"chip must be a positive number of cents, got {chip}")
    by_seat = sorted(stakes, key=_SEAT)
    net: dict[int, int] = {s.seat: -s.put_in for s in by_seat}
    if len(net) != len(by_seat):
        raise PotError("a seat appears twice among the stakes")
    for s in by_seat:
        after = after_draw.get(s.seat, 0)
        if not 0 <= after <= s.put_in:
            raise PotError(f"seat {s.seat}: {after} put in after the draw, of {s.put_in} put in")
    pots, returned = _slices_of(by_seat, stakes)
    ranges = _pot_ranges(by_seat, [amount for amount, _ in pots])
    # (seat, first after-draw level, top level) of every seat that bet after the draw
    bettors = [
        (s.seat, s.put_in - after_draw[s.seat], s.put_in) for s in by_seat if after_draw.get(s.seat, 0)
    ]
    marked = frozenset(checked)
    voided: dict[int, int] = {}
    results: list[PotResult] = []
    whole = Share.WHOLE
    for (amount, seats), (bottom, top) in zip(pots, ranges, strict=True):
        winners = _winners(seats, strength, order)
        void = 0
        if not marked.isdisjoint(winners):
            for seat, first, last in bettors:
                chips = min(top, last) - max(bottom, first)
                if chips > 0:
                    voided[seat] = voided.get(seat, 0) + chips
                    net[seat] += chips
                    void += chips
        awards = split_amount(amount - void, winners, chip, whole)
        for award in awards:
            net[award.seat] += award.amount
        results.append(_make_pot_result(amount - void, seats, tuple(awards), void))
    for r in returned:
        net[r.seat] += r.amount
    back = tuple(_make_returned(seat, voided[seat]) for seat in sorted(voided))
    return _make_settlement(tuple(results), tuple(returned), net, back)
