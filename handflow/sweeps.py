"""Clean sweeps declared before the showdown (Chinese poker, RULINGS §3): a declaration recorded
with its time (:func:`declare_sweep`), and the showdown entry's check that it carries every
declaration on record (:func:`record_declarations`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils import timezone

from casino.core.db import service
from handflow import locks
from poker.games import GAME_RULES
from poker.showdown_input import ShowdownInput
from poker.sweeps import parse_sweep_kind
from tables import services as floor
from tables.choices import HandStatus
from tables.errors import (
    FloorValidationError,
    HandAlreadySettled,
    HandVoided,
    IllegalTransition,
    InvalidShowdown,
)
from tables.models import Hand, HandPlayer
from tables.services import User


@dataclass(frozen=True, slots=True)
class Declared:
    """A clean sweep on record: the seat's :class:`HandPlayer` (its hand the locked one), and
    ``replayed`` when that declaration was already on record (its first time kept)."""

    seat: HandPlayer
    replayed: bool = False


def _declares_sweeps(hand: Hand) -> bool:
    rules = GAME_RULES.get(hand.game.slug)
    return rules is not None and rules.declares_sweeps


@service
def declare_sweep(*, hand: Hand, seat_number: int, sweep: str, by: User) -> Declared:
    """Record that the player in ``seat_number`` declared a clean sweep (Chinese poker; RULINGS §3:
    declared before the showdown, the 13 cards unset) and when. Declaring the same again keeps the
    first time (``replayed``); the showdown entry must then carry the declaration.

    Raises NotYourTable, FloorValidationError (not Chinese poker, unknown sweep, seat not dealt in,
    another sweep already declared), HandAlreadySettled, HandVoided, IllegalTransition (not dealt).
    """
    table, hand = locks.lock_hand(hand)
    floor.check_runs_hands(table, by)
    if hand.status == HandStatus.SETTLED:
        raise HandAlreadySettled(f"Hand {hand.number} at table {table.number} is already settled.")
    if hand.status == HandStatus.VOID:
        raise HandVoided(f"Hand {hand.number} at table {table.number} is void (misdeal).")
    if hand.status not in (HandStatus.DEALT, HandStatus.SHOWDOWN):
        raise IllegalTransition(f"Hand {hand.number} is {hand.status}; deal it before a declaration.")
    if not _declares_sweeps(hand):
        raise FloorValidationError(f"{hand.game.name} has no clean sweeps to declare.", field="sweep")
    kind = parse_sweep_kind(sweep) if isinstance(sweep, str) else None
    if kind is None:
        raise FloorValidationError(f"{sweep!r} is not a clean sweep the rules know.", field="sweep")
    seat = next((hp for hp in locks.hand_players(hand) if hp.seat.number == seat_number), None)
    if seat is None:
        raise FloorValidationError(f"Seat {seat_number} is not dealt in this hand.", field="seat_number")
    if seat.sweep_declared == kind:
        return Declared(seat, replayed=True)
    if seat.sweep_declared:
        raise FloorValidationError(
            f"Seat {seat_number} already declared {seat.sweep_declared}; a declaration stands.", field="sweep"
        )
    seat.sweep_declared, seat.sweep_declared_at = str(kind), timezone.now()
    seat.save(update_fields=["sweep_declared", "sweep_declared_at"])
    return Declared(seat)


def record_declarations(hand: Hand, hand_players: Sequence[HandPlayer], engine_input: ShowdownInput) -> None:
    """Record each clean sweep the entry declares (when first entered), and refuse an entry that
    drops or changes one on record (a declaration stands: the engine fouls a false one)."""
    if not _declares_sweeps(hand):
        return
    now = timezone.now()
    for hp, entry in zip(hand_players, engine_input.players, strict=True):
        kind = parse_sweep_kind(entry.declared) if entry.declared else None
        declared = str(kind) if kind is not None else entry.declared
        if hp.sweep_declared and declared != hp.sweep_declared:
            raise InvalidShowdown(
                f"Seat {hp.seat.number} declared {hp.sweep_declared} at "
                f"{timezone.localtime(hp.sweep_declared_at):%H:%M:%S}; the entry must declare it too.",
                field="players",
            )
        if declared and not hp.sweep_declared:
            hp.sweep_declared, hp.sweep_declared_at = declared, now
            hp.save(update_fields=["sweep_declared", "sweep_declared_at"])
