"""Ordered payments with all-in caps, shared by Chinese and Taiwanese poker.

Both games settle by a list of *dues* (who owes whom how much, and why) taken in a fixed
order; each due becomes a *payment* of what the caps allow.

Chinese poker (004 rules 2-3, RULINGS section 3): a player's cap is the chips in play at the
start of the hand counted in whole points, ``floor(stack / point) * point``.  Each payment in
settlement order moves ``min(due, payer's remaining cap, payee's remaining cap)`` and *both*
caps go down by what moved: a player can neither lose nor win more than it had in play, and
what lies beyond a cap is simply not paid.

Taiwanese poker (RULINGS section 5): a player pays at most the chips in play at the start of
the hand (counted in whole chips); only the payer's cap counts (``payee_capped=False``), and
it goes down by what the player pays.

A seat without a cap (``None``) is never limited.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ._fast import maker

__all__ = [
    "CapLedger",
    "Due",
    "Payment",
    "nets",
    "settle_in_order",
    "whole_units",
]


def whole_units(stack: int, unit: int) -> int:
    """``floor(stack / unit) * unit``: only whole points (or chips) play."""
    if unit <= 0:
        raise ValueError(f"unit must be positive, got {unit}")
    return stack // unit * unit


@dataclass(frozen=True, slots=True)
class Due:
    """``payer`` owes ``payee`` ``due`` cents (``due >= 0``) for ``reason``."""

    payer: int
    payee: int
    due: int
    reason: str


@dataclass(frozen=True, slots=True)
class Payment:
    """What moved for one due: ``amount <= due`` (less when a cap was reached)."""

    payer: int
    payee: int
    amount: int
    due: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        """The contract's payment object: ``from``, ``to``, ``amount``, ``due``, ``reason``."""
        return {
            "from": self.payer,
            "to": self.payee,
            "amount": self.amount,
            "due": self.due,
            "reason": self.reason,
        }


class CapLedger:
    """Remaining caps by seat, spent payment by payment.

    Args:
        caps: seat -> cap in cents (``None``: no cap).  Seats not listed have no cap.
        payee_capped: whether receiving also spends the payee's cap (Chinese poker) or only
            paying spends the payer's (Taiwanese poker).
    """

    __slots__ = ("_left", "payee_capped")

    def __init__(self, caps: Mapping[int, int | None], *, payee_capped: bool) -> None:
        for seat, cap in caps.items():
            if cap is not None and cap < 0:
                raise ValueError(f"seat {seat}: a cap cannot be negative ({cap})")
        self._left: dict[int, int | None] = dict(caps)
        self.payee_capped = payee_capped

    def left(self, seat: int) -> int | None:
        """What ``seat`` may still move (``None``: no limit)."""
        return self._left.get(seat)

    def move(self, payer: int, payee: int, due: int) -> int:
        """Move as much of ``due`` as the caps allow; returns the amount moved."""
        if due < 0:
            raise ValueError(f"a due cannot be negative ({due})")
        left = self._left
        amount = due
        lp = left.get(payer)
        if lp is not None and lp < amount:
            amount = lp
        lq: int | None = None
        if self.payee_capped:
            lq = left.get(payee)
            if lq is not None and lq < amount:
                amount = lq
        if lp is not None:
            left[payer] = lp - amount
        if lq is not None:
            left[payee] = lq - amount
        return amount


_new_payment: Final = maker(Payment)


def settle_in_order(
    dues: Iterable[Due], caps: Mapping[int, int | None], *, payee_capped: bool = True
) -> tuple[Payment, ...]:
    """Turn ``dues`` (already in settlement order) into payments under the caps."""
    move = CapLedger(caps, payee_capped=payee_capped).move
    new = _new_payment
    return tuple([new(d.payer, d.payee, move(d.payer, d.payee, d.due), d.due, d.reason) for d in dues])


def nets(payments: Iterable[Payment], seats: Sequence[int]) -> dict[int, int]:
    """Each seat's result: received minus paid (sums to zero over the seats)."""
    out = dict.fromkeys(seats, 0)
    for p in payments:
        out[p.payer] -= p.amount
        out[p.payee] += p.amount
    return out
