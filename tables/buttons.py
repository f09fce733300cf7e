"""The buttons: the dealer button's and the kill's rotation, and who is dealt in, as pure functions
(no Django, no database). (The dealers' own rotation, who deals at which table, is
:mod:`tables.services.dealers`.)

Seats are numbered 1..N clockwise; the house dealer sits between the highest seat and seat 1,
so "clockwise" means ascending seat number, wrapping from the highest back to the lowest.

Contracts:

* :func:`next_button` moves the button to the next eligible seat clockwise after the previous
  button (the first eligible seat from the dealer's left when there was none).
* :func:`deal_order` lists the seats dealt in, starting with the button (position 1, "P1") and
  going clockwise, capped at ``max_hands`` (Chinese poker deals four hands; a fifth seated player
  sits out and rotates in with the button, RULINGS §3).
* :func:`after_pot` advances the kill state after a pot (RULINGS §2, 004 kill rules).
* :func:`choose_dealt` decides who is dealt in when the fee depends on how many are dealt in:
  the fixed point of "leave out whoever can't pay the fee of the band they would be dealt at".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass


class RotationError(ValueError):
    """The inputs break a precondition (e.g. no eligible seat)."""


def _clockwise_from(start: int, seats: Iterable[int], *, inclusive: bool) -> list[int]:
    """``seats`` in clockwise order beginning at (or just after) ``start``."""
    ordered = sorted(set(seats))
    if inclusive:
        after = [s for s in ordered if s >= start]
        before = [s for s in ordered if s < start]
    else:
        after = [s for s in ordered if s > start]
        before = [s for s in ordered if s <= start]
    return after + before


def next_button(previous: int | None, eligible: Iterable[int]) -> int:
    """The seat the button moves to for the next hand.

    ``previous`` is the button seat of the last hand (None for a new game); ``eligible`` the
    seats that can be dealt in now. The button goes to the first eligible seat strictly
    clockwise of ``previous``; for a new game, to the first eligible seat clockwise from the
    dealer (the lowest seat number), as 004 says for Chinese poker.
    """
    seats = sorted(set(eligible))
    if not seats:
        raise RotationError("no eligible seat for the button")
    if previous is None:
        return seats[0]
    return _clockwise_from(previous, seats, inclusive=False)[0]


def deal_order(button: int, eligible: Iterable[int], *, max_hands: int | None = None) -> list[int]:
    """The seats dealt in, in position order: the button first, then clockwise.

    At most ``max_hands`` seats are dealt in (None: all eligible seats). The seats left out are
    the ones furthest clockwise from the button, i.e. just to its right: in Chinese poker the
    seat that had the button last sits out and the one that sat out is dealt in.
    """
    seats = set(eligible)
    if button not in seats:
        raise RotationError(f"the button seat {button} is not eligible")
    if max_hands is not None and max_hands < 1:
        raise RotationError("max_hands must be at least 1")
    order = _clockwise_from(button, seats, inclusive=True)
    return order if max_hands is None else order[:max_hands]


def sitting_out(dealt_in: Sequence[int], eligible: Iterable[int]) -> list[int]:
    """Eligible seats that were not dealt in (Chinese poker's fifth player), ascending."""
    dealt = set(dealt_in)
    return sorted(s for s in set(eligible) if s not in dealt)


@dataclass(frozen=True, slots=True)
class KillState:
    """Who is on a winning streak and whether the next hand is a kill hand.

    ``streak_seat`` won the last ``streak_wins`` pots outright in a row; ``kill_seat`` is that
    seat once the streak reaches two (the kill is on for the next hand and stays on while the
    same player keeps winning outright).
    """

    streak_seat: int | None = None
    streak_wins: int = 0
    kill_seat: int | None = None


KILL_AFTER_WINS = 2  # 004 kill rule 2: the kill is on after two pots won in a row.


def after_pot(state: KillState, outright_winner: int | None, *, kill_enabled: bool) -> KillState:
    """The kill state after a pot.

    ``outright_winner`` is the seat that won the whole pot, or None for a split pot (which
    breaks the run, RULINGS §2). With ``kill_enabled`` False (no kill at the table's stakes) the
    streak is still tracked but no kill is ever put on.
    """
    if outright_winner is None:
        return KillState()
    wins = state.streak_wins + 1 if outright_winner == state.streak_seat else 1
    kill = outright_winner if kill_enabled and wins >= KILL_AFTER_WINS else None
    return KillState(streak_seat=outright_winner, streak_wins=wins, kill_seat=kill)


def clear_seat(state: KillState, seat: int) -> KillState:
    """The kill state after the player in ``seat`` leaves it: their streak and kill end."""
    if state.streak_seat == seat or state.kill_seat == seat:
        return KillState()
    return state


# --- Who can pay: the fixed point ------------------------------------------------------------------


class NoFeeBand(LookupError):
    """``fees_for`` has no fee for this many players (the schedule has no band for them)."""

    def __init__(self, players: int) -> None:
        super().__init__(f"no fee band for {players} players")
        self.players = players


@dataclass(frozen=True, slots=True)
class DealChoice:
    """Who is dealt in: ``dealt`` in position order (the button first) with each position's fee.

    ``cannot_pay``: the seats left out because they can't pay the fee of the band they would be
    dealt at, ascending, each with that fee (None: no band has room for them).
    ``dealt`` is empty when fewer than ``min_players`` can be dealt in.
    """

    button: int | None
    dealt: tuple[int, ...]
    fees: tuple[int, ...]
    cannot_pay: tuple[tuple[int, int | None], ...]


def _deal_at(
    seats: set[int],
    previous: int | None,
    max_hands: int | None,
    fees_for: Callable[[int], Sequence[int]],
) -> tuple[int, list[int], Sequence[int]]:
    button = next_button(previous, seats)
    dealt = deal_order(button, seats, max_hands=max_hands)
    return button, dealt, fees_for(len(dealt))


def choose_dealt(
    *,
    eligible: Iterable[int],
    previous_button: int | None,
    chips: Mapping[int, int],
    fees_for: Callable[[int], Sequence[int]],
    keep_in_play: int,
    max_hands: int | None = None,
    min_players: int = 2,
) -> DealChoice:
    """The players dealt in, the button and the fees, decided together (RULINGS §6, issue of
    2026-11: "who can pay is decided at the band they would actually be dealt at").

    ``fees_for(n)`` is the fee of each position (index 0: the button) when ``n`` players are
    dealt in; it raises :class:`NoFeeBand` when the schedule has no band for ``n``. A player can
    be dealt in when ``chips[seat] - fee >= keep_in_play``.

    The result is a fixed point: everyone dealt in can pay their fee, and no player left out
    could be added with everyone (them included) still able to pay. It is reached in two steps:

    1. while someone dealt in can't pay, leave out ONE of them, the one with the fewest chips
       (ties: the first in deal order), and decide the button and the band again: leaving out
       one player can drop the band, so another short player may be able to pay after all;
    2. then give each player left out, the most chips first, the chance to come back when
       everyone can still pay with them dealt in (a band dropped further after they went).

    Raises :class:`NoFeeBand` when the players who remain have no band (a schedule to revise),
    never for a trial in step 2.
    """
    seats = set(eligible)
    out: list[int] = []

    def fee_if_added(seat: int) -> int | None:
        try:
            _b, dealt, fees = _deal_at(seats | {seat}, previous_button, max_hands, fees_for)
        except NoFeeBand:
            return None
        return fees[dealt.index(seat)] if seat in dealt else 0

    def refused() -> tuple[tuple[int, int | None], ...]:
        return tuple((seat, fee_if_added(seat)) for seat in sorted(out))

    while len(seats) >= min_players:
        _button, dealt, fees = _deal_at(seats, previous_button, max_hands, fees_for)
        short = [
            (chips.get(seat, 0), position, seat)
            for position, (seat, fee) in enumerate(zip(dealt, fees, strict=True))
            if chips.get(seat, 0) - fee < keep_in_play
        ]
        if not short:
            break
        seat = min(short)[2]
        seats.discard(seat)
        out.append(seat)

    def can_all_pay(trial: set[int]) -> bool:
        try:
            _b, dealt, fees = _deal_at(trial, previous_button, max_hands, fees_for)
        except NoFeeBand:
            return False
        return all(chips.get(s, 0) - f >= keep_in_play for s, f in zip(dealt, fees, strict=True))

    # Step 2 also runs when step 1 went below ``min_players``: leaving out a short button moves
    # the button, and a player left out as the button may be able to pay at another position.
    returned = True
    while returned:
        returned = False
        for seat in sorted(out, key=lambda s: (-chips.get(s, 0), s)):
            if can_all_pay(seats | {seat}):
                seats.add(seat)
                out.remove(seat)
                returned = True
                break
    if len(seats) < min_players:
        return DealChoice(button=None, dealt=(), fees=(), cannot_pay=refused())
    button, dealt, fees = _deal_at(seats, previous_button, max_hands, fees_for)
    return DealChoice(button=button, dealt=tuple(dealt), fees=tuple(fees), cannot_pay=refused())
