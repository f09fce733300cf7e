"""Seating: a player sits down, gets up, or moves to another seat or table.

:func:`move_seating_locked` is the floor's part of a move (the chips move with the money flow,
:func:`handflow.services.move_player`, which holds both tables locked). A player who gets up takes
their winning streak and kill with them (RULINGS §2).

A player sits at one table at a time (every record of the identity, :mod:`tables.selectors`):
seating one who sits at another table is refused (``seated_elsewhere``) unless the floor allows it
with a reason (``elsewhere_reason``, kept on the new seating). The buy-in of a player not seated at
its table seats through :func:`seat_player` (:func:`handflow.services.buy_in`), so it is refused
the same way. A merged record is not seated (``player_merged``: seat the survivor).
"""

from __future__ import annotations

import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.core.db import service
from tables.buttons import clear_seat
from tables.choices import HandStatus
from tables.errors import (
    FloorValidationError,
    NotSeated,
    PlayerAlreadySeated,
    PlayerInHand,
    SeatedElsewhere,
    SeatNotFound,
    SeatTaken,
    TableClosed,
)
from tables.models import HandPlayer, Player, Seat, Seating, Table
from tables.selectors import seated_elsewhere, survivor_id
from tables.services.common import User, acting_user, check_text
from tables.services.hands import kill_state, store_kill_state
from tables.services.locks import lock_buttons, lock_table
from tables.services.players import check_not_merged


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


def check_one_table(*, player: Player, table: Table, elsewhere_reason: str = "") -> str:
    """The one-table rule for seating ``player`` at ``table``: SeatedElsewhere when any record of
    the player sits at another table and no ``elsewhere_reason`` is given (the floor's reason to
    allow a second table); returns the reason to keep ("" when the player sits nowhere else).
    Reads only: callers that seat call it under the table's lock (:func:`seat_player` does)."""
    reason = (elsewhere_reason or "").strip()
    if reason:
        check_text(reason, field="elsewhere_reason", what="The reason", longest=500)
    away = seated_elsewhere(player, table)
    if not away:
        return ""
    if not reason:
        where = ", ".join(f"table {s.table.number} seat {s.seat.number}" for s in away)
        raise SeatedElsewhere(
            f"{player.name} already sits at {where}: a player sits at one table at a time. Cash out or "
            "change tables first, or allow a second table with a reason.",
            field="player",
        )
    return reason


def _occupy(
    *,
    table: Table,
    seat: Seat,
    player: Player,
    by: User,
    at: datetime.datetime | None = None,
    elsewhere_reason: str | None = "",
) -> Seating:
    """Create the seating after the checks; the table row is locked by the caller.
    ``elsewhere_reason`` None: a move (the player leaves the table they sat at), no one-table check."""
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
    reason = ""
    if elsewhere_reason is not None:
        check_not_merged(player, "seat")
        # The player's row locked (after the table's): two tables seating one player at once take
        # turns, and the second sees the first's seating.
        list(Player.objects.select_for_update().filter(pk=survivor_id(player)).values_list("pk", flat=True))
        reason = check_one_table(player=player, table=table, elsewhere_reason=elsewhere_reason)
    try:
        with transaction.atomic():
            return Seating.objects.create(
                table=table,
                seat=seat,
                player=player,
                seated_at=at or timezone.now(),
                seated_by=acting_user(by),
                elsewhere_reason=reason,
            )
    except IntegrityError:
        # Only reachable if a writer got past the table lock (it shouldn't); report it the same way.
        raise SeatTaken(
            f"Seat {seat.number} at table {table.number} was just taken.", field="seat_number"
        ) from None


@service
def seat_player(
    *, table: Table, seat_number: int, player: Player, by: User, elsewhere_reason: str = ""
) -> Seating:
    """Seat ``player`` in seat ``seat_number`` at an open table.

    A player sits at one table at a time: one seated at another table (any record of the
    identity) is refused with SeatedElsewhere unless ``elsewhere_reason`` says why the floor
    allows a second table (kept on the seating). Raises SeatNotFound, TableClosed, SeatTaken,
    PlayerAlreadySeated, SeatedElsewhere or PlayerMerged (a merged record: seat the survivor).
    Seating while a hand is in progress is fine: the player is dealt in from the next hand.
    """
    table = lock_table(table)
    seat = _seat(table, seat_number)
    return _occupy(table=table, seat=seat, player=player, by=by, elsewhere_reason=elsewhere_reason)


def _leave(seating: Seating, by: User, now: datetime.datetime) -> None:
    seating.left_at = now
    seating.left_by = acting_user(by)
    seating.save(update_fields=["left_at", "left_by"])
    # The player's winning streak and kill go with them (RULINGS §2: the same player).
    buttons = lock_buttons(seating.table)
    state = clear_seat(kill_state(buttons), seating.seat.number)
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
    # A move takes the player from one table to another: no second table, no one-table check.
    return _occupy(
        table=target_table, seat=target_seat, player=seating.player, by=by, at=now, elsewhere_reason=None
    )
