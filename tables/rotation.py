"""Button and kill rotation, as pure functions (no Django, no database).

Seats are numbered 1..N clockwise; the house dealer sits between the highest seat and seat 1,
so "clockwise" means ascending seat number, wrapping from the highest back to the lowest.

Contracts:

* :func:`next_button` moves the button to the next eligible seat clockwise after the previous
  button (the first eligible seat from the dealer's left when there was none).
* :func:`deal_order` lists the seats dealt in, starting with the button (position 1, "P1") and
  going clockwise, capped at ``max_hands`` (Chinese poker deals four hands; a fifth seated player
  sits out and rotates in with the button, RULINGS §3).
* :func:`after_pot` advances the kill state after a pot (RULINGS §2, 004 kill rules).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
