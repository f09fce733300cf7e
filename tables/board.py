"""The room's public board (a TV in the room, ``/board/``): the read model, and the version that
tells a board whether anything changed (docs/waiting-lists.md, "The board").

:func:`board` reads what the room posts: the games running (each open table: game, stakes, open
seats), each list in order (players by their board name: the alias they chose, or first name and
initial; never the full name), the interest lists, and the collection fees in force for each game
running, from the schedule version in force (California requires the fees posted).

:func:`board_version` is what a board polls: one query of a few index lookups, which changes
whenever anything the board shows may have changed (a list's record, a seating, a table or a
schedule change, a time limit falling due, a schedule version taking effect), so an unchanged
board costs the server that query and an empty answer (``304 Not Modified``), not a redraw.
"""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass

from django.db import connection
from django.utils import timezone

from tables.models import (
    CollectionScheduleVersion,
    ConfigChange,
    EntrySource,
    EntryState,
    Seating,
    WaitingListEntry,
    WaitingListEvent,
)
from tables.selectors import table_rates
from tables.waiting_list_selectors import FloorState

#: Part of every version: a change to what the board draws (its markup) makes every board redraw.
BOARD_FORMAT = "1"
#: Anything the version can't see (a player renamed at the cage) shows within this many seconds.
REDRAW_AT_LEAST_EVERY = 300


@dataclass(frozen=True, slots=True)
class BoardTable:
    number: int
    game: str
    stakes: str
    seats: int
    open_seats: int
    must_move: bool = False


@dataclass(frozen=True, slots=True)
class BoardName:
    position: int
    name: str
    note: str


@dataclass(frozen=True, slots=True)
class BoardList:
    game: str
    stakes: str
    names: list[BoardName]
    tables: list[int]
    ready: int | None = None
    needed: int | None = None

    @property
    def is_interest(self) -> bool:
        return not self.tables


@dataclass(frozen=True, slots=True)
class BoardFees:
    game: str
    stakes: str
    schedule: str
    version: int
    since: datetime.datetime
    lines: list[str]


@dataclass(frozen=True, slots=True)
class Board:
    at: datetime.datetime
    tables: list[BoardTable]
    lists: list[BoardList]
    fees: list[BoardFees]


def _note(row_state: str, called_to: int | None, waiting_for_arrival: bool, table_change: bool) -> str:
    if row_state == EntryState.CALLED and called_to is not None:
        return f"called to table {called_to}"
    if waiting_for_arrival:
        return "on the way"
    return "table change" if table_change else ""


def board(now: datetime.datetime | None = None) -> Board:
    """What the board shows at ``now`` (default now)."""
    state = FloorState.load(now)
    numbers = {t.pk: t.number for t in state.open_tables}
    tables = []
    for table in state.open_tables:
        free = len(state.free_seats(table))
        tables.append(
            BoardTable(
                number=table.number,
                game=table.game.name,
                stakes=table.stakes.label,
                seats=table.seat_count,
                open_seats=max(0, free - len(state.called_to(table))),
                must_move=table.pk in state.must_moves,
            )
        )
    interest = {i.waiting_list.pk: i for i in state.interest()}
    lists = []
    for waiting_list in state.lists:
        names = [
            BoardName(
                position=row.position,
                name=row.player.board_name,
                note=_note(
                    row.place.state,
                    numbers.get(row.place.called_to_id or 0),
                    row.waiting_for_arrival,
                    row.is_table_change,
                ),
            )
            for row in state.rows.get(waiting_list.pk, [])
        ]
        idle = interest.get(waiting_list.pk)
        lists.append(
            BoardList(
                game=waiting_list.game.name,
                stakes=waiting_list.stakes.label,
                names=names,
                tables=[t.number for t in state.tables_of(waiting_list)],
                ready=idle.ready if idle else None,
                needed=idle.needed if idle else None,
            )
        )
    return Board(at=state.now, tables=tables, lists=lists, fees=_fees(state))


def _fees(state: FloorState) -> list[BoardFees]:
    """The fees in force for each game running (one entry per game, stakes and schedule)."""
    fees = []
    seen: set[tuple[int, int, int]] = set()
    for table in state.open_tables:
        key = (table.game_id, table.stakes_id, table.collection_schedule_id)
        if key in seen:
            continue
        seen.add(key)
        version = table.collection_schedule.version_at(state.now)
        if version is None:
            continue
        lines = [
            f"{rate.players_min}-{rate.players_max} players: {rate.fee_label}"
            for rate in sorted(table_rates(table, at=state.now), key=lambda r: (r.players_min, r.pk))
        ]
        fees.append(
            BoardFees(
                game=table.game.name,
                stakes=table.stakes.label,
                schedule=table.collection_schedule.code,
                version=version.number,
                since=version.effective_from,
                lines=lines,
            )
        )
    return fees


def board_version(now: datetime.datetime | None = None) -> str:
    """A short digest that changes whenever the board may show something new (one query): the
    latest list event, configuration change (tables opened, closed or changed, schedules, lists,
    settings, board names) and seating; the number of players seated; the time limits fallen due
    and not yet recorded; the schedule versions in force; and a clock of
    :data:`REDRAW_AT_LEAST_EVERY` seconds for what none of these sees."""
    now = now or timezone.now()
    at = connection.ops.adapt_datetimefield_value(now)
    entry = WaitingListEntry._meta.db_table
    seating = Seating._meta.db_table
    sql = (
        f"SELECT (SELECT MAX(id) FROM {WaitingListEvent._meta.db_table}),"
        f" (SELECT MAX(id) FROM {ConfigChange._meta.db_table}),"
        f" (SELECT MAX(id) FROM {seating}),"
        f" (SELECT COUNT(*) FROM {seating} WHERE left_at IS NULL),"
        f" (SELECT COUNT(*) FROM {entry} WHERE state IN (%s, %s) AND ("
        "(added_via = %s AND arrived_at IS NULL AND expires_at <= %s)"
        " OR (state = %s AND call_deadline <= %s))),"
        f" (SELECT COUNT(*) FROM {CollectionScheduleVersion._meta.db_table} WHERE effective_from <= %s)"
    )
    params = [EntryState.WAITING, EntryState.CALLED, EntrySource.PHONE, at, EntryState.CALLED, at, at]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    clock = int(now.timestamp()) // REDRAW_AT_LEAST_EVERY
    text = "|".join(str(value) for value in (BOARD_FORMAT, *row, clock))
    return hashlib.sha256(text.encode()).hexdigest()[:20]
