"""The floor's waiting-list pages and the room's public board (docs/waiting-lists.md): who may see
and change what, the board without a login and without full names, the fees posted from the
version in force, and the cheap answers a polling board gets (one query and a 304 while nothing
changed)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from handflow import services as hand_flow
from tables import services
from tables.lists import services as lists
from tables.models import (
    EntrySource,
    Game,
    ListEvent,
    Player,
    Seating,
    Stakes,
    Table,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
    WaitingListSettings,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def login(users: dict[str, Any]) -> Callable[[str], Client]:
    def make(role: str) -> Client:
        client = Client()
        client.force_login(users[role])
        return client

    return make


@pytest.fixture
def running(
    holdem_list: WaitingList, table_with_players: Callable[..., tuple[Table, list[Player]]]
) -> tuple[Table, list[Player]]:
    """Table of $4-$8 half-kill hold'em (schedule A), three seats, full."""
    return table_with_players(3, seat_count=3)


def text(response: Any) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def test_the_floor_runs_a_seat_from_the_page(
    running: tuple[Table, list[Player]], holdem_list: WaitingList, login: Callable[[str], Client]
) -> None:
    table, players = running
    floor = login("floor")
    page = floor.get("/floor/lists/")
    assert page.status_code == 200
    assert "Put a player on the lists" in text(page)
    added = floor.post(
        "/floor/lists/",
        {
            "action": "add",
            "player_name": "Ann Marie Smith",
            "lists": [holdem_list.pk],
            "added_via": "in_person",
        },
        follow=True,
    )
    assert "Ann Marie Smith is on Texas Hold&#x27;em $4-$8 limit, half kill (#1)." in text(added)
    hand_flow.cash_out(table=table, player=players[0], by=None, idempotency_key="pages-leave-1")
    panel = floor.get("/floor/lists/calls/")
    assert f"Table {table.number}" in text(panel)
    assert "Next: <strong>Ann Marie Smith</strong>" in text(panel)
    entry = WaitingListEntry.objects.get()
    floor.post("/floor/lists/", {"action": "call", "entry": entry.pk, "table": table.number})
    seated = floor.post("/floor/lists/", {"action": "seat", "entry": entry.pk, "seat_number": 1}, follow=True)
    assert f"Ann Marie Smith sits at table {table.number} seat 1." in text(seated)
    assert Seating.objects.active().get(table=table, seat__number=1).player.name == "Ann Marie Smith"
    # A refusal is the page's message, and nothing changes.
    refused = floor.post("/floor/lists/", {"action": "remove", "entry": entry.pk, "reason": "x"}, follow=True)
    assert "no longer on the" in text(refused)


def test_who_may_see_and_change_the_lists(holdem_list: WaitingList, login: Callable[[str], Client]) -> None:
    assert login("dealer").get("/floor/lists/").status_code == 403
    auditor = login("auditor")
    page = auditor.get("/floor/lists/")
    assert page.status_code == 200
    assert "Put a player on the lists" not in text(page)
    assert (
        auditor.post(
            "/floor/lists/", {"action": "add", "player_name": "Z", "lists": [holdem_list.pk]}
        ).status_code
        == 403
    )
    assert auditor.get("/floor/lists/report/").status_code == 200
    assert login("dealer").get("/floor/lists/report/").status_code == 403
    assert auditor.post("/floor/lists/settings/", {"call_minutes": 9}).status_code == 403
    anonymous = Client().get("/floor/lists/")
    assert anonymous.status_code == 302


def test_settings_page_saves_with_a_reason(holdem_list: WaitingList, login: Callable[[str], Client]) -> None:
    floor = login("floor")
    form = {
        "call_in_minutes": 45,
        "call_minutes": 4,
        "missed_call_policy": "bottom_then_off",
        "move_down_places": 2,
        "table_changes_first": "on",
        "interest_players": 5,
        "open_stud": 3,
        "reason": "weekend",
    }
    saved = floor.post("/floor/lists/settings/", form)
    assert saved.status_code == 302
    settings = WaitingListSettings.current()
    assert (settings.call_in_minutes, settings.call_minutes, settings.interest_by_game) == (
        45,
        4,
        {"stud": 3},
    )
    bad = floor.post("/floor/lists/settings/", {**form, "call_minutes": 0})
    assert bad.status_code == 400


def test_the_report_shows_who_went_ahead_of_whom_and_why(
    running: tuple[Table, list[Player]],
    holdem_list: WaitingList,
    login: Callable[[str], Client],
    users: dict[str, Any],
) -> None:
    table, players = running
    floor_user = users["floor"]
    (first,) = lists.add_player(waiting_lists=[holdem_list], new_player_name="Bea First", by=floor_user)
    (phone,) = lists.add_player(
        waiting_lists=[holdem_list], new_player_name="Cal Phone", added_via=EntrySource.PHONE, by=floor_user
    )
    (third,) = lists.add_player(waiting_lists=[holdem_list], new_player_name="Dee Third", by=floor_user)
    hand_flow.cash_out(table=table, player=players[1], by=None, idempotency_key="report-leave")
    lists.call_player(entry=third, table=table, by=floor_user, reason="Bea wants table 9 only")
    lists.seat_from_list(entry=third, seat_number=2, by=floor_user)
    lists.move_on_list(entry=phone, position=1, by=floor_user, reason="called before the list opened")
    report = text(login("auditor").get("/floor/lists/report/"))
    assert "ahead of Bea First (#1): Bea wants table 9 only" in report
    assert "ahead of Cal Phone (#2): call-in, not arrived yet" in report
    assert "Reason: called before the list opened" in report
    assert WaitingListEvent.objects.filter(event=ListEvent.SEATED, player=third.player).exists()
    assert first.player.name == "Bea First"


def test_the_report_names_each_player_as_they_were_at_the_event(
    holdem_list: WaitingList, users: dict[str, Any], login: Callable[[str], Client]
) -> None:
    ann = Player.objects.create(name="Ann Lee")
    lists.add_player(waiting_lists=[holdem_list], player=ann, by=users["floor"])
    services.update_player(player=ann, name="Ann Soto", by=users["floor"])
    everything = text(login("auditor").get("/floor/lists/report/")).split("Everything, in order", 1)[1]
    assert "Ann Lee" in everything
    assert "Ann Soto" not in everything  # the only event came before the rename


def test_the_board_needs_no_login_and_shows_no_full_name(
    running: tuple[Table, list[Player]], holdem_list: WaitingList, users: dict[str, Any]
) -> None:
    table, _ = running
    lists.add_player(waiting_lists=[holdem_list], new_player_name="Ann Marie Smith", by=users["floor"])
    lists.add_player(
        waiting_lists=[holdem_list], new_player_name="Bob Jones", board_alias="Rocket", by=users["floor"]
    )
    lists.create_list(
        game=Game.objects.get(slug="stud"), stakes=Stakes.objects.get(code="limit-4-8"), by=None
    )
    board = Client().get("/board/")
    assert board.status_code == 200
    page = text(board)
    assert "Ann S." in page
    assert "Rocket" in page
    assert "Ann Marie Smith" not in page
    assert "Jones" not in page
    assert re.search(rf'<tr data-table="{table.number}">.*?Texas Hold.{{1,6}}em.*?full', page)
    assert "Starting soon: 0 of 6 players" in page  # stud has a list and no table
    # The fees posted are schedule A's in force for $4-$8 (004): $1, $2, $3 from the button by band.
    assert "1-4 players: $1 from the button" in page
    assert "7-10 players: $3 from the button" in page
    assert "Schedule A, version 1" in page
    assert '<script src="/static/live.js" defer></script>' in page
    assert "<script>" not in page  # no inline script (the site's CSP allows scripts from the site only)


def test_a_polling_board_costs_one_query_and_a_304_until_something_changes(
    running: tuple[Table, list[Player]], holdem_list: WaitingList, users: dict[str, Any]
) -> None:
    table, players = running
    board = Client()
    first = board.get("/board/panel/")
    etag = first["ETag"]
    assert first.status_code == 200
    assert "no-cache" in first["Cache-Control"]
    with CaptureQueriesContext(connection) as queries:
        again = board.get("/board/panel/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""
    assert len(queries) == 1
    # A list change, a seat opening and a time limit falling due each change the answer.
    lists.add_player(waiting_lists=[holdem_list], new_player_name="Eve Late", by=users["floor"])
    changed = board.get("/board/panel/", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert "Eve L." in text(changed)
    etag = changed["ETag"]
    hand_flow.cash_out(table=table, player=players[0], by=None, idempotency_key="board-leave")
    opened = board.get("/board/panel/", HTTP_IF_NONE_MATCH=etag)
    assert opened.status_code == 200
    assert re.search(rf'<tr data-table="{table.number}">.*?open-seats">1<', text(opened))
    entry = WaitingListEntry.objects.get()
    lists.call_player(entry=entry, table=table, by=users["floor"])
    etag = board.get("/board/panel/")["ETag"]
    WaitingListEntry.objects.filter(pk=entry.pk).update(
        call_deadline=entry.added_at
    )  # the call's time ran out
    missed = board.get("/board/panel/", HTTP_IF_NONE_MATCH=etag)
    assert missed.status_code == 200
    assert "called to table" not in text(missed)
