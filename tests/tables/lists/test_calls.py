"""Waiting lists and seat offers (docs/waiting-lists.md): the rules over places in memory, the
services through the floor's own writes, the floor screen's state, the record and the day's report,
and a race of two floor screens for one seat (PostgreSQL)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
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
from tables.lists.rules import Place, Rules, ordered, settle
from tables.lists.selectors import FloorState, day_report
from tables.models import (
    ConfigChange,
    EntryKind,
    EntrySource,
    EntryState,
    Game,
    ListEvent,
    MissedCallPolicy,
    Player,
    Seating,
    Stakes,
    Table,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
    WaitingListSettings,
)
from tables.tasks import expire_waiting_lists

NOW = dt.datetime(2026, 6, 1, 20, 0, tzinfo=dt.UTC)


# --- Fixtures of this module ---------------------------------------------------------------------------


@pytest.fixture
def floor(users: dict[str, Any]) -> Any:
    return users["floor"]


@pytest.fixture
def omaha_list(house: None, floor: Any) -> WaitingList:
    return services.create_list(
        game=Game.objects.get(slug="omaha-hi-lo"), stakes=Stakes.objects.get(code="limit-4-8-half"), by=floor
    )


@pytest.fixture
def full_table(
    make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> Callable[..., Table]:
    """``full_table(seats=3)``: an open hold'em $4-$8 table of that many seats, everyone bought in."""

    def make(seats: int = 3, **kwargs: Any) -> Table:
        table = make_table(seat_count=seats, **kwargs)
        buy_in_players(table, list(range(1, seats + 1)))
        return table

    return make


def add(player: Player, *lists: WaitingList, by: Any = None, **kwargs: Any) -> list[WaitingListEntry]:
    return services.add_player(waiting_lists=list(lists), player=player, by=by, **kwargs)


def free_seat(table: Table, seat_number: int) -> None:
    """The player in ``seat_number`` cashes out and leaves: a seat opens."""
    seating = Seating.objects.active().select_related("player").get(table=table, seat__number=seat_number)
    hand_flow.cash_out(table=table, player=seating.player, by=None, idempotency_key=f"leave-{seating.pk}")


def order(waiting_list: WaitingList) -> list[str]:
    """The list as the floor screen shows it now."""
    return [row.player.name for row in FloorState.load().rows[waiting_list.pk]]


def events(**filters: Any) -> list[str]:
    return list(
        WaitingListEvent.objects.filter(**filters).order_by("at", "id").values_list("event", flat=True)
    )


def later(entry: WaitingListEntry, **fields: dt.timedelta) -> None:
    """Time passes for ``entry``: each named deadline is moved into the past by the given amount."""
    entry.refresh_from_db()
    WaitingListEntry.objects.filter(pk=entry.pk).update(
        **{name: getattr(entry, name) - delta for name, delta in fields.items()}
    )


# --- The rules, over places in memory -------------------------------------------------------------------


def place(pk: int, **kwargs: Any) -> Place:
    values: dict[str, Any] = {
        "id": pk,
        "player_id": 100 + pk,
        "position": pk,
        "state": EntryState.WAITING,
        "added_via": EntrySource.IN_PERSON,
        "expires_at": None,
        "arrived_at": None,
        "call_deadline": None,
        "called_to_id": None,
        "misses": 0,
    }
    values.update(kwargs)
    return Place(**values)


def test_a_missed_call_moves_down_once_then_off_the_list() -> None:
    rules = Rules(MissedCallPolicy.DOWN_THEN_OFF, move_down_places=2)
    called = place(1, state=EntryState.CALLED, call_deadline=NOW - dt.timedelta(minutes=1), called_to_id=7)
    places = ordered([called, place(2), place(3), place(4)])
    (lapse,) = settle(places, rules, NOW)
    assert [p.id for p in places] == [2, 3, 1, 4]
    assert (lapse.event, lapse.at, lapse.position_before, lapse.position_after) == (
        ListEvent.PASSED,
        NOW - dt.timedelta(minutes=1),
        1,
        3,
    )
    assert "moved down 2 places" in lapse.reason
    assert settle(places, rules, NOW) == []  # settling again changes nothing
    called.state, called.call_deadline, called.called_to_id = EntryState.CALLED, NOW, 7
    (second,) = settle(places, rules, NOW)
    assert second.position_after is None
    assert called.state == EntryState.REMOVED
    assert [p.id for p in places] == [2, 3, 4]


def test_policies_bottom_and_off_and_expiries_in_the_order_they_fell_due() -> None:
    late = NOW - dt.timedelta(minutes=5)
    later_still = NOW - dt.timedelta(minutes=1)
    places = ordered(
        [
            place(1, state=EntryState.CALLED, call_deadline=later_still, called_to_id=7),
            place(2, added_via=EntrySource.PHONE, expires_at=late),
            place(3),
            place(4, added_via=EntrySource.PHONE, expires_at=NOW + dt.timedelta(minutes=1)),
            place(5, added_via=EntrySource.PHONE, expires_at=late, arrived_at=late - dt.timedelta(minutes=1)),
        ]
    )
    lapses = settle(places, Rules(MissedCallPolicy.BOTTOM_THEN_OFF, 3), NOW)
    assert [(lapse.place_id, lapse.event) for lapse in lapses] == [
        (2, ListEvent.EXPIRED),
        (1, ListEvent.PASSED),
    ]
    assert [p.id for p in places] == [3, 4, 5, 1]  # to the bottom; 4 hasn't expired yet, 5 arrived
    off = ordered([place(1, state=EntryState.CALLED, call_deadline=late, called_to_id=7), place(2)])
    (lapse,) = settle(off, Rules(MissedCallPolicy.OFF, 3), NOW)
    assert lapse.position_after is None
    assert [p.id for p in off] == [2]


def test_board_name_is_first_name_and_initial_or_the_alias() -> None:
    assert Player(name="Ann Marie Smith").board_name == "Ann S."
    assert Player(name="Cher").board_name == "Cher"
    assert Player(name="Ann Smith", board_alias="Big Slick").board_name == "Big Slick"


# --- Lists: adding, call-ins, calls, seats ---------------------------------------------------------------


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


# --- Must-move, table changes, interest lists ---------------------------------------------------------------


def test_the_must_move_player_longest_there_moves_to_the_main_game_with_chips(
    holdem_list: WaitingList, full_table: Callable[..., Table], floor: Any
) -> None:
    main = full_table(3)
    must = full_table(3)
    services.set_must_move(table=must, waiting_list=holdem_list, by=floor, reason="main game is full")
    waiting = add(Player.objects.create(name="Hal Waits"), holdem_list, by=floor)[0]
    longest = Seating.objects.active().filter(table=must).order_by("seated_at", "pk").first()
    assert longest is not None
    chips = ledger_selectors.player_chips(table=must, player=longest.player)
    free_seat(main, 3)
    calls = FloorState.load().table_calls(main)
    assert calls is not None
    assert [c.kind for c in calls.candidates] == ["must_move", "must_move", "must_move", "list"]
    assert calls.candidates[0].seating == longest
    # Calling the list's player first is out of turn.
    with pytest.raises(OutOfTurn):
        services.call_player(entry=waiting, table=main, by=floor)
    second = calls.candidates[1].seating
    assert second is not None
    with pytest.raises(OutOfTurn):
        services.move_in_from_list(
            seating=second, to_table=main, to_seat_number=3, by=floor, move=hand_flow.move_player
        )
    moved = services.move_in_from_list(
        seating=longest, to_table=main, to_seat_number=3, by=floor, move=hand_flow.move_player
    )
    assert (moved.table, moved.seat.number) == (main, 3)
    assert ledger_selectors.player_chips(table=main, player=longest.player) == chips
    record = WaitingListEvent.objects.get(event=ListEvent.MUST_MOVED)
    assert record.passed_over == [
        {
            "player_id": waiting.player_id,
            "player": "Hal Waits",
            "position": 1,
            "why": "the must-move table moves to the main game first",
        }
    ]
    # The must-move table's open seat goes to the list.
    calls = FloorState.load().table_calls(must)
    assert calls is not None
    assert [c.player.name for c in calls.candidates] == ["Hal Waits"]


def test_a_table_change_is_served_before_the_list_when_the_room_says_so(
    holdem_list: WaitingList, full_table: Callable[..., Table], floor: Any
) -> None:
    first, second = full_table(3), full_table(3)
    newcomer = add(Player.objects.create(name="Ivy New"), holdem_list, by=floor)[0]
    mover = Seating.objects.active().filter(table=first).first()
    assert mover is not None
    add(mover.player, holdem_list, by=floor, entry_kind=EntryKind.TABLE_CHANGE)
    free_seat(second, 1)
    assert [c.kind for c in FloorState.load().table_calls(second).candidates] == ["table_change", "list"]  # type: ignore[union-attr]
    services.update_list_settings(by=floor, reason="new players first tonight", table_changes_first=False)
    assert [c.kind for c in FloorState.load().table_calls(second).candidates] == ["list", "table_change"]  # type: ignore[union-attr]
    services.update_list_settings(by=floor, reason="back to the house rule", table_changes_first=True)
    services.move_in_from_list(
        seating=mover, to_table=second, to_seat_number=1, by=floor, move=hand_flow.move_player
    )
    assert WaitingListEntry.objects.get(player=mover.player).state == EntryState.SEATED
    served = WaitingListEvent.objects.get(event=ListEvent.TABLE_CHANGED)
    assert served.passed_over[0]["player"] == "Ivy New"
    # The seat the mover left goes to the list.
    assert [c.player for c in FloorState.load().table_calls(first).candidates] == [newcomer.player]  # type: ignore[union-attr]
    # A player who asked for nothing moves in only by the ordinary table change, not from the list.
    free_seat(second, 2)
    stay = Seating.objects.active().filter(table=first).first()
    assert stay is not None
    with pytest.raises(FloorConflict) as refused:
        services.move_in_from_list(
            seating=stay, to_table=second, to_seat_number=2, by=floor, move=hand_flow.move_player
        )
    assert refused.value.code == "not_moving_in"


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


def test_settings_are_checked_and_recorded(floor: Any, house: None) -> None:
    assert WaitingListSettings.current().call_minutes == 5  # the defaults before the first save
    with pytest.raises(FloorValidationError) as refused:
        services.update_list_settings(by=floor, reason="x", call_minutes=0)
    assert refused.value.field == "call_minutes"
    with pytest.raises(FloorValidationError):
        services.update_list_settings(by=floor, reason="x", interest_by_game={"nope": 4})
    with pytest.raises(FloorValidationError):
        services.update_list_settings(by=floor, reason="x", missed_call_policy="shrug")
    settings = services.update_list_settings(
        by=floor, reason="weekend", call_minutes=3, missed_call_policy=MissedCallPolicy.OFF
    )
    assert (settings.call_minutes, settings.missed_call_policy, settings.updated_by) == (3, "off", floor)
    change = ConfigChange.objects.filter(reason="weekend").get()
    assert (change.before["call_minutes"], change.after["call_minutes"]) == (5, 3)


def test_the_record_is_append_only(holdem_list: WaitingList, floor: Any) -> None:
    add(Player.objects.create(name="Ned N"), holdem_list, by=floor)
    event = WaitingListEvent.objects.get()
    with pytest.raises(TypeError):
        event.save()
    with pytest.raises(TypeError):
        WaitingListEvent.objects.all().delete()
    with pytest.raises(TypeError):
        WaitingListEvent.objects.update(reason="rewritten")


def test_a_list_closes_only_when_empty(holdem_list: WaitingList, floor: Any) -> None:
    (entry,) = add(Player.objects.create(name="Oz O"), holdem_list, by=floor)
    with pytest.raises(FloorConflict):
        services.close_list(waiting_list=holdem_list, by=floor)
    services.remove_from_list(entry=entry, by=floor, reason="went home")
    services.close_list(waiting_list=holdem_list, by=floor)
    with pytest.raises(FloorError):
        add(Player.objects.create(name="Pat P"), holdem_list, by=floor)
    assert (
        services.create_list(game=holdem_list.game, stakes=holdem_list.stakes, by=floor).pk == holdem_list.pk
    )


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
