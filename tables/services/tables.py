"""Tables: create one with its seats and buttons, change its configuration (a new seat count adds
or removes seats), open it and close it.

Every configuration is checked against the table's game, stakes and schedule
(:func:`tables.validators.table_problems`), and every change is written to the history. The kill
(none, half, full) is part of the stakes: choosing a kill chooses the stakes of the same limits
with that kill (:func:`tables.services.stakes.stakes_with_kill`).
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from casino.core.db import service
from tables.errors import (
    ConfigMismatch,
    FloorConflict,
    FloorValidationError,
    InUse,
    TableAlreadyInState,
    TooManyRates,
)
from tables.history import record_change, snapshot
from tables.models import (
    ButtonState,
    CollectionSchedule,
    ConfigAction,
    Game,
    HandPlayer,
    Seat,
    Seating,
    Stakes,
    Table,
    TableStatus,
)
from tables.services.common import User, require_reason
from tables.services.locks import lock_table, refuse_if_hand_in_progress
from tables.services.stakes import stakes_with_kill
from tables.validators import (
    table_problems,
)


def _check_table_config(
    *, game: Game, stakes: Stakes, seat_count: int, chip_unit_cents: int, schedule: CollectionSchedule
) -> None:
    problems = table_problems(
        game=game, stakes=stakes, seat_count=seat_count, chip_unit_cents=chip_unit_cents, schedule=schedule
    )
    if not problems:
        return
    field, message = next(iter(problems.items()))
    error_class = TooManyRates if field == "collection_schedule" and "at most" in message else ConfigMismatch
    raise error_class(message, field=field, errors=problems)


@service
def create_table(
    *,
    number: int,
    game: Game,
    stakes: Stakes,
    collection_schedule: CollectionSchedule,
    by: User = None,
    seat_count: int | None = None,
    chip_unit_cents: int = 100,
    keep_fees_on_misdeal: bool = False,
    reason: str = "",
    kill: str | None = None,
) -> Table:
    """A new, closed table with seats 1..``seat_count`` (default: the game's seat count);
    ``kill`` (none, half, full; default the stakes' own) picks the stakes of those limits with it."""
    seat_count = seat_count if seat_count is not None else game.seat_count
    if Table.objects.filter(number=number).exists():
        raise FloorConflict(f"Table {number} already exists.", code="duplicate_table", field="number")
    if number is None or number < 1:
        raise FloorValidationError("Table numbers start at 1.", field="number")
    if kill is not None:
        stakes = stakes_with_kill(stakes=stakes, kill=kill, by=by, reason=reason)
    _check_table_config(
        game=game,
        stakes=stakes,
        seat_count=seat_count,
        chip_unit_cents=chip_unit_cents,
        schedule=collection_schedule,
    )
    table = Table.objects.create(
        number=number,
        game=game,
        stakes=stakes,
        seat_count=seat_count,
        chip_unit_cents=chip_unit_cents,
        collection_schedule=collection_schedule,
        keep_fees_on_misdeal=keep_fees_on_misdeal,
    )
    Seat.objects.bulk_create(Seat(table=table, number=n) for n in range(1, seat_count + 1))
    ButtonState.objects.create(table=table)
    record_change(instance=table, action=ConfigAction.CREATE, by=by, reason=reason, after=snapshot(table))
    return table


_UNSET: Any = object()


@service
def configure_table(
    *,
    table: Table,
    by: User,
    reason: str,
    game: Game = _UNSET,
    stakes: Stakes = _UNSET,
    collection_schedule: CollectionSchedule = _UNSET,
    seat_count: int = _UNSET,
    chip_unit_cents: int = _UNSET,
    keep_fees_on_misdeal: bool = _UNSET,
    kill: str = _UNSET,
) -> Table:
    """Change a table's configuration; only the arguments given change. Needs a reason.

    Between hands only: refused while a hand is in progress (HandInProgress; the hand keeps the
    game and stakes it started with anyway). The seat count changes only while nobody is seated in
    the seats that would go away. ``kill`` (none, half, full) picks the stakes of the (new or
    current) limits with that kill. Each change is one history row, told in words by the change
    log (``backoffice.reports.changes``).
    """
    reason = require_reason(reason)
    table = lock_table(table)
    refuse_if_hand_in_progress(table, "reconfigure")
    before = snapshot(table)
    new_game = table.game if game is _UNSET else game
    new_stakes = table.stakes if stakes is _UNSET else stakes
    if kill is not _UNSET and kill is not None:
        new_stakes = stakes_with_kill(stakes=new_stakes, kill=kill, by=by, reason=reason)
    new_schedule = table.collection_schedule if collection_schedule is _UNSET else collection_schedule
    new_seats = table.seat_count if seat_count is _UNSET else seat_count
    new_chip = table.chip_unit_cents if chip_unit_cents is _UNSET else chip_unit_cents
    _check_table_config(
        game=new_game,
        stakes=new_stakes,
        seat_count=new_seats,
        chip_unit_cents=new_chip,
        schedule=new_schedule,
    )
    if new_seats != table.seat_count:
        _resize_seats(table, new_seats)
    table.game, table.stakes, table.collection_schedule = new_game, new_stakes, new_schedule
    table.seat_count, table.chip_unit_cents = new_seats, new_chip
    if keep_fees_on_misdeal is not _UNSET:
        table.keep_fees_on_misdeal = keep_fees_on_misdeal
    table.save()
    after = snapshot(table)
    if after != before:
        record_change(
            instance=table, action=ConfigAction.UPDATE, by=by, reason=reason, before=before, after=after
        )
    return table


def _resize_seats(table: Table, seat_count: int) -> None:
    if seat_count > table.seat_count:
        Seat.objects.bulk_create(
            Seat(table=table, number=n) for n in range(table.seat_count + 1, seat_count + 1)
        )
        return
    going = Seat.objects.filter(table=table, number__gt=seat_count)
    if Seating.objects.active().filter(seat__in=going).exists():
        raise FloorConflict(
            f"Players sit in seats above {seat_count} at table {table.number}; move them first.",
            code="seats_occupied",
            field="seat_count",
        )
    if Seating.objects.filter(seat__in=going).exists() or HandPlayer.objects.filter(seat__in=going).exists():
        raise InUse(
            f"Seats above {seat_count} at table {table.number} have history and can't be removed.",
            field="seat_count",
        )
    ButtonState.objects.filter(table=table).update(button_seat=None, sitting_out_seat=None)
    going.delete()


@service
def open_table(*, table: Table, by: User, reason: str = "") -> Table:
    """Open a closed table. Its configuration is checked again (schedules may have changed)."""
    table = lock_table(table)
    if table.status == TableStatus.OPEN:
        raise TableAlreadyInState(f"Table {table.number} is already open.")
    _check_table_config(
        game=table.game,
        stakes=table.stakes,
        seat_count=table.seat_count,
        chip_unit_cents=table.chip_unit_cents,
        schedule=table.collection_schedule,
    )
    before = snapshot(table)
    table.status = TableStatus.OPEN
    table.opened_at = timezone.now()
    table.closed_at = None
    table.save(update_fields=["status", "opened_at", "closed_at"])
    record_change(
        instance=table, action=ConfigAction.OPEN, by=by, reason=reason, before=before, after=snapshot(table)
    )
    return table


@service
def close_table(*, table: Table, by: User, reason: str = "") -> Table:
    """Close an open table: refused while a hand is in progress, and while anyone is seated.

    Players seated at a closing table are cashed out (:func:`handflow.services.cash_out`) or moved
    to another table with their chips (:func:`handflow.services.move_player`) first: closing the
    table around them would end their seatings and leave their chips on a closed table, to be
    found and cashed out one by one. Refused with FloorConflict ``players_seated`` naming them
    (seat and name), changing nothing. The buttons and kill reset: the next opening starts a new
    game. Raises TableAlreadyInState, HandInProgress, FloorConflict ``players_seated``.
    """
    table = lock_table(table)
    if table.status == TableStatus.CLOSED:
        raise TableAlreadyInState(f"Table {table.number} is already closed.")
    refuse_if_hand_in_progress(table, "close")
    seated = list(
        Seating.objects.active().filter(table=table).select_related("seat", "player").order_by("seat__number")
    )
    if seated:
        names = ", ".join(f"seat {s.seat.number} {s.player.name}" for s in seated)
        raise FloorConflict(
            f"Table {table.number} still has {len(seated)} player(s) seated ({names}); cash them out or "
            "move them to another table before closing it.",
            code="players_seated",
        )
    before = snapshot(table)
    ButtonState.objects.update_or_create(
        table=table,
        defaults={
            "button_seat": None,
            "sitting_out_seat": None,
            "streak_seat": None,
            "streak_wins": 0,
            "kill_seat": None,
            "kill_multiplier_pct": 100,
        },
    )
    table.status = TableStatus.CLOSED
    table.closed_at = timezone.now()
    table.save(update_fields=["status", "closed_at"])
    record_change(
        instance=table, action=ConfigAction.CLOSE, by=by, reason=reason, before=before, after=snapshot(table)
    )
    return table
