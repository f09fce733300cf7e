"""A place on a waiting list, from added to seated: add a player (in person or by phone), a
call-in's arrival, a call to a seat, a pass, a seating from the list (and off every other list),
a removal, a move by hand, an interest list's table opened, the time limits recorded
(docs/waiting-lists.md). The lists' set-up and settings are :mod:`tables.lists.setup`; the locked
list's places and the record, :mod:`tables.lists.places`; must-move tables and table changes,
:mod:`tables.lists.must_move`.

Every change locks the rows it decides on, tables first (:func:`tables.services.lock_table`),
then the lists (``select_for_update``, in primary-key order), so two floor screens calling for one
seat, or seating one player, serialise instead of racing; every writer of a list's places holds
its list's lock. Before deciding, each service records the time limits passed on the lists it
locked (:func:`tables.lists.rules.settle`, dated at their deadlines), so it decides on the list as
the floor screen shows it. Each change appends a :class:`tables.models.WaitingListEvent`.

A seat is offered in turn (:class:`tables.lists.selectors.FloorState`): calling someone
else first needs the floor's reason, and the record says whom the call went ahead of and why.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from django.db.models import Q
from django.utils import timezone

from casino.core.db import service
from tables.choices import MIN_PLAYERS
from tables.errors import (
    AlreadyOnList,
    FloorConflict,
    FloorValidationError,
    ListClosed,
    NoOpenSeat,
    NotCalled,
    NotEnoughPlayers,
    NotFedByList,
    NotOnList,
    OutOfTurn,
    TableClosed,
)
from tables.lists.places import (
    Places,
    choice,
    clean_text,
    lock_lists,
    player_lists,
    record_event,
    settled,
)
from tables.lists.rules import Place, miss, move_to, rules_of, take_off
from tables.lists.selectors import Candidate, FloorState
from tables.lists.setup import set_board_alias
from tables.models import (
    EntryKind,
    EntrySource,
    EntryState,
    ListEvent,
    Player,
    Seating,
    Table,
    TableStatus,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
    WaitingListSettings,
)
from tables.services.common import User, acting_user, require_reason
from tables.services.locks import lock_table
from tables.services.players import check_not_merged, create_player
from tables.services.seating import seat_player
from tables.services.tables import open_table

# --- Shared steps ------------------------------------------------------------------------------------


def _reason(reason: str, *, longest: int) -> str:
    return clean_text(reason, field="reason", what="A reason", longest=longest)


def _not_fed(table: Table, waiting_list: WaitingList) -> NotFedByList:
    return NotFedByList(f"Table {table.number} is not a {waiting_list.label} table.", field="table")


def _locked_place(entry: WaitingListEntry) -> tuple[Places, Place, datetime.datetime]:
    """``entry``'s list locked and settled at now, and its place on it (NotOnList when it is gone)."""
    waiting_list = lock_lists([entry.waiting_list_id])[entry.waiting_list_id]
    now = timezone.now()
    places, _ = settled(waiting_list, now)
    return places, places.on_list(entry), now


def _record(
    places: Places, place: Place, event: ListEvent, by: User, at: datetime.datetime, /, **details: Any
) -> WaitingListEntry:
    """Append ``event`` for ``place`` (its entry and player, on its list), by ``by`` at ``at``, to
    the record, with :func:`record_event`'s other fields as ``details`` (``table``, ``reason``, ...).
    Unless given, ``position_after`` is the place's position now (after a move, where it went) and
    ``position_before`` the same (it stayed where it was). Returns the place's entry."""
    entry = details["entry"] = places.entries[place.id]
    details.setdefault("position_before", place.position)
    details.setdefault("position_after", place.position)
    record_event(event=event, waiting_list=places.waiting_list, player=entry.player, by=by, at=at, **details)
    return entry


# --- Adding, arriving ---------------------------------------------------------------------------------


def _seated_in_game(player: Player, waiting_list: WaitingList) -> Seating | None:
    return (
        Seating.objects.active()
        .filter(
            player=player,
            table__status=TableStatus.OPEN,
            table__game_id=waiting_list.game_id,
            table__stakes_id=waiting_list.stakes_id,
        )
        .select_related("table")
        .first()
    )


@service
def add_player(
    *,
    waiting_lists: Sequence[WaitingList],
    by: User,
    added_via: str = EntrySource.IN_PERSON,
    player: Player | None = None,
    new_player_name: str | None = None,
    board_alias: str | None = None,
    entry_kind: str = EntryKind.SEAT,
    note: str = "",
) -> list[WaitingListEntry]:
    """Put ``player`` (or a new player named ``new_player_name``) at the bottom of each list, all or
    none. A call-in (``added_via`` phone) expires ``call_in_minutes`` after now unless the player
    arrives. A table change (``entry_kind``) is for a player seated at a table of the list's game;
    a player seated there asks for a table change rather than a seat. Raises ListClosed,
    AlreadyOnList, PlayerMerged (a merged record: list the survivor), FloorValidationError, FloorConflict
    ``seated_in_game``."""
    if not waiting_lists:
        raise FloorValidationError("Choose at least one list.", field="waiting_lists")
    added_via = choice(EntrySource, added_via, "added_via")
    entry_kind = choice(EntryKind, entry_kind, "entry_kind")
    note = clean_text(note, field="note", what="A note", longest=100)
    if (player is None) == (not (new_player_name or "").strip()):
        raise FloorValidationError("Choose a player, or type a new player's name.", field="player")
    if player is None:
        player = create_player(name=new_player_name or "", by=by)
    check_not_merged(player, "list")
    if board_alias is not None and board_alias.strip() != player.board_alias:
        set_board_alias(player=player, alias=board_alias, by=by)
    if entry_kind == EntryKind.TABLE_CHANGE:
        added_via = EntrySource.IN_PERSON  # a seated player asks at the table
    now = timezone.now()
    call_in_minutes = WaitingListSettings.current().call_in_minutes
    entries = []
    for waiting_list in lock_lists(w.pk for w in waiting_lists).values():
        if not waiting_list.is_active:
            raise ListClosed(f"The {waiting_list.label} list is closed.", field="waiting_lists")
        places, _ = settled(waiting_list, now)
        if places.of_player(player) is not None:
            raise AlreadyOnList(f"{player} is already on the {waiting_list.label} list.", field="player")
        seated = _seated_in_game(player, waiting_list)
        if entry_kind == EntryKind.SEAT and seated is not None:
            raise FloorConflict(
                f"{player} sits at table {seated.table.number}, a {waiting_list.label} table: ask for a "
                "table change instead.",
                code="seated_in_game",
                field="entry_kind",
            )
        if entry_kind == EntryKind.TABLE_CHANGE and seated is None:
            raise FloorValidationError(
                f"A table change is for a player seated at a {waiting_list.label} table.", field="entry_kind"
            )
        entry = WaitingListEntry.objects.create(
            waiting_list=waiting_list,
            player=player,
            entry_kind=entry_kind,
            from_table=seated.table if entry_kind == EntryKind.TABLE_CHANGE and seated else None,
            added_via=added_via,
            position=len(places.order) + 1,
            note=note,
            added_at=now,
            added_by=acting_user(by),
            expires_at=now + datetime.timedelta(minutes=call_in_minutes)
            if added_via == EntrySource.PHONE
            else None,
        )
        record_event(
            event=ListEvent.ADDED,
            waiting_list=waiting_list,
            player=player,
            by=by,
            at=now,
            entry=entry,
            table=entry.from_table,
            position_after=entry.position,
            reason=EntrySource(added_via).label + (f"; {note}" if note else ""),
        )
        entries.append(entry)
    return entries


@service
def mark_arrived(*, player: Player, by: User) -> list[WaitingListEntry]:
    """The call-in ``player`` is here: each of their call-in places (on every list) is called in turn
    from now. Raises NotOnList when they have none waiting (never called in, or expired)."""
    now = timezone.now()
    ids = WaitingListEntry.objects.filter(
        player=player, state__in=EntryState.on_list(), added_via=EntrySource.PHONE, arrived_at__isnull=True
    ).values_list("waiting_list_id", flat=True)
    arrived = []
    for waiting_list in lock_lists(ids).values():
        places, _ = settled(waiting_list, now)
        place = places.of_player(player)
        if place is None or not place.waiting_for_arrival:
            continue
        place.arrived_at = now
        places.save({})
        arrived.append(_record(places, place, ListEvent.ARRIVED, by, now))
    if not arrived:
        raise NotOnList(f"{player} has no call-in waiting (a call-in not here in time is off the list).")
    return arrived


# --- Calls and seats ------------------------------------------------------------------------------------


def _find(candidates: Sequence[Candidate], entry: WaitingListEntry) -> Candidate | None:
    return next((c for c in candidates if c.row is not None and c.row.entry.pk == entry.pk), None)


def _call(
    places: Places, place: Place, *, table: Table, by: User, now: datetime.datetime, reason: str
) -> None:
    """Call ``place`` to a seat at ``table`` (locked, and its list): refused without an open seat, or
    out of turn without a reason; records whom the call goes ahead of."""
    entry = places.entries[place.id]
    if place.state == EntryState.CALLED:
        raise FloorConflict(f"{entry.player} is already called to a seat.", code="already_called")
    state = FloorState.load(now)
    calls = state.table_calls(table)
    if calls is None:
        raise _not_fed(table, places.waiting_list)
    if calls.open_seats < 1:
        named = ", ".join(r.player.name for r in calls.called)
        raise NoOpenSeat(
            f"Table {table.number} has no open seat"
            + (f" that isn't offered to {named} already." if named else ".")
        )
    chosen = _find(calls.candidates, entry)
    if chosen is None:
        why = next((s.why for s in calls.skipped if s.row.entry.pk == entry.pk), "not on the list")
        raise FloorConflict(
            f"{entry.player} can't be called to table {table.number}: {why}.", code="cannot_call"
        )
    if calls.candidates[0] is not chosen and not reason:
        raise OutOfTurn(
            f"{calls.candidates[0].label} is ahead for this seat: give the reason for calling "
            f"{entry.player} first.",
            field="reason",
        )
    passed = state.passed_over(table, chosen, reason)
    place.state = EntryState.CALLED
    place.call_deadline = now + datetime.timedelta(minutes=state.settings.call_minutes)
    place.called_to_id = table.pk
    places.save({})
    entry.called_at = now
    entry.save(update_fields=["called_at"])
    _record(places, place, ListEvent.CALLED, by, now, table=table, reason=reason, passed_over=passed)


@service
def call_player(*, entry: WaitingListEntry, table: Table, by: User, reason: str = "") -> WaitingListEntry:
    """Call ``entry``'s player to a seat at ``table`` (a table of the list's game and stakes): they
    have ``call_minutes`` to take it. Whoever is next comes first (must-move players, table
    changes, then the list: :class:`FloorState`); anyone else needs the floor's ``reason``. Raises
    NotOnList, NotFedByList, TableClosed, NoOpenSeat, OutOfTurn, FloorConflict ``cannot_call``
    (a call-in not arrived, called elsewhere) or ``already_called``."""
    reason = _reason(reason, longest=500)
    table = lock_table(table)
    now = timezone.now()
    # Every list the player is on: a player called from one list can't be called from another at once.
    lists = player_lists(entry.player, [entry.waiting_list_id], now)
    places = lists[entry.waiting_list_id]
    if not places.waiting_list.feeds(table):
        raise _not_fed(table, places.waiting_list)
    if not table.is_open:
        raise TableClosed(f"Table {table.number} is closed.")
    _call(places, places.on_list(entry), table=table, by=by, now=now, reason=reason)
    return places.entries[entry.pk]


@service
def pass_call(*, entry: WaitingListEntry, by: User, reason: str = "") -> WaitingListEntry:
    """The called player passes the seat (declines it, or the floor says they aren't there): the
    room's missed-call policy applies now, as when the time runs out. Raises NotOnList, NotCalled."""
    reason = _reason(reason, longest=200)
    places, place, now = _locked_place(entry)
    if place.state != EntryState.CALLED:
        raise NotCalled(f"{entry.player} is not called to a seat now.")
    called_to = places.entries[place.id].called_to
    rules = rules_of(WaitingListSettings.current())
    lapse = miss(places.order, place, rules, at=now, why=reason or "passed the seat")
    places.save({place.id: (now, lapse.reason)} if lapse.position_after is None else {})
    return _record(
        places,
        place,
        ListEvent.PASSED,
        by,
        now,
        table=called_to,
        position_before=lapse.position_before,
        position_after=lapse.position_after,
        reason=lapse.reason,
    )


def _take_off_other_lists(
    *, player: Player, lists: dict[int, Places], keep: int | None, why: str, by: User, now: datetime.datetime
) -> None:
    """A player seated from a list leaves every other list they are on (``lists``: locked)."""
    for list_id, places in lists.items():
        place = places.of_player(player)
        if list_id == keep or place is None:
            continue
        before = take_off(places.order, place, EntryState.REMOVED)
        places.save({place.id: (now, why)})
        record_event(
            event=ListEvent.REMOVED,
            waiting_list=places.waiting_list,
            player=player,
            by=by,
            at=now,
            entry=places.entries[place.id],
            position_before=before,
            reason=why,
        )


def _seat_placed(
    *,
    lists: dict[int, Places],
    place: Place,
    places: Places,
    table: Table,
    seat_number: int,
    by: User,
    now: datetime.datetime,
    passed_over: list[dict[str, Any]],
) -> Seating:
    """Seat ``place``'s player (:func:`tables.services.seat_player`, the table locked by the caller),
    take the place off its list as seated, and the player off every other list in ``lists``
    (locked); each recorded. Returns the seating."""
    entry = places.entries[place.id]
    seating = seat_player(table=table, seat_number=seat_number, player=entry.player, by=by)
    where = f"table {table.number} seat {seat_number}"
    before = take_off(places.order, place, EntryState.SEATED)
    places.save({place.id: (now, f"seated at {where}")})
    record_event(
        event=ListEvent.SEATED,
        waiting_list=places.waiting_list,
        player=entry.player,
        by=by,
        at=now,
        entry=entry,
        table=table,
        seat_number=seat_number,
        position_before=before,
        passed_over=passed_over,
    )
    _take_off_other_lists(
        player=entry.player,
        lists=lists,
        keep=places.waiting_list.pk,
        why=f"seated from the {places.waiting_list.label} list at {where}",
        by=by,
        now=now,
    )
    return seating


@service
def seat_from_list(
    *, entry: WaitingListEntry, seat_number: int, by: User, table: Table | None = None, reason: str = ""
) -> Seating:
    """Seat ``entry``'s player in ``seat_number``: at the table they are called to (in time), or,
    still waiting, at ``table``, called and seated at once (in turn, or with the floor's
    ``reason``). They leave every list they are on. Raises NotOnList, NotCalled (the time to take
    the seat ran out: the missed-call policy applied), and the seating's and the call's refusals."""
    reason = _reason(reason, longest=500)
    fresh = WaitingListEntry.objects.filter(pk=entry.pk).values_list("called_to_id", "state").first()
    if fresh is None:
        raise NotOnList("There is no such place on a list.")
    target_id = table.pk if table is not None else fresh[0]
    if target_id is None:
        raise NotCalled(f"{entry.player} is not called to a seat: call them first (or name the table).")
    target = lock_table(target_id)
    now = timezone.now()
    lists = player_lists(entry.player, [entry.waiting_list_id], now)
    places = lists[entry.waiting_list_id]
    place = places.on_list(entry)
    if place.state == EntryState.WAITING and fresh[1] == EntryState.CALLED:
        raise NotCalled(f"{entry.player} did not take the seat in time; the list moved on.")
    if place.state == EntryState.WAITING:
        if not places.waiting_list.feeds(target):
            raise _not_fed(target, places.waiting_list)
        _call(places, place, table=target, by=by, now=now, reason=reason)
    elif place.called_to_id != target.pk:
        raise NotCalled(f"{entry.player} is called to another table.", field="table")
    call = (
        WaitingListEvent.objects.filter(entry_id=place.id, event=ListEvent.CALLED)
        .order_by("-at", "-id")
        .first()
    )
    passed = list(call.passed_over) if call is not None else []
    return _seat_placed(
        lists=lists,
        place=place,
        places=places,
        table=target,
        seat_number=seat_number,
        by=by,
        now=now,
        passed_over=passed,
    )


@service
def remove_from_list(*, entry: WaitingListEntry, by: User, reason: str) -> WaitingListEntry:
    """Take a player off a list, with the reason (left the room, asked to, ...)."""
    reason = _reason(require_reason(reason), longest=200)
    places, place, now = _locked_place(entry)
    before = take_off(places.order, place, EntryState.REMOVED)
    places.save({place.id: (now, reason)})
    return _record(
        places, place, ListEvent.REMOVED, by, now, position_before=before, position_after=None, reason=reason
    )


@service
def move_on_list(*, entry: WaitingListEntry, position: int, by: User, reason: str) -> WaitingListEntry:
    """Move a player to ``position`` on the list by hand (1 is the top): only with a reason, which the
    day's report shows."""
    reason = _reason(require_reason(reason), longest=500)
    if isinstance(position, bool) or not isinstance(position, int) or position < 1:
        raise FloorValidationError("A position is a whole number from 1.", field="position")
    places, place, now = _locked_place(entry)
    before, after = move_to(places.order, place, position)
    if before == after:
        raise FloorValidationError(f"{entry.player} is at position {before} already.", field="position")
    places.save({})
    return _record(places, place, ListEvent.REORDERED, by, now, position_before=before, reason=reason)


@service
def open_table_for_list(
    *, waiting_list: WaitingList, table: Table, by: User, reason: str = ""
) -> list[Seating]:
    """Open ``table`` (closed, of the list's game and stakes) for an interest list and seat the
    players ready on it in order, seats 1, 2, ... (a call-in not arrived keeps the place). Needs at
    least two ready. Each leaves every other list. Raises NotFedByList, NotEnoughPlayers and the
    opening's refusals."""
    table = lock_table(table)
    if not waiting_list.feeds(table):
        raise _not_fed(table, waiting_list)
    now = timezone.now()
    # Whoever is seated leaves their other lists: lock every open list (primary-key order, as all do).
    lists = {
        pk: settled(w, now)[0]
        for pk, w in lock_lists(
            WaitingList.objects.filter(is_active=True).values_list("pk", flat=True)
        ).items()
    }
    if waiting_list.pk not in lists:
        raise ListClosed(f"The {waiting_list.label} list is closed.")
    table = open_table(table=table, by=by, reason=reason or f"opened for the {waiting_list.label} list")
    state = FloorState.load(now)
    candidates, _ = state.candidates(table)
    ready = [c for c in candidates if c.row is not None][: table.seat_count]
    if len(ready) < MIN_PLAYERS:
        raise NotEnoughPlayers(
            f"Only {len(ready)} player(s) on the {waiting_list.label} list are here to sit down; a table "
            f"needs {MIN_PLAYERS}."
        )
    places = lists[waiting_list.pk]
    seated = []
    for seat_number, candidate in enumerate(ready, start=1):
        assert candidate.row is not None
        # Seated together, in order: only the places skipped (a call-in not here) were passed over.
        passed = [p for p in state.passed_over(table, candidate, "") if p["why"]]
        seated.append(
            _seat_placed(
                lists=lists,
                place=places.on_list(candidate.row.entry),
                places=places,
                table=table,
                seat_number=seat_number,
                by=by,
                now=now,
                passed_over=passed,
            )
        )
    return seated


@service
def expire_overdue(*, now: datetime.datetime | None = None) -> int:
    """Record every time limit passed by ``now`` (default: now) on every list: call-ins not arrived,
    calls not taken. Returns how many were recorded; running it twice records nothing more."""
    now = now or timezone.now()
    due = (
        WaitingListEntry.objects.filter(state__in=EntryState.on_list())
        .filter(
            # a call-in not arrived by its time, or a call not taken by its deadline
            Q(added_via=EntrySource.PHONE, arrived_at__isnull=True, expires_at__lte=now)
            | Q(state=EntryState.CALLED, call_deadline__lte=now)
        )
        .values_list("waiting_list_id", flat=True)
    )
    return sum(len(settled(w, now)[1]) for w in lock_lists(due).values())
