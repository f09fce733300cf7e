"""Seating: a player sits down, gets up, or moves to another seat or table.

:func:`move_seating_locked` is the floor's part of a move (the chips move with the money flow,
:func:`handflow.services.move_player`, which holds both tables locked). A player who gets up takes
their winning streak and kill with them (RULINGS §2).
"""

from __future__ import annotations

import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.core.db import service
from tables import rotation
from tables.errors import (
    FloorValidationError,
    NotSeated,
    PlayerAlreadySeated,
    PlayerInHand,
    SeatNotFound,
    SeatTaken,
    TableClosed,
)
from tables.models import (
    HandPlayer,
    HandStatus,
    Player,
    Seat,
    Seating,
    Table,
)
from tables.services.common import User, acting_user
from tables.services.hands import kill_state, store_kill_state
from tables.services.locks import lock_buttons, lock_table


def _seat(table: Table, seat_number: int) -> Seat:
    try:
        return Seat.objects.get(table=table, number=seat_number)
    except Seat.DoesNotExist:
        raise SeatNotFound(
            f"Table {table.number} has seats 1 to {table.seat_count}; there is no seat {seat_number}.",
            field="seat_number",
        ) from None


def _player_in_hand(table: Table, player: Player) -> bool:
    return HandPlayer.objects.filter(
        hand__table=table, hand__status__in=HandStatus.in_progress(), player=player
    ).exists()


def _occupy(
    *, table: Table, seat: Seat, player: Player, by: User, at: datetime.datetime | None = None
) -> Seating:
    """Create the seating after the checks; the table row is locked by the caller."""
    if not table.is_open:
        raise TableClosed(f"Table {table.number} is closed; open it before seating players.")
    current = Seating.objects.active().filter(seat=seat).select_related("player").first()
    if current is not None:
        raise SeatTaken(
            f"Seat {seat.number} at table {table.number} is taken by {current.player}.", field="seat_number"
        )
    elsewhere = Seating.objects.active().filter(table=table, player=player).select_related("seat").first()
    if elsewhere is not None:
        raise PlayerAlreadySeated(
            f"{player} already sits in seat {elsewhere.seat.number} at table {table.number}.", field="player"
        )
    try:
        with transaction.atomic():
            return Seating.objects.create(
                table=table,
                seat=seat,
                player=player,
                seated_at=at or timezone.now(),
                seated_by=acting_user(by),
            )
    except IntegrityError:
        # Only reachable if a writer got past the table lock (it shouldn't); report it the same way.
        raise SeatTaken(
            f"Seat {seat.number} at table {table.number} was just taken.", field="seat_number"
        ) from None


@service
def seat_player(*, table: Table, seat_number: int, player: Player, by: User) -> Seating:
    """Seat ``player`` in seat ``seat_number`` at an open table.

    Raises SeatNotFound, TableClosed, SeatTaken or PlayerAlreadySeated. Seating while a hand
    is in progress is fine: the player is dealt in from the next hand.
    """
    table = lock_table(table)
    seat = _seat(table, seat_number)
    return _occupy(table=table, seat=seat, player=player, by=by)


def _leave(seating: Seating, by: User, now: datetime.datetime) -> None:
    seating.left_at = now
    seating.left_by = acting_user(by)
    seating.save(update_fields=["left_at", "left_by"])
    # The player's winning streak and kill go with them (RULINGS §2: the same player).
    buttons = lock_buttons(seating.table)
    state = rotation.clear_seat(kill_state(buttons), seating.seat.number)
    store_kill_state(buttons, state, seating.table)


@service
def unseat_player(*, seating: Seating, by: User) -> Seating:
    """End a seating now. Refused while the player is dealt into a hand in progress."""
    table = lock_table(seating.table_id)
    seating = Seating.objects.select_for_update().select_related("seat", "player", "table").get(pk=seating.pk)
    if not seating.is_active:
        raise NotSeated(f"{seating.player} already left seat {seating.seat.number} at table {table.number}.")
    if _player_in_hand(table, seating.player):
        raise PlayerInHand(
            f"{seating.player} is in the hand in progress at table {table.number}; wait for it to end."
        )
    _leave(seating, by, timezone.now())
    return seating


def move_seating_locked(
    *, seating: Seating, from_table: Table, target_table: Table, to_seat_number: int, by: User
) -> Seating:
    """The move's checks and rows, both tables already locked by the caller (one decision for the
    money flow's seat and table changes, :func:`handflow.services.move_player`)."""
    seating = Seating.objects.select_for_update().select_related("seat", "player", "table").get(pk=seating.pk)
    if not seating.is_active:
        raise NotSeated(f"{seating.player} is no longer seated at table {from_table.number}.")
    target_seat = _seat(target_table, to_seat_number)
    if target_seat.pk == seating.seat_id:
        raise FloorValidationError(
            f"{seating.player} already sits in seat {to_seat_number}.", field="to_seat_number"
        )
    if _player_in_hand(from_table, seating.player):
        raise PlayerInHand(
            f"{seating.player} is in the hand in progress at table {from_table.number}; move them after it."
        )
    if not target_table.is_open:
        raise TableClosed(f"Table {target_table.number} is closed.")
    taken = Seating.objects.active().filter(seat=target_seat).select_related("player").first()
    if taken is not None:
        raise SeatTaken(
            f"Seat {to_seat_number} at table {target_table.number} is taken by {taken.player}.",
            field="to_seat_number",
        )
    now = timezone.now()
    _leave(seating, by, now)
    return _occupy(table=target_table, seat=target_seat, player=seating.player, by=by, at=now)
