"""Must-move tables and table changes (tables/lists/must_move.py): the player longest at the
must-move table moves to the main game with their chips; table changes before the list when the
room says so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from tables.errors import FloorConflict, OutOfTurn
from tables.lists import services
from tables.lists.selectors import FloorState
from tables.models import (
    EntryKind,
    EntryState,
    ListEvent,
    Player,
    Seating,
    Table,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
)
from tests.tables.lists.steps import add, free_seat


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
