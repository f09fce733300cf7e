"""A place on a list from added to seated (tables/lists/calls.py, docs/waiting-lists.md): call-ins on
two lists, calls in turn and out of turn, a missed call down then off, expiries (the Celery task
run twice), moves by hand and removals, the record of each step, an interest list's table opened,
and a race of two floor screens for one seat (PostgreSQL)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from tables import services as floor_services
from tables.errors import (
    AlreadyOnList,
    FloorConflict,
    FloorError,
    FloorValidationError,
    NoOpenSeat,
    NotCalled,
    NotOnList,
    OutOfTurn,
    PlayerMerged,
)
from tables.lists import services
from tables.lists.selectors import FloorState, day_report
from tables.models import (
    EntryKind,
    EntrySource,
    EntryState,
    Game,
    ListEvent,
    Player,
    Seating,
    Stakes,
    Table,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
)
from tables.tasks import expire_waiting_lists
from tests.tables.lists.steps import add, events, free_seat, later, order


def test_a_call_in_joins_two_lists_arrives_is_called_and_seated_off_both(
    holdem_list: WaitingList, omaha_list: WaitingList, full_table: Callable[..., Table], floor: Any
) -> None:
    table = full_table(3)
    bea, cal = Player.objects.create(name="Bea Early"), Player.objects.create(name="Cal Lee")
    add(bea, holdem_list, by=floor)
    entries = services.add_player(
        waiting_lists=[holdem_list, omaha_list],
        new_player_name="Dee Phone",
        added_via=EntrySource.PHONE,
        by=floor,
    )
    dee = entries[0].player
    add(cal, holdem_list, by=floor)
    assert all(
        e.expires_at is not None and e.expires_at - e.added_at == dt.timedelta(minutes=60) for e in entries
    )
    free_seat(table, 2)
    state = FloorState.load()
    calls = state.table_calls(table)
    assert calls is not None
    assert calls.open_seats == 1
    assert [c.player.name for c in calls.candidates] == ["Bea Early", "Cal Lee"]  # Dee isn't here yet
    assert [(s.row.player.name, s.why) for s in calls.skipped] == [("Dee Phone", "call-in, not arrived yet")]
    services.mark_arrived(player=dee, by=floor)
    assert [c.player.name for c in FloorState.load().table_calls(table).candidates] == [  # type: ignore[union-attr]
        "Bea Early",
        "Dee Phone",
        "Cal Lee",
    ]
    # Calling Dee before Bea is out of turn: only with the floor's reason, which the record keeps.
    dee_holdem = WaitingListEntry.objects.get(player=dee, waiting_list=holdem_list)
    with pytest.raises(OutOfTurn):
        services.call_player(entry=dee_holdem, table=table, by=floor)
    services.call_player(entry=dee_holdem, table=table, by=floor, reason="Bea asked to wait for table 9")
    call = WaitingListEvent.objects.get(event=ListEvent.CALLED)
    assert call.passed_over == [
        {"player_id": bea.pk, "player": "Bea Early", "position": 1, "why": "Bea asked to wait for table 9"}
    ]
    # The one open seat is offered: a second call for it is refused.
    with pytest.raises(NoOpenSeat):
        services.call_player(entry=WaitingListEntry.objects.get(player=bea), table=table, by=floor)
    seating = services.seat_from_list(entry=dee_holdem, seat_number=2, by=floor)
    assert (seating.table, seating.seat.number, seating.player) == (table, 2, dee)
    assert set(WaitingListEntry.objects.filter(player=dee).values_list("state", flat=True)) == {
        EntryState.SEATED,
        EntryState.REMOVED,
    }
    assert order(holdem_list) == ["Bea Early", "Cal Lee"]
    assert order(omaha_list) == []
    assert events(player=dee) == [
        ListEvent.ADDED,
        ListEvent.ADDED,
        ListEvent.ARRIVED,
        ListEvent.ARRIVED,
        ListEvent.CALLED,
        ListEvent.SEATED,
        ListEvent.REMOVED,
    ]
    seated = WaitingListEvent.objects.get(event=ListEvent.SEATED)
    assert (seated.table, seated.seat_number, seated.by, seated.passed_over) == (
        table,
        2,
        floor,
        call.passed_over,
    )
    removed = WaitingListEvent.objects.get(event=ListEvent.REMOVED)
    assert removed.waiting_list == omaha_list
    assert "seated from the Texas Hold'em" in removed.reason


def test_a_player_is_on_a_list_once_and_a_seated_player_asks_for_a_table_change(
    holdem_list: WaitingList, full_table: Callable[..., Table], floor: Any
) -> None:
    table = full_table(3)
    ann = Player.objects.create(name="Ann Other")
    add(ann, holdem_list, by=floor)
    with pytest.raises(AlreadyOnList):
        add(ann, holdem_list, by=floor)
    seated = Seating.objects.active().filter(table=table).first()
    assert seated is not None
    with pytest.raises(FloorConflict) as refused:
        add(seated.player, holdem_list, by=floor)
    assert refused.value.code == "seated_in_game"
    (change,) = add(seated.player, holdem_list, by=floor, entry_kind=EntryKind.TABLE_CHANGE)
    assert change.from_table == table
    assert change.added_via == EntrySource.IN_PERSON
    with pytest.raises(FloorValidationError):
        add(ann, holdem_list, by=floor, entry_kind="a seat please")


def test_a_merged_record_is_not_listed_its_survivor_is(holdem_list: WaitingList, floor: Any) -> None:
    ana = Player.objects.create(name="Ana Ruiz")
    again = Player.objects.create(name="Ana  Ruiz")
    floor_services.merge_players(survivor=ana, merged=again, by=floor, reason="one person, typed twice")
    again.refresh_from_db()
    with pytest.raises(PlayerMerged):
        add(again, holdem_list, by=floor)
    assert not WaitingListEntry.objects.filter(player=again).exists()
    (entry,) = add(ana, holdem_list, by=floor)
    assert entry.player == ana


def test_a_missed_call_moves_the_player_down_and_the_next_is_called(
    holdem_list: WaitingList, full_table: Callable[..., Table], floor: Any
) -> None:
    table = full_table(3)
    names = ["Bo One", "Cy Two", "Di Three", "Ed Four", "Fay Five"]
    entries = [add(Player.objects.create(name=n), holdem_list, by=floor)[0] for n in names]
    free_seat(table, 1)
    services.call_player(entry=entries[0], table=table, by=floor)
    assert FloorState.load().table_calls(table).open_seats == 0  # type: ignore[union-attr]
    later(entries[0], call_deadline=dt.timedelta(minutes=6))  # five minutes pass, and one more
    # The floor screen shows it at once; the record gets it at the next write, dated at the deadline.
    assert order(holdem_list) == ["Cy Two", "Di Three", "Ed Four", "Bo One", "Fay Five"]
    assert not WaitingListEvent.objects.filter(event=ListEvent.PASSED).exists()
    with pytest.raises(NotCalled):
        services.seat_from_list(entry=entries[0], seat_number=1, by=floor)
    services.call_player(entry=entries[1], table=table, by=floor)
    passed = WaitingListEvent.objects.get(event=ListEvent.PASSED)
    entries[0].refresh_from_db()
    assert (passed.at, passed.by, passed.table, passed.position_before, passed.position_after) == (
        passed.entry.called_at + dt.timedelta(minutes=5) - dt.timedelta(minutes=6),  # type: ignore[union-attr]
        None,
        table,
        1,
        4,
    )
    assert entries[0].misses == 1
    assert entries[0].state == EntryState.WAITING
    services.seat_from_list(entry=entries[1], seat_number=1, by=floor)
    # The second miss takes the player off the list.
    free_seat(table, 2)
    services.call_player(entry=entries[2], table=table, by=floor)
    services.pass_call(entry=entries[2], by=floor, reason="declined the seat")
    assert order(holdem_list) == ["Ed Four", "Bo One", "Fay Five", "Di Three"]
    services.call_player(entry=entries[3], table=table, by=floor)
    later(entries[3], call_deadline=dt.timedelta(minutes=6))
    assert expire_waiting_lists.apply().get() == 1
    assert expire_waiting_lists.apply().get() == 0  # safe to run twice
    services.call_player(entry=entries[0], table=table, by=floor)
    services.pass_call(entry=entries[0], by=floor)
    entries[0].refresh_from_db()
    assert entries[0].state == EntryState.REMOVED
    assert "off the list" in entries[0].ended_reason
    assert order(holdem_list) == ["Fay Five", "Di Three", "Ed Four"]


def test_a_call_in_who_does_not_arrive_expires(
    holdem_list: WaitingList, floor: Any, make_table: Callable[..., Table]
) -> None:
    services.update_list_settings(by=floor, reason="busy night", call_in_minutes=30)
    (entry,) = services.add_player(
        waiting_lists=[holdem_list], new_player_name="Gus Late", added_via=EntrySource.PHONE, by=floor
    )
    assert entry.expires_at == entry.added_at + dt.timedelta(minutes=30)
    later(entry, expires_at=dt.timedelta(minutes=31))
    assert order(holdem_list) == []
    with pytest.raises(NotOnList):
        services.mark_arrived(player=entry.player, by=floor)
    assert services.expire_overdue() == 1
    entry.refresh_from_db()
    expired = WaitingListEvent.objects.get(event=ListEvent.EXPIRED)
    assert entry.state == EntryState.EXPIRED
    assert expired.at == entry.expires_at
    assert expired.by is None


def test_moves_by_hand_and_removals_need_a_reason(holdem_list: WaitingList, floor: Any) -> None:
    entries = [add(Player.objects.create(name=n), holdem_list, by=floor)[0] for n in ("Al A", "Bo B", "Cy C")]
    with pytest.raises(FloorValidationError) as refused:
        services.move_on_list(entry=entries[2], position=1, by=floor, reason=" ")
    assert refused.value.field == "reason"
    services.move_on_list(entry=entries[2], position=1, by=floor, reason="was on the list before the break")
    assert order(holdem_list) == ["Cy C", "Al A", "Bo B"]
    with pytest.raises(FloorValidationError):
        services.remove_from_list(entry=entries[0], by=floor, reason="")
    services.remove_from_list(entry=entries[0], by=floor, reason="left the room")
    with pytest.raises(NotOnList):
        services.remove_from_list(entry=entries[0], by=floor, reason="again")
    assert order(holdem_list) == ["Cy C", "Bo B"]
    report = day_report(timezone.localdate())
    (line,) = report.by_hand
    moved = line.record
    assert (moved.event, moved.position_before, moved.position_after, moved.reason) == (
        ListEvent.REORDERED,
        3,
        1,
        "was on the list before the break",
    )
    assert report.counts == {ListEvent.ADDED: 3, ListEvent.REORDERED: 1, ListEvent.REMOVED: 1}


def test_the_record_says_who_where_and_why_at_each_step_of_a_place(
    holdem_list: WaitingList, full_table: Callable[..., Table], floor: Any
) -> None:
    table = full_table(3)
    first = add(Player.objects.create(name="Al First"), holdem_list, by=floor)[0]
    (caller,) = services.add_player(
        waiting_lists=[holdem_list], new_player_name="Bo Phone", added_via=EntrySource.PHONE, by=floor
    )
    services.mark_arrived(player=caller.player, by=floor)
    free_seat(table, 1)
    services.call_player(entry=caller, table=table, by=floor, reason="asked for this table")
    services.remove_from_list(entry=caller, by=floor, reason="left the room")
    steps = WaitingListEvent.objects.filter(entry=caller).exclude(event=ListEvent.ADDED).order_by("at", "id")
    assert [
        (e.event, e.waiting_list, e.player, e.by, e.table, e.position_before, e.position_after, e.reason)
        for e in steps
    ] == [
        (ListEvent.ARRIVED, holdem_list, caller.player, floor, None, 2, 2, ""),
        (ListEvent.CALLED, holdem_list, caller.player, floor, table, 2, 2, "asked for this table"),
        (ListEvent.REMOVED, holdem_list, caller.player, floor, None, 2, None, "left the room"),
    ]
    called = steps[1]
    assert [p["player_id"] for p in called.passed_over] == [first.player_id]


def test_an_interest_list_opens_a_table_and_seats_them_in_order(
    house: None, floor: Any, make_table: Callable[..., Table]
) -> None:
    stud = services.create_list(
        game=Game.objects.get(slug="stud"), stakes=Stakes.objects.get(code="limit-4-8"), by=floor
    )
    table = make_table(game="stud", stakes="limit-4-8", open=False)
    services.update_list_settings(by=floor, reason="stud starts with three", interest_by_game={"stud": 3})
    names = ["Jo One", "Kim Two", "Lu Three", "Mo Four"]
    for name in names[:2]:
        services.add_player(waiting_lists=[stud], new_player_name=name, by=floor)
    services.add_player(waiting_lists=[stud], new_player_name=names[2], added_via=EntrySource.PHONE, by=floor)
    services.add_player(waiting_lists=[stud], new_player_name=names[3], by=floor)
    (interest,) = FloorState.load().interest()
    assert (interest.ready, interest.needed, interest.enough, interest.closed_tables) == (3, 3, True, [table])
    seated = services.open_table_for_list(waiting_list=stud, table=table, by=floor)
    assert [(s.seat.number, s.player.name) for s in seated] == [(1, "Jo One"), (2, "Kim Two"), (3, "Mo Four")]
    table.refresh_from_db()
    assert table.is_open
    assert order(stud) == ["Lu Three"]  # the call-in keeps the place
    mo = WaitingListEvent.objects.get(event=ListEvent.SEATED, player__name="Mo Four")
    assert mo.passed_over == [
        {
            "player_id": seated[0].player_id + 2,
            "player": "Lu Three",
            "position": 3,
            "why": "call-in, not arrived yet",
        }
    ]


# --- Two floor screens at once -----------------------------------------------------------------------------


def race(*calls: Callable[[], Any]) -> list[Any]:
    """Run ``calls`` in threads released together; each returns its result or its exception."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except Exception as exc:
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_floor_screens_call_for_one_open_seat(
    house: None, users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    floor = users["floor"]
    waiting_list = services.create_list(
        game=Game.objects.get(slug="holdem"), stakes=Stakes.objects.get(code="limit-4-8-half"), by=floor
    )
    table = make_table(seat_count=2)
    floor_services.seat_player(table=table, seat_number=1, player=make_player("Sat Down"), by=floor)
    first, second = (
        add(make_player(name), waiting_list, by=floor)[0] for name in ("Una First", "Vic Second")
    )
    results = race(
        lambda: services.call_player(entry=first, table=table, by=floor),
        lambda: services.call_player(entry=second, table=table, by=floor, reason="the other screen's pick"),
    )
    assert sum(isinstance(r, WaitingListEntry) for r in results) == 1, results
    assert all(isinstance(r, WaitingListEntry | NoOpenSeat | OutOfTurn) for r in results), results
    assert WaitingListEntry.objects.filter(state=EntryState.CALLED).count() == 1
    # Two screens seat the called player at once: one seating, one refusal.
    called = WaitingListEntry.objects.get(state=EntryState.CALLED)
    results = race(
        lambda: services.seat_from_list(entry=called, seat_number=2, by=floor),
        lambda: services.seat_from_list(entry=called, seat_number=2, by=floor),
    )
    assert sum(isinstance(r, Seating) for r in results) == 1, results
    assert all(isinstance(r, Seating | FloorError) for r in results), results
    assert Seating.objects.active().filter(table=table).count() == 2
    assert WaitingListEvent.objects.filter(event=ListEvent.SEATED).count() == 1
