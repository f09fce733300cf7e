"""Read-only views of the waiting lists (no writes): each list in order as it stands now, whom to
call for each open seat, the interest lists, and the record of a day.

:class:`FloorState` reads everything the floor screen needs in a few queries (the lists' places,
the open tables and who sits there, the must-move tables, the room's settings) and applies the
time limits passed by ``now`` to copies (:func:`tables.lists.rules.settle`): what it shows is
what the next write will record. The services read the same state, after locking and recording,
to check that a call goes to whoever is next (or carries the floor's reason) and to record whom
it went ahead of.

Whom to call for a seat at a table, in order (:meth:`FloorState.candidates`):

1. at a main game's table, the players at its must-move tables, the longest there first;
2. the table change requests of the game (players seated at its other tables), in list order,
   when the room serves them first (``table_changes_first``); otherwise they keep their place
   on the list among the others;
3. the list, in order: players here (a call-in who hasn't arrived keeps the place but is not
   called), not already called to a seat.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from tables.lists.rules import Lapse, Place, ordered, place_of, rules_of, settle
from tables.models import (
    EntryKind,
    EntryState,
    ListEvent,
    MustMove,
    Player,
    Seating,
    Table,
    TableStatus,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
    WaitingListSettings,
)
from tables.player_names import NameHistory, name_history


@dataclass(frozen=True, slots=True)
class Row:
    """A place on a list as it stands now: the entry (as stored) and its state, position and call
    after the time limits passed (``place``)."""

    entry: WaitingListEntry
    place: Place

    @property
    def player(self) -> Player:
        return self.entry.player

    @property
    def position(self) -> int:
        return self.place.position

    @property
    def is_called(self) -> bool:
        return self.place.state == EntryState.CALLED

    @property
    def waiting_for_arrival(self) -> bool:
        return self.place.waiting_for_arrival

    @property
    def is_table_change(self) -> bool:
        return self.entry.entry_kind == EntryKind.TABLE_CHANGE


@dataclass(frozen=True, slots=True)
class Candidate:
    """Someone who may take a seat at a table: ``kind`` ``must_move`` (``seating`` at a must-move
    table), ``table_change`` or ``list`` (``row``, a place on the table's list)."""

    kind: str
    player: Player
    row: Row | None = None
    seating: Seating | None = None

    @property
    def label(self) -> str:
        if self.kind == "must_move" and self.seating is not None:
            return f"{self.player.name} (must-move table {self.seating.table.number})"
        if self.kind == "table_change" and self.row is not None and self.row.entry.from_table is not None:
            return f"{self.player.name} (table change from table {self.row.entry.from_table.number})"
        return self.player.name


@dataclass(frozen=True, slots=True)
class Skip:
    """A place ahead on the list that is not offered the seat, and why."""

    row: Row
    why: str


@dataclass(slots=True)
class TableCalls:
    """A table a list feeds: its free seats, the calls out to it, and whom to call next."""

    table: Table
    waiting_list: WaitingList
    free_seats: list[int]
    called: list[Row]
    candidates: list[Candidate]
    skipped: list[Skip]
    is_must_move: bool

    @property
    def open_seats(self) -> int:
        """Free seats not yet offered to a called player."""
        return max(0, len(self.free_seats) - len(self.called))


@dataclass(frozen=True, slots=True)
class Interest:
    """A list whose game has no open table: how many could sit down now, and how many open one."""

    waiting_list: WaitingList
    ready: int
    needed: int
    closed_tables: list[Table]

    @property
    def enough(self) -> bool:
        return self.ready >= self.needed


@dataclass(slots=True)
class FloorState:
    """The lists, the open tables and who sits there, as of ``now`` (see the module's docstring)."""

    now: datetime.datetime
    settings: WaitingListSettings
    lists: list[WaitingList]
    rows: dict[int, list[Row]]
    lapses: dict[int, list[Lapse]]
    open_tables: list[Table]
    seatings: dict[int, list[Seating]]
    must_moves: dict[int, MustMove] = field(default_factory=dict)

    @classmethod
    def load(cls, now: datetime.datetime | None = None, *, with_inactive: bool = False) -> FloorState:
        now = now or timezone.now()
        settings = WaitingListSettings.current()
        lists_qs = WaitingList.objects.select_related("game", "stakes")
        lists = list(lists_qs if with_inactive else lists_qs.filter(is_active=True))
        entries = (
            WaitingListEntry.objects.filter(
                state__in=EntryState.on_list(), waiting_list__in=[w.pk for w in lists]
            )
            .select_related("player", "from_table", "called_to")
            .order_by("waiting_list_id", "position", "id")
        )
        by_list: dict[int, list[WaitingListEntry]] = defaultdict(list)
        for entry in entries:
            by_list[entry.waiting_list_id].append(entry)
        rules = rules_of(settings)
        rows: dict[int, list[Row]] = {}
        lapses: dict[int, list[Lapse]] = {}
        for waiting_list in lists:
            stored = {e.pk: e for e in by_list.get(waiting_list.pk, [])}
            places = ordered(place_of(e) for e in stored.values())
            lapses[waiting_list.pk] = settle(places, rules, now)
            rows[waiting_list.pk] = [Row(stored[p.id], p) for p in places]
        open_tables = list(
            Table.objects.filter(status=TableStatus.OPEN).select_related("game", "stakes").order_by("number")
        )
        seatings: dict[int, list[Seating]] = defaultdict(list)
        for seating in (
            Seating.objects.active()
            .filter(table__status=TableStatus.OPEN)
            .select_related("seat", "player", "table")
            .order_by("seated_at", "id")
        ):
            seatings[seating.table_id].append(seating)
        must_moves = {m.table_id: m for m in MustMove.objects.select_related("table")}
        return cls(now, settings, lists, rows, lapses, open_tables, dict(seatings), must_moves)

    # --- Tables and lists ------------------------------------------------------------------------

    def list_for(self, table: Table) -> WaitingList | None:
        """The list that feeds ``table`` (its game and stakes), if one is open."""
        return next((w for w in self.lists if w.feeds(table)), None)

    def tables_of(self, waiting_list: WaitingList) -> list[Table]:
        return [t for t in self.open_tables if waiting_list.feeds(t)]

    def must_move_tables(self, waiting_list: WaitingList) -> list[Table]:
        return [t for t in self.tables_of(waiting_list) if self.is_must_move(t, waiting_list)]

    def is_must_move(self, table: Table, waiting_list: WaitingList) -> bool:
        must_move = self.must_moves.get(table.pk)
        return must_move is not None and must_move.waiting_list_id == waiting_list.pk

    def free_seats(self, table: Table) -> list[int]:
        taken = {s.seat.number for s in self.seatings.get(table.pk, [])}
        return [n for n in range(1, table.seat_count + 1) if n not in taken]

    def called_to(self, table: Table) -> list[Row]:
        return [
            r for rows in self.rows.values() for r in rows if r.is_called and r.place.called_to_id == table.pk
        ]

    def seated_at(self, player_id: int) -> list[Seating]:
        return [s for seated in self.seatings.values() for s in seated if s.player_id == player_id]

    def _called_elsewhere(self) -> dict[int, Row]:
        return {r.player.pk: r for rows in self.rows.values() for r in rows if r.is_called}

    # --- Whom to call ----------------------------------------------------------------------------

    def skip_reason(self, row: Row, table: Table, called: dict[int, Row]) -> str | None:
        """Why ``row`` is not offered a seat at ``table`` now (None: it may be)."""
        if row.waiting_for_arrival:
            return "call-in, not arrived yet"
        if row.is_called:
            return f"already called to table {row.entry.called_to.number if row.entry.called_to else '?'}"
        other = called.get(row.player.pk)
        if other is not None and other.entry.called_to is not None:
            return f"called to table {other.entry.called_to.number} from another list"
        here = [s for s in self.seated_at(row.player.pk) if s.table_id == table.pk]
        if here:
            return "already seated at this table"
        if row.is_table_change:
            source = row.entry.from_table
            if source is None or not any(s.table_id == source.pk for s in self.seated_at(row.player.pk)):
                return "asked for a table change but no longer sits at that table"
        return None

    def candidates(self, table: Table) -> tuple[list[Candidate], list[Skip]]:
        """Whom to offer a seat at ``table``, in order, and the places on its list passed over."""
        waiting_list = self.list_for(table)
        if waiting_list is None:
            return [], []
        found: list[Candidate] = []
        if not self.is_must_move(table, waiting_list):
            movers = [s for m in self.must_move_tables(waiting_list) for s in self.seatings.get(m.pk, [])]
            found += [
                Candidate("must_move", s.player, seating=s)
                for s in sorted(movers, key=lambda s: (s.seated_at, s.pk))
            ]
        called = self._called_elsewhere()
        changes: list[Candidate] = []
        others: list[Candidate] = []
        skipped: list[Skip] = []
        for row in self.rows.get(waiting_list.pk, []):
            why = self.skip_reason(row, table, called)
            if why is not None:
                skipped.append(Skip(row, why))
            elif row.is_table_change and self.settings.table_changes_first:
                changes.append(Candidate("table_change", row.player, row=row))
            else:
                others.append(
                    Candidate("table_change" if row.is_table_change else "list", row.player, row=row)
                )
        return found + changes + others, skipped

    def table_calls(self, table: Table) -> TableCalls | None:
        waiting_list = self.list_for(table)
        if waiting_list is None:
            return None
        candidates, skipped = self.candidates(table)
        return TableCalls(
            table=table,
            waiting_list=waiting_list,
            free_seats=self.free_seats(table),
            called=self.called_to(table),
            candidates=candidates,
            skipped=skipped,
            is_must_move=self.is_must_move(table, waiting_list),
        )

    def all_table_calls(self) -> list[TableCalls]:
        """Every open table a list feeds, by number."""
        return [calls for t in self.open_tables if (calls := self.table_calls(t)) is not None]

    def passed_over(self, table: Table, chosen: Candidate, reason: str) -> list[dict[str, Any]]:
        """Whom ``chosen`` goes ahead of for a seat at ``table``, and why: those offered the seat
        before them (why: the floor's ``reason``), the places on the list ahead of them that were
        not offered it (why: :meth:`skip_reason`), and, for a must-move or a table change, the
        list's players waiting (why: the rule that serves them first)."""
        candidates, skipped = self.candidates(table)
        keys = [_key(c) for c in candidates]
        index = keys.index(_key(chosen)) if _key(chosen) in keys else len(keys)
        result = [_passed(c.player, c.row.position if c.row else None, reason) for c in candidates[:index]]
        if chosen.row is not None:
            result += [
                _passed(s.row.player, s.row.position, s.why)
                for s in skipped
                if s.row.position < chosen.row.position
            ]
        if chosen.kind == "must_move" or (
            chosen.kind == "table_change" and self.settings.table_changes_first
        ):
            why = (
                "the must-move table moves to the main game first"
                if chosen.kind == "must_move"
                else "table changes are served before the list (room setting)"
            )
            result += [
                _passed(c.player, c.row.position, why)
                for c in candidates[index + 1 :]
                if c.kind == "list" and c.row
            ]
        return result

    # --- Interest lists --------------------------------------------------------------------------

    def interest(self) -> list[Interest]:
        """The lists whose game has no open table, with the closed tables that could open for them."""
        idle = [w for w in self.lists if not self.tables_of(w)]
        if not idle:
            return []
        closed = list(
            Table.objects.filter(status=TableStatus.CLOSED)
            .filter(Q(*[Q(game_id=w.game_id, stakes_id=w.stakes_id) for w in idle], _connector=Q.OR))
            .select_related("game", "stakes")
            .order_by("number")
        )
        called = self._called_elsewhere()
        result = []
        for waiting_list in idle:
            ready = sum(
                1
                for row in self.rows.get(waiting_list.pk, [])
                if not row.waiting_for_arrival and not row.is_called and row.player.pk not in called
            )
            result.append(
                Interest(
                    waiting_list=waiting_list,
                    ready=ready,
                    needed=self.settings.players_to_open(waiting_list.game),
                    closed_tables=[t for t in closed if waiting_list.feeds(t)],
                )
            )
        return result


def _key(candidate: Candidate) -> tuple[str, int]:
    if candidate.row is not None:
        return ("row", candidate.row.entry.pk)
    return ("seating", candidate.seating.pk if candidate.seating else 0)


def _passed(player: Player, position: int | None, why: str) -> dict[str, Any]:
    return {"player_id": player.pk, "player": player.name, "position": position, "why": why}


# --- The record ------------------------------------------------------------------------------------


def events_between(start: datetime.datetime, end: datetime.datetime) -> QuerySet[WaitingListEvent]:
    """The record from ``start`` to ``end`` (excluded), oldest first, with its list, player and table."""
    return (
        WaitingListEvent.objects.filter(at__gte=start, at__lt=end)
        .select_related("waiting_list__game", "waiting_list__stakes", "player", "table", "entry")
        .order_by("at", "id")
    )


def day_bounds(day: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
    """Midnight to midnight of ``day`` on the room's clock (``settings.TIME_ZONE``)."""
    zone = timezone.get_default_timezone()
    start = datetime.datetime.combine(day, datetime.time(0), tzinfo=zone)
    end = datetime.datetime.combine(day + datetime.timedelta(days=1), datetime.time(0), tzinfo=zone)
    return start, end


@dataclass(frozen=True, slots=True)
class ReportLine:
    """An event of the record as the day's report shows it: ``record`` and the player's name as it
    was at the event (:mod:`tables.player_names`: a later rename rewrites nothing)."""

    record: WaitingListEvent
    player_name: str


@dataclass(frozen=True, slots=True)
class DayReport:
    """A day of the lists: every event (``lines``, oldest first), and the offers of a seat (calls,
    must-moves, table changes, seatings) with whom each went ahead of and why; ``by_hand``: the
    floor's moves by hand and out-of-turn calls, each with its reason."""

    day: datetime.date
    lines: list[ReportLine]
    counts: dict[str, int]

    @property
    def offers(self) -> list[ReportLine]:
        kinds = {ListEvent.CALLED, ListEvent.SEATED, ListEvent.MUST_MOVED, ListEvent.TABLE_CHANGED}
        return [line for line in self.lines if line.record.event in kinds]

    @property
    def by_hand(self) -> list[ReportLine]:
        out_of_turn = (ListEvent.CALLED, ListEvent.MUST_MOVED, ListEvent.TABLE_CHANGED)
        return [
            line
            for line in self.lines
            if line.record.event == ListEvent.REORDERED
            or (line.record.event in out_of_turn and line.record.reason)
        ]


def names_at_events(events: Sequence[WaitingListEvent]) -> NameHistory:
    """The names of the players of ``events`` (read with their player) over the time since the
    first: ``.at(event.player_id, event.at)`` is the name at the event (one query, none for no
    events). The day's report and the record's API name players so (a rename rewrites nothing)."""
    if not events:
        return name_history({})
    return name_history({e.player_id: e.player.name for e in events}, since=min(e.at for e in events))


def day_report(day: datetime.date) -> DayReport:
    """The record of ``day`` (the room's clock), each player named as at the event: the events in
    one query, the renames since the first in one more."""
    start, end = day_bounds(day)
    events = list(events_between(start, end))
    names = names_at_events(events)
    counts = dict(
        WaitingListEvent.objects.filter(at__gte=start, at__lt=end)
        .values_list("event")
        .annotate(n=Count("id"))
        .order_by()
    )
    return DayReport(
        day=day,
        lines=[ReportLine(record=e, player_name=names.at(e.player_id, e.at)) for e in events],
        counts={str(k): int(v) for k, v in counts.items()},
    )
