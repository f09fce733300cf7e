"""The room's public board (a TV in the room, ``/board/``): the read model, and the version that
tells a board whether anything changed (docs/waiting-lists.md, "The board").

:func:`board` reads what the room posts: the games running (each open table: game, stakes, open
seats), each list in order (players by their board name: the alias they chose, or first name and
initial; never the full name), the interest lists, and the collection fees in force for each game
running, from the schedule version in force (California requires the fees posted).

:func:`board_version` is what a board polls: one query that reads the few hundred rows the board
draws from (the tables, who sits where, the places on the lists and their players' names, ...) as
they are now, and digests them with the time limits fallen due, the schedule versions in force and
the minute. Any change the board would draw changes it at once, whoever made the change and whether
or not it was recorded anywhere; an unchanged board costs the server that query and an empty
answer (``304 Not Modified``), not a redraw.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Field, Model
from django.utils import timezone

from tables.lists.selectors import FloorState
from tables.models import (
    CollectionScheduleVersion,
    EntrySource,
    EntryState,
    Game,
    MustMove,
    Player,
    Seating,
    Stakes,
    Table,
    WaitingList,
    WaitingListEntry,
    WaitingListSettings,
)
from tables.selectors import table_rates

#: Part of every version: a change to what the board draws (its markup) makes every board redraw.
BOARD_FORMAT = "1"
#: The board says "as of" to the minute: an unchanged board is drawn again once a minute for it.
REDRAW_AT_LEAST_EVERY = 60


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


#: The parameters of the version's query, by name (``now``: the time the board is drawn for).
_ON_LIST = "state IN (%s, %s)"
_ON_LIST_PARAMS = ("waiting", "called")


@dataclass(frozen=True, slots=True)
class _Drawn:
    """Rows the board (or the floor's "Seats to fill") draws from: ``model``'s rows matching
    ``where`` (its ``%s`` are ``params``, by name), and the columns that change a drawing."""

    model: type[Model]
    columns: str  # the fields' names, spaced
    where: str = ""
    params: tuple[str, ...] = ()

    def select(self) -> str:
        """``SELECT 'table', COALESCE(CAST(a AS TEXT), '') || '|' || ...``: a text per row."""
        parts = []
        for name in self.columns.split():
            field = self.model._meta.get_field(name)
            assert isinstance(field, Field), name  # a column of the model, not a reverse relation
            parts.append(f"COALESCE(CAST({field.column} AS TEXT), '')")
        where = f" WHERE {self.where}" if self.where else ""
        text = " || '|' || ".join(parts)
        return f"SELECT '{self.model._meta.model_name}', {text} FROM {self.model._meta.db_table}{where}"


def _drawn() -> tuple[_Drawn, ...]:
    """Every column the board's and the "Seats to fill" selectors read (:class:`FloorState`,
    :func:`board`): a column left out would be a change no board sees until the next minute."""
    tables, lists = Table._meta.db_table, WaitingList._meta.db_table
    entries, seatings = WaitingListEntry._meta.db_table, Seating._meta.db_table
    must_moves = MustMove._meta.db_table
    used = "id IN (SELECT {0}_id FROM " + tables + " UNION SELECT {0}_id FROM " + lists + ")"
    return (
        # Every table: the open ones are drawn, the closed ones offered to an interest list.
        _Drawn(Table, "id number status game stakes seat_count collection_schedule"),
        # The games and stakes of the tables and lists: names, labels, the lists' order.
        _Drawn(Game, "id slug name sort_order", used.format("game")),
        _Drawn(
            Stakes,
            "id code structure small_bet_cents big_bet_cents alt_small_bet_cents alt_big_bet_cents"
            " buy_in_min_cents buy_in_max_cents kill point_cents",
            used.format("stakes"),
        ),
        # The tables' schedule versions in force or past (a version's rates never change): the
        # fees posted, the version and since when.
        _Drawn(
            CollectionScheduleVersion,
            "id schedule number effective_from",
            f"effective_from <= %s AND schedule_id IN (SELECT collection_schedule_id FROM {tables})",
            ("now",),
        ),
        # Who sits where: the open seats, the must-move tables' players.
        _Drawn(Seating, "id table seat player", "left_at IS NULL"),
        _Drawn(WaitingList, "id game stakes is_active"),
        # The places on the lists: all the order and the time limits read.
        _Drawn(
            WaitingListEntry,
            "id waiting_list player entry_kind from_table added_via state position"
            " expires_at arrived_at call_deadline called_to misses",
            _ON_LIST,
            _ON_LIST_PARAMS,
        ),
        # The names drawn: the players on a list, and those at a must-move table (offered a seat
        # by name in "Seats to fill"); renamed, or a board name chosen.
        _Drawn(
            Player,
            "id name board_alias",
            f"id IN (SELECT player_id FROM {entries} WHERE {_ON_LIST} UNION SELECT player_id FROM"
            f" {seatings} WHERE left_at IS NULL AND table_id IN (SELECT table_id FROM {must_moves}))",
            _ON_LIST_PARAMS,
        ),
        _Drawn(MustMove, "id table waiting_list"),
        _Drawn(
            WaitingListSettings,
            "id call_in_minutes call_minutes missed_call_policy move_down_places table_changes_first"
            " interest_players interest_by_game",
        ),
    )


#: The time limits fallen due by ``now`` and not yet recorded (the next write records them).
_DUE = (
    "SELECT 'due', CAST(COUNT(*) AS TEXT) FROM {entries} WHERE state IN (%s, %s) AND ("
    "(added_via = %s AND arrived_at IS NULL AND expires_at <= %s) OR (state = %s AND call_deadline <= %s))"
)
_DUE_PARAMS = ("waiting", "called", "phone", "now", "called", "now")


@functools.cache
def _version_query() -> tuple[str, tuple[str, ...]]:
    """The version's one query (a row per thing drawn: its kind and its columns as text, then the
    number of time limits fallen due) and its parameters' names in order."""
    drawn = _drawn()
    sql = " UNION ALL ".join(
        [*(d.select() for d in drawn), _DUE.format(entries=WaitingListEntry._meta.db_table)]
    )
    return sql, (*(name for d in drawn for name in d.params), *_DUE_PARAMS)


def board_version(now: datetime.datetime | None = None) -> str:
    """A short digest that changes whenever the board (or the floor's "Seats to fill") would draw
    something else, read in one query: the rows the board draws from, as they are now (every
    table; the games and stakes of the tables and lists; who sits where; the lists and the places
    on them; the names of the players on a list or at a must-move table; the must-move tables; the
    room's list settings; the tables' schedule versions in force); the time limits fallen due and
    not yet recorded; and the minute (the board says "as of" to the minute). The board drawn is a function
    of these, so a drawing can be kept under its version (``web.board.views``).

    It reads the state itself, not a record of changes, so no write is missed: a change shows at
    the next poll whoever made it and whatever it records (a player renamed at the cage, a table's
    game changed, two writers committing out of order), and a restarted server answers the same.
    """
    now = now or timezone.now()
    values: dict[str, Any] = {
        "now": connection.ops.adapt_datetimefield_value(now),
        "waiting": EntryState.WAITING,
        "called": EntryState.CALLED,
        "phone": EntrySource.PHONE,
    }
    sql, names = _version_query()
    with connection.cursor() as cursor:
        cursor.execute(sql, [values[name] for name in names])
        rows = sorted(cursor.fetchall())
    clock = int(now.timestamp()) // REDRAW_AT_LEAST_EVERY
    text = "\n".join([f"{BOARD_FORMAT}|{clock}", *(f"{kind}|{row}" for kind, row in rows)])
    return hashlib.sha256(text.encode()).hexdigest()[:20]
