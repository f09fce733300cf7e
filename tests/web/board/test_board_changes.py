"""The room's board shows every change at the next poll (docs/waiting-lists.md, "The board").

The board's version (``tables.board.board_version``, the panel's ETag) reads what the board draws,
not a record of changes: a player renamed at the floor's player page (no history row), a table's
game changed on its setup page, a table opened or closed, a game renamed, even a change written
with no record at all, each gives the next poll a new ETag and the new panel, and new fees when
they take effect (no waiting, no clock: the tests assert on the version and the panel).
Unchanged, a poll is still one query and a 304; each worker draws a version once and hands the
copy to the other boards; a change made while the panel is drawn is never kept under a version
that no longer names it.
"""

from __future__ import annotations

import datetime
import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tables import services
from tables.board import REDRAW_AT_LEAST_EVERY, board, board_version
from tables.lists import services as lists
from tables.models import Game, Player, Stakes, Table
from web.board import views as board_views

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_drawing_kept() -> None:
    """Each test starts with nothing drawn (a worker's copy would outlive the test's database)."""
    board_views._LastDrawn.drawn = None


@pytest.fixture
def room(
    users: dict[str, Any], table_with_players: Callable[..., tuple[Table, list[Player]]]
) -> dict[str, Any]:
    """A hold'em table of three seats with two players, a hold'em list with Ann Marie Smith on it."""
    holdem = lists.create_list(
        game=Game.objects.get(slug="holdem"), stakes=Stakes.objects.get(code="limit-4-8-half"), by=None
    )
    table, seated = table_with_players(2, seat_count=3)
    [entry] = lists.add_player(waiting_lists=[holdem], new_player_name="Ann Marie Smith", by=None)
    floor = Client()
    floor.force_login(users["floor"])
    return {"table": table, "seated": seated, "list": holdem, "waiting": entry.player, "floor": floor}


def text(response: Any) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def poll(board: Client, etag: str | None) -> Any:
    """One poll as ``static/live.js`` makes it (a conditional GET with the ETag it holds)."""
    return board.get("/board/panel/", headers={"if-none-match": etag} if etag else {})


def row_of(panel: str, number: int) -> str:
    found = re.search(rf'<tr data-table="{number}">(.*?)</tr>', panel)
    return found.group(1) if found else ""


def rename_at_the_player_page(room: dict[str, Any]) -> Callable[[str], bool]:
    player = room["waiting"]
    answer = room["floor"].post(
        f"/floor/players/{player.pk}/", {"action": "update", "name": "Zoe Quinn", "member_number": ""}
    )
    assert answer.status_code == 302
    return lambda panel: "Zoe Q." in panel and "Ann S." not in panel


def change_the_game_at_the_setup_page(room: dict[str, Any]) -> Callable[[str], bool]:
    table = room["table"]
    for _, player in zip(range(2), room["seated"], strict=False):
        services.unseat_player(seating=player.seatings.get(left_at__isnull=True), by=None)
    answer = room["floor"].post(
        f"/floor/tables/{table.number}/setup/",
        {
            "game": "omaha-hi-lo",
            "stakes": "limit-4-8-half",
            "kill": "half",
            "collection_schedule": "A",
            "seat_count": 3,
            "chip": "1",
            "reason": "the game changes",
        },
    )
    assert answer.status_code == 302, answer.content
    return lambda panel: "Omaha" in row_of(panel, table.number)


def open_a_new_table(room: dict[str, Any]) -> Callable[[str], bool]:
    answer = room["floor"].post(
        "/floor/tables/new/",
        {
            "number": 77,
            "game": "holdem",
            "stakes": "limit-4-8-half",
            "kill": "half",
            "collection_schedule": "A",
            "seat_count": 9,
            "chip": "1",
        },
    )
    assert answer.status_code == 302, answer.content
    services.open_table(table=Table.objects.get(number=77), by=None)
    return lambda panel: "open-seats" in row_of(panel, 77)


def close_the_table(room: dict[str, Any]) -> Callable[[str], bool]:
    table = room["table"]
    for player in room["seated"]:
        services.unseat_player(seating=player.seatings.get(left_at__isnull=True), by=None)
    services.close_table(table=table, by=None)
    return lambda panel: row_of(panel, table.number) == ""


def rename_the_game(room: dict[str, Any]) -> Callable[[str], bool]:
    Game.objects.filter(slug="holdem").update(name="Texas Holdem Deluxe")
    return lambda panel: "Texas Holdem Deluxe" in row_of(panel, room["table"].number)


def move_the_table_to_other_stakes_unrecorded(room: dict[str, Any]) -> Callable[[str], bool]:
    # A writer that records its history elsewhere, or commits after a later change's history row:
    # the board reads the table as it is, not the history's latest id.
    Table.objects.filter(pk=room["table"].pk).update(stakes=Stakes.objects.get(code="limit-6-12"))
    return lambda panel: "$6-$12" in row_of(panel, room["table"].number)


@pytest.mark.parametrize(
    "change",
    [
        rename_at_the_player_page,
        change_the_game_at_the_setup_page,
        open_a_new_table,
        close_the_table,
        rename_the_game,
        move_the_table_to_other_stakes_unrecorded,
    ],
)
def test_the_next_poll_shows_the_change(
    change: Callable[[dict[str, Any]], Callable[[str], bool]], room: dict[str, Any]
) -> None:
    board = Client()
    first = poll(board, None)
    etag = first["ETag"]
    assert poll(board, etag).status_code == 304
    shows = change(room)
    assert not shows(text(first))
    after = poll(board, etag)
    assert after.status_code == 200
    assert after["ETag"] != etag
    assert shows(text(after))


def test_a_player_renamed_at_the_cage_changes_the_version_at_once(room: dict[str, Any]) -> None:
    """The floor service's rename (no history row): the version read at the same instant differs."""
    now = timezone.now()
    before = board_version(now)
    assert board_version(now) == before
    services.update_player(player=room["waiting"], name="Ann Marie Jones", by=None)
    assert board_version(now) != before


def test_a_player_renamed_at_a_must_move_table_changes_the_version(room: dict[str, Any]) -> None:
    """ "Seats to fill" offers a must-move table's players by name; the version reads their names."""
    lists.set_must_move(table=room["table"], waiting_list=room["list"], by=None)
    now = timezone.now()
    before = board_version(now)
    services.update_player(player=room["seated"][0], name="Moved Along", by=None)
    assert board_version(now) != before


def test_a_schedule_version_taking_effect_changes_the_version_then(room: dict[str, Any]) -> None:
    """New fees decided for later show when they take effect, with no write at that moment."""
    table = room["table"]
    schedule = table.collection_schedule
    in_force = schedule.version_at(timezone.now())
    rates = [
        {name: getattr(rate, name) for name in services.RATE_FIELDS}
        | {"fee_cents": rate.fee_cents + 100 if rate.fee_cents else rate.fee_cents}
        for rate in in_force.rates.all()
    ]
    takes_effect = (timezone.now() + datetime.timedelta(hours=1)).replace(second=30, microsecond=0)
    services.revise_schedule(
        schedule=schedule, rates=rates, by=None, reason="dearer fees", effective_from=takes_effect
    )
    second = datetime.timedelta(seconds=1)
    before, after = takes_effect - second, takes_effect + second
    assert board_version(before) != board_version(after)  # the same minute: only the fees differ
    [posted] = [f for f in board(after).fees if f.schedule == schedule.code]
    assert posted.version == in_force.number + 1


def test_the_version_moves_with_the_minute_the_board_shows(room: dict[str, Any]) -> None:
    minute = datetime.datetime(2026, 11, 28, 20, 15, tzinfo=datetime.UTC)
    assert REDRAW_AT_LEAST_EVERY == 60
    assert board_version(minute) == board_version(minute + datetime.timedelta(seconds=59))
    assert board_version(minute) != board_version(minute + datetime.timedelta(seconds=60))


def test_a_worker_draws_a_version_once_for_every_board(room: dict[str, Any]) -> None:
    first = poll(Client(), None)
    assert first.status_code == 200
    # Another board (no ETag yet, a page loaded elsewhere): the copy, for the version's one query.
    with CaptureQueriesContext(connection) as queries:
        second = poll(Client(), None)
    assert len(queries) == 1
    assert (second.status_code, second["ETag"], second.content) == (200, first["ETag"], first.content)
    # A change: drawn again, once.
    services.update_player(player=room["waiting"], name="Zoe Quinn", by=None)
    changed = poll(Client(), first["ETag"])
    assert changed.status_code == 200
    assert "Zoe Q." in text(changed)
    with CaptureQueriesContext(connection) as queries:
        again = poll(Client(), first["ETag"])
    assert len(queries) == 1
    assert again.content == changed.content


def test_a_change_while_the_panel_is_drawn_is_not_kept_under_the_old_version(
    room: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change lands between the version's read and the drawing: the answer carries no ETag (the
    board draws it and asks again unconditionally) and is not kept; the next poll is current."""
    real_board = board_views.board
    player = room["waiting"]

    def board_then_a_rename(*args: Any, **kwargs: Any) -> Any:
        drawn = real_board(*args, **kwargs)
        services.update_player(player=player, name="Zoe Quinn", by=None)
        return drawn

    monkeypatch.setattr(board_views, "board", board_then_a_rename)
    raced = poll(Client(), None)
    assert raced.status_code == 200
    assert not raced.has_header("ETag")
    assert board_views._LastDrawn.drawn is None
    monkeypatch.setattr(board_views, "board", real_board)
    current = poll(Client(), None)
    assert "Zoe Q." in text(current)
    assert current.has_header("ETag")


def test_the_page_and_the_panel_agree_and_a_restart_answers_the_same(room: dict[str, Any]) -> None:
    page = Client().get("/board/")
    found = re.search(r'data-live-etag="([^"]*)"', page.content.decode())
    assert found is not None
    etag = html.unescape(found.group(1))  # as the browser reads the attribute
    assert etag
    assert poll(Client(), etag).status_code == 304
    # A restarted worker has drawn nothing: the board's ETag still names the same version.
    board_views._LastDrawn.drawn = None
    assert poll(Client(), etag).status_code == 304
