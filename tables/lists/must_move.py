"""Must-move tables and table changes: a seat at a main game's table served to a player who is
already seated in the game, before the list.

A must-move table feeds its main game (a :class:`tables.models.MustMove` names the game's list):
when a seat opens at one of the game's other tables, the player longest at the must-move table
moves there first; a table change request (a place on the list for a player seated at another of
the game's tables) is served before the list when the room says so (``table_changes_first``).
Either is a move with the player's chips, which is the hand's money's, not the floor's: the
caller passes it in (``move``, :func:`handflow.services.move_player`), and this service runs it
between its checks and its record, in one transaction. Going out of turn needs the floor's reason.
"""

from __future__ import annotations

from typing import Protocol

from django.utils import timezone

from casino.core.db import service
from tables.errors import FloorConflict, NoOpenSeat, NotFedByList, OutOfTurn
from tables.history import record_change, snapshot
from tables.lists.places import clean_text, player_lists, record_event
from tables.lists.rules import take_off
from tables.lists.selectors import FloorState
from tables.models import (
    ConfigAction,
    EntryState,
    ListEvent,
    MustMove,
    Seating,
    Table,
    WaitingList,
)
from tables.services.common import User, acting_user
from tables.services.locks import lock_table, lock_tables_for_move


class Mover(Protocol):
    """A move of a seated player with their chips (:func:`handflow.services.move_player`)."""

    def __call__(
        self, *, seating: Seating, to_seat_number: int, by: User, to_table: Table | None = None
    ) -> Seating: ...


@service
def set_must_move(*, table: Table, waiting_list: WaitingList, by: User, reason: str = "") -> MustMove:
    """Make ``table`` (of the list's game and stakes) a must-move table of that main game."""
    table = lock_table(table)
    if not waiting_list.feeds(table):
        raise NotFedByList(f"Table {table.number} is not a {waiting_list.label} table.", field="table")
    if MustMove.objects.filter(table=table).exists():
        raise FloorConflict(
            f"Table {table.number} is a must-move table already.", code="duplicate_must_move", field="table"
        )
    must_move = MustMove.objects.create(table=table, waiting_list=waiting_list, created_by=acting_user(by))
    record_change(
        instance=must_move, action=ConfigAction.CREATE, by=by, reason=reason, after=snapshot(must_move)
    )
    return must_move


@service
def end_must_move(*, must_move: MustMove, by: User, reason: str = "") -> None:
    """``must_move``'s table is an ordinary table of its game again."""
    lock_table(must_move.table_id)
    before = snapshot(must_move)
    record_change(instance=must_move, action=ConfigAction.DELETE, by=by, reason=reason, before=before)
    must_move.delete()


@service
def move_in_from_list(
    *, seating: Seating, to_table: Table, to_seat_number: int, by: User, move: Mover, reason: str = ""
) -> Seating:
    """Move ``seating``'s player to ``to_seat_number`` at ``to_table``, a table of a list's game: a
    player at one of the game's must-move tables, or one whose table change request is on the
    list. In turn (the longest at the must-move table first, then the table changes, then the
    list), or out of turn with the floor's ``reason``; recorded with whom it went ahead of. A table
    change's place leaves the list. Returns the new seating. Raises NotFedByList, NoOpenSeat,
    OutOfTurn, FloorConflict ``not_moving_in``, and the move's refusals (a hand in progress, ...)."""
    reason = clean_text(reason, field="reason", what="A reason", longest=500)
    _, target = lock_tables_for_move(seating, to_table)
    waiting_list = WaitingList.objects.filter(game_id=target.game_id, stakes_id=target.stakes_id).first()
    if waiting_list is None or not waiting_list.is_active:
        raise NotFedByList(f"No open list feeds table {target.number}.", field="to_table")
    seating = Seating.objects.select_related("player", "table", "seat").get(pk=seating.pk)
    now = timezone.now()
    lists = player_lists(seating.player, [waiting_list.pk], now)
    state = FloorState.load(now)
    calls = state.table_calls(target)
    if calls is None or calls.open_seats < 1:
        raise NoOpenSeat(f"Table {target.number} has no open seat that isn't offered to a called player.")
    chosen = next(
        (
            c
            for c in calls.candidates
            if (c.seating is not None and c.seating.pk == seating.pk)
            or (c.kind == "table_change" and c.player.pk == seating.player_id)
        ),
        None,
    )
    if chosen is None:
        raise FloorConflict(
            f"{seating.player} is neither at a must-move table of this game nor asking for a table change.",
            code="not_moving_in",
            field="seating",
        )
    if calls.candidates[0] is not chosen and not reason:
        raise OutOfTurn(
            f"{calls.candidates[0].label} is ahead for this seat: give the reason for moving "
            f"{seating.player} first.",
            field="reason",
        )
    passed = state.passed_over(target, chosen, reason)
    moved = move(seating=seating, to_table=target, to_seat_number=to_seat_number, by=by)
    entry = None
    if chosen.kind == "table_change" and chosen.row is not None:
        places = lists[waiting_list.pk]
        place = places.on_list(chosen.row.entry)
        take_off(places.order, place, EntryState.SEATED)
        places.save({place.id: (now, f"table change to table {target.number} seat {to_seat_number}")})
        entry = places.entries[place.id]
    record_event(
        event=ListEvent.MUST_MOVED if chosen.kind == "must_move" else ListEvent.TABLE_CHANGED,
        waiting_list=waiting_list,
        player=seating.player,
        by=by,
        at=now,
        entry=entry,
        table=target,
        seat_number=to_seat_number,
        reason=reason or f"from table {seating.table.number} seat {seating.seat.number}",
        passed_over=passed,
    )
    return moved
