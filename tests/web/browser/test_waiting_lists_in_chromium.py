"""The waiting lists in a real browser (docs/waiting-lists.md): a floor manager runs a seat from the
floor page alone while the room's board, open in another browser (no login, 1920x1080), shows each
change within 5 seconds.

A call-in joins two lists by phone; a seat opens at the main game and the player longest at its
must-move table moves there with their chips; the must-move table's open seat is offered to the
list: the first player is called and misses the call (the time runs out: the board moves them
down with nobody touching anything), the call-in arrives, is called and takes the seat within the
time, and leaves both lists. Each page passes the accessibility check of the browser tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from tables.lists import services as lists
from tables.models import (
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
from tests.web.browser.browser import BROWSER_MARKS, accessible, snapshot

pytestmark = BROWSER_MARKS

#: The issue's bound: the board shows a change within this many seconds.
WITHIN_MS = 5_000


@pytest.fixture
def board(chromium: Any, live_server: Any) -> Iterator[Any]:
    """The room's TV: another browser context, no login, 1920x1080."""
    context = chromium.new_context(base_url=live_server.url, viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.fixture
def room(
    users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Callable[..., list[Player]]
) -> dict[str, Any]:
    """A full main game (table 41), its full must-move table (42), the hold'em and Omaha hi-lo lists."""
    floor = users["floor"]
    holdem = lists.create_list(
        game=Game.objects.get(slug="holdem"), stakes=Stakes.objects.get(code="limit-4-8-half"), by=floor
    )
    omaha = lists.create_list(
        game=Game.objects.get(slug="omaha-hi-lo"), stakes=Stakes.objects.get(code="limit-4-8-half"), by=floor
    )
    main, must = make_table(number=41, seat_count=3), make_table(number=42, seat_count=3)
    main_players = buy_in_players(main, [1, 2, 3])
    must_players = buy_in_players(must, [1, 2, 3])
    lists.set_must_move(table=must, waiting_list=holdem, by=floor, reason="the main game is full")
    return {"holdem": holdem, "omaha": omaha, "main": main, "must": must, "main_players": main_players,
            "must_players": must_players}  # fmt: skip


def names_on(board: Any, waiting_list: WaitingList) -> Any:
    return board.locator(
        f'article[data-list="{waiting_list.game.name} {waiting_list.stakes.label}"] ol.names'
    )


def seen_within(what: str, started: float, *checks: Callable[[], None]) -> float:
    """Each of ``checks`` (a Playwright expectation waiting up to 5 s) passes; returns and prints how
    long after ``started`` (the change) the board showed it all."""
    for check in checks:
        check()
    elapsed = time.monotonic() - started
    print(f"board shows {what}: {elapsed:.1f} s after the change")
    assert elapsed <= WITHIN_MS / 1000, (what, elapsed)
    return elapsed


def test_the_floor_runs_a_seat_and_the_board_follows(
    open_as: Callable[..., Any], board: Any, room: dict[str, Any], users: dict[str, Any]
) -> None:
    from playwright.sync_api import expect

    holdem, omaha, main, must = room["holdem"], room["omaha"], room["main"], room["must"]
    board.goto("/board/")
    expect(names_on(board, holdem)).to_contain_text("No one waiting")
    accessible(board)
    floor = open_as("floor", viewport=(1366, 1024))
    floor.goto("/floor/lists/")
    accessible(floor)

    # Bea is here; Dee calls in for hold'em and Omaha hi-lo.
    floor.fill("#add-name", "Bea Miss")
    floor.check(f"#add-list-{holdem.pk}")
    floor.click("#add-submit")
    expect(floor.locator(".messages")).to_contain_text("Bea Miss is on")
    floor.fill("#add-name", "Dee Phone")
    floor.check(f"#add-list-{holdem.pk}")
    floor.check(f"#add-list-{omaha.pk}")
    floor.select_option("#add-via", "phone")
    started = time.monotonic()
    floor.click("#add-submit")
    expect(floor.locator(".messages")).to_contain_text("Dee Phone is on")
    seen_within(
        "the call-in on both lists",
        started,
        lambda: expect(names_on(board, holdem)).to_contain_text("Dee P. on the way", timeout=WITHIN_MS),
        lambda: expect(names_on(board, omaha)).to_contain_text("Dee P. on the way", timeout=WITHIN_MS),
    )
    expect(names_on(board, holdem).locator("li")).to_have_text(["Bea M.", "Dee P. on the way"])
    assert "Dee Phone" not in board.content()

    # A seat opens at the main game: the player longest at the must-move table moves first.
    leaving = room["main_players"][2]
    started = time.monotonic()
    hand_flow.cash_out(table=main, player=leaving, by=None, idempotency_key="browser-leaves-main")
    seen_within(
        "the main game's open seat",
        started,
        lambda: expect(board.locator(f'tr[data-table="{main.number}"] .open-seats')).to_have_text(
            "1", timeout=WITHIN_MS
        ),
    )
    mover = Seating.objects.active().filter(table=must).order_by("seated_at", "pk").first()
    assert mover is not None
    chips = ledger_selectors.player_chips(table=must, player=mover.player)
    panel = floor.locator(f"#calls-table-{main.number}")
    expect(panel).to_contain_text(
        f"Next: {mover.player.name} (must-move table {must.number}", timeout=WITHIN_MS
    )
    floor.select_option(f"#move-in-{main.number}", "3")
    started = time.monotonic()
    panel.locator("button.move-in").click()
    expect(floor.locator(".messages")).to_contain_text(
        f"{mover.player.name} moved to table {main.number} seat 3"
    )
    seen_within(
        "the must-move player in the main game",
        started,
        lambda: expect(board.locator(f'tr[data-table="{main.number}"] .open-seats')).to_have_text(
            "full", timeout=WITHIN_MS
        ),
        lambda: expect(board.locator(f'tr[data-table="{must.number}"] .open-seats')).to_have_text(
            "1", timeout=WITHIN_MS
        ),
    )
    assert ledger_selectors.player_chips(table=main, player=mover.player) == chips

    # The must-move table's seat goes to the list: Bea (Dee hasn't arrived) is called...
    panel = floor.locator(f"#calls-table-{must.number}")
    expect(panel).to_contain_text("Next: Bea Miss", timeout=WITHIN_MS)
    expect(panel).to_contain_text("Dee Phone (call-in, not arrived yet)")
    started = time.monotonic()
    panel.locator("button.call-next").click()
    expect(floor.locator(".messages")).to_contain_text(f"Call Bea Miss to table {must.number}")
    seen_within(
        "the call",
        started,
        lambda: expect(names_on(board, holdem)).to_contain_text(
            f"called to table {must.number}", timeout=WITHIN_MS
        ),
    )
    # ... and misses it: her time runs out (moved back here, as the clock would), and the board
    # moves her down without anyone touching the lists.
    bea = WaitingListEntry.objects.get(player__name="Bea Miss")
    assert bea.call_deadline is not None
    started = time.monotonic()
    WaitingListEntry.objects.filter(pk=bea.pk).update(call_deadline=bea.called_at)
    seen_within(
        "the missed call moving her down",
        started,
        lambda: expect(names_on(board, holdem).locator("li")).to_have_text(
            ["Dee P. on the way", "Bea M."], timeout=WITHIN_MS
        ),
    )

    # Dee arrives, is called, and takes the seat in time: off both lists.
    floor.reload()
    dee_row = floor.locator(f'#list-{holdem.pk} tr[data-player="Dee Phone"]')
    started = time.monotonic()
    dee_row.locator("button.arrived").click()
    expect(floor.locator(".messages")).to_contain_text("Dee Phone is here")
    seen_within(
        "the arrival",
        started,
        lambda: expect(names_on(board, holdem).locator("li")).to_have_text(
            ["Dee P.", "Bea M."], timeout=WITHIN_MS
        ),
    )
    panel = floor.locator(f"#calls-table-{must.number}")
    expect(panel).to_contain_text("Next: Dee Phone")
    panel.locator("button.call-next").click()
    expect(floor.locator(".messages")).to_contain_text(f"Call Dee Phone to table {must.number}")
    accessible(floor)
    snapshot(floor, "floor-waiting-lists")
    panel = floor.locator(f"#calls-table-{must.number}")
    started = time.monotonic()
    panel.locator("button.seat-called").click()
    expect(floor.locator(".messages")).to_contain_text(f"Dee Phone sits at table {must.number} seat")
    seen_within(
        "the seating, off both lists",
        started,
        lambda: expect(names_on(board, holdem).locator("li")).to_have_text(["Bea M."], timeout=WITHIN_MS),
        lambda: expect(names_on(board, omaha)).to_contain_text("No one waiting", timeout=WITHIN_MS),
        lambda: expect(board.locator(f'tr[data-table="{must.number}"] .open-seats')).to_have_text(
            "full", timeout=WITHIN_MS
        ),
    )
    accessible(board)
    snapshot(board, "board", full_page=False)

    # The record: the miss by the clock, dated at the deadline; the seating with whom it went ahead of.
    passed = WaitingListEvent.objects.get(event=ListEvent.PASSED, player__name="Bea Miss")
    assert passed.by is None
    assert passed.at == bea.called_at
    seated = WaitingListEvent.objects.get(event=ListEvent.SEATED)
    assert seated.player.name == "Dee Phone"
    assert seated.by == users["floor"]
    assert set(WaitingListEntry.objects.filter(player__name="Dee Phone").values_list("state", flat=True)) == {
        EntryState.SEATED,
        EntryState.REMOVED,
    }
    assert WaitingListEvent.objects.filter(event=ListEvent.MUST_MOVED, player=mover.player).exists()
    report = open_as("auditor")
    report.goto("/floor/lists/report/")
    expect(report.locator("#list-events")).to_contain_text("Passed (missed or declined the call)")
    accessible(report)


def test_the_board_rides_out_a_server_restart(
    board: Any, room: dict[str, Any], users: dict[str, Any]
) -> None:
    """While the server can't be reached the board says so and keeps polling; the first answer
    after it is back brings every change made meanwhile (nothing is kept between requests)."""
    from playwright.sync_api import expect

    holdem = room["holdem"]
    board.goto("/board/")
    expect(board.locator("#board-offline")).to_be_hidden()
    board.route("**/board/panel/", lambda route: route.abort("connectionrefused"))
    expect(board.locator("#board-offline")).to_be_visible(timeout=WITHIN_MS)
    lists.add_player(waiting_lists=[holdem], new_player_name="Fay Meanwhile", by=users["floor"])
    board.unroute("**/board/panel/")
    started = time.monotonic()
    seen_within(
        "the change made while it was down",
        started,
        lambda: expect(names_on(board, holdem)).to_contain_text("Fay M.", timeout=WITHIN_MS),
        lambda: expect(board.locator("#board-offline")).to_be_hidden(timeout=WITHIN_MS),
    )
