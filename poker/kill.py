"""Kill hands (004 kill rules, RULINGS section 2).

A kill hand is on when one player has won two pots in a row outright; a split pot (or a hand
with no outright winner) breaks the run.  It lasts while the same player keeps winning
outright.  That player posts the kill blind; the stakes go up x1.5 (half kill) or x2 (full
kill).

Rounding: the kill blind is ``big_blind * multiplier`` rounded *up* to a whole number of
``chip`` (the smallest chip in play), so a kill never plays smaller than the posted
multiple; e.g. a half kill over a 500-cent big blind with 100-cent chips is 800, not 750.
With ``chip=1`` (the default) this is the exact amount in cents rounded up to the cent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

__all__ = ["KillDecision", "KillKind", "kill_blind", "kill_limits", "next_hand_kill"]


class KillKind(StrEnum):
    NONE = "none"
    HALF = "half"
    FULL = "full"

    @property
    def multiplier(self) -> Fraction:
        return {KillKind.NONE: Fraction(1), KillKind.HALF: Fraction(3, 2), KillKind.FULL: Fraction(2)}[self]

    @property
    def multiplier_pct(self) -> int:
        """The stakes of a kill hand in percent, as the floor records them: 100, 150 (half
        kill), 200 (full kill)."""
        return int(self.multiplier * 100)

    @classmethod
    def from_multiplier_pct(cls, pct: int) -> KillKind | None:
        """The kill a hand recorded at ``pct`` percent was (None for a percent no kill has)."""
        return next((kind for kind in cls if kind.multiplier_pct == pct), None)


@dataclass(frozen=True, slots=True)
class KillDecision:
    """Whether the next hand is a kill hand.

    Attributes:
        on: the next hand is a kill hand.
        poster: the seat that posts the kill blind (``None`` when no kill).
        streak: how many pots in a row ``poster`` (or the last outright winner) has won outright.
        multiplier: 3/2 (half kill) or 2 (full kill) when on, else 1.
        kill_blind: the kill blind in cents when on, else ``None``.
    """

    on: bool
    poster: int | None
    streak: int
    multiplier: Fraction
    kill_blind: int | None


def kill_blind(big_blind: int, kind: KillKind | str, chip: int = 1) -> int:
    """The kill blind: ``big_blind`` x 1.5 or x 2, rounded up to a whole ``chip``."""
    if isinstance(big_blind, bool) or not isinstance(big_blind, int) or big_blind <= 0:
        raise ValueError(f"big blind must be a positive integer number of cents, got {big_blind!r}")
    if isinstance(chip, bool) or not isinstance(chip, int) or chip <= 0:
        raise ValueError(f"chip must be a positive integer number of cents, got {chip!r}")
    exact = big_blind * KillKind(kind).multiplier
    chips = -((-exact) // chip)  # ceiling division
    return int(chips) * chip


def kill_limits(small_bet: int, big_bet: int, kind: KillKind | str, chip: int = 1) -> tuple[int, int]:
    """A kill hand's betting limits: each bet x 1.5 or x 2, rounded up to a whole ``chip`` as the
    kill blind is (``kill_blind``). No kill: the limits as they are."""
    if KillKind(kind) == KillKind.NONE:
        return small_bet, big_bet
    return kill_blind(small_bet, kind, chip), kill_blind(big_bet, kind, chip)


def next_hand_kill(
    winners: Sequence[int | None], kind: KillKind | str, big_blind: int, chip: int = 1
) -> KillDecision:
    """Decide the next hand from the outright winners of the hands so far (oldest first).

    ``winners[i]`` is the seat that won hand ``i`` outright, or ``None`` for a split pot or no
    outright winner.  The next hand is a kill hand when the last two or more entries are the
    same seat (and the table plays a half or full kill).
    """
    kind = KillKind(kind)
    streak = 0
    last = winners[-1] if winners else None
    if last is not None:
        for w in reversed(winners):
            if w != last:
                break
            streak += 1
    if kind is KillKind.NONE or last is None or streak < 2:
        return KillDecision(False, None, streak, Fraction(1), None)
    return KillDecision(True, last, streak, kind.multiplier, kill_blind(big_blind, kind, chip))
