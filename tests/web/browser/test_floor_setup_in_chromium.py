"""The floor runs the room in a real browser (Playwright driving Debian's Chromium; skipped with the
reason without it): a floor manager sets up a new table and changes its kill, the change log shows
it in words; typing a new player's name that is on file asks "same person?", and the player is
found as it is typed (htmx, no inline script) on the players page and in the buy-in form. Each page
passes the accessibility check (labels, contrast)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger import selectors as ledger_selectors
from tables import services as floor_services
from tables.models import Player, Table
from tests.web.browser.browser import BROWSER_MARKS, IDLE, accessible, snapshot

pytestmark = BROWSER_MARKS


def test_floor_creates_a_table_and_changes_its_kill(open_as: Callable[..., Any], house: None) -> None:
    page = open_as("floor")
    page.goto("/")
    page.click("#new-table")
    accessible(page)
    page.fill("#id_number", "61")
    page.select_option("#id_game", "stud-choice")
    page.select_option("#id_stakes", "limit-4-8")
    page.select_option("#id_kill", "half")
    page.select_option("#id_collection_schedule", "A")
    page.fill("#id_seat_count", "8")
    page.fill("#id_reason", "stud choice for the evening")
    assert "the player with the button picks Seven card stud, Seven card stud hi-lo, Razz" in page.inner_text(
        "#choice-games"
    )
    snapshot(page, "floor-new-table")
    page.click("#save-table")
    assert "Table 61 is set up (Seven card stud choice, $4-$8 limit, half kill)." in page.inner_text(
        ".messages"
    )
    table = Table.objects.get(number=61)
    assert (table.game.slug, table.stakes.code, table.seat_count) == ("stud-choice", "limit-4-8-half", 8)

    page.click("#open-table")
    page.click("#table-setup")
    accessible(page)
    page.select_option("#id_kill", "full")
    page.fill("#id_reason", "the regulars asked for a full kill")
    page.click("#save-table")
    assert "$4-$8 limit, full kill, saved" in page.inner_text(".messages")
    history = page.inner_text("#table-history")
    assert "Stakes: $4-$8 limit, half kill -> $4-$8 limit, full kill" in history
    assert "the regulars asked for a full kill" in history
    table.refresh_from_db()
    assert (table.stakes.code, table.status) == ("limit-4-8-full", "open")


def test_same_person_and_find_as_you_type(
    open_as: Callable[..., Any], users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    ana = floor_services.create_player(name="Ana Ruiz", member_number="M-1041", phone="530 555 0142")
    page = open_as("floor")
    page.goto("/floor/players/")
    accessible(page)
    # Found as it is typed: the list comes from the server through htmx, no page load.
    page.click("#player-q")
    page.keyboard.type("555 01")
    page.wait_for_function(IDLE)
    page.wait_for_selector("#player-results li")
    assert page.inner_text("#player-results") == "Ana Ruiz · #M-1041 · 530 555 0142"

    # A new "ana ruiz": same person? The floor says it is someone else.
    page.fill("#id_name", "ana ruiz")
    page.click("#add-player")
    assert "Same person?" in page.inner_text("#same-person")
    assert "Ana Ruiz #M-1041" in page.inner_text("#same-person")
    accessible(page)
    snapshot(page, "floor-same-person")
    assert Player.objects.count() == 1
    page.click("#confirm-new-player")
    assert "ana ruiz added." in page.inner_text(".messages")
    assert Player.objects.count() == 2

    # At a table: the walk-in "Ana Ruiz" asks too; "yes" buys in the player on file.
    table = make_table(number=62, game="holdem", stakes="nl-100-500", schedule="A")
    page.goto(f"/floor/tables/{table.number}/")
    page.fill("#bi-name", "Ana Ruiz")
    page.fill("#bi-amount", "200")
    page.click("#buy-in-form button")
    assert "Same person?" in page.inner_text("#question")
    accessible(page)
    page.click(f"#question button[value='{ana.pk}']")
    assert "Ana Ruiz bought in for $200.00" in page.inner_text(".messages")
    assert ledger_selectors.player_chips(table=table, player=ana) == 20_000

    # The buy-in form's player list narrows as a member number is typed.
    page.click("#bi-find")
    page.keyboard.type("m-104")
    page.wait_for_function(IDLE)
    page.wait_for_function("() => document.querySelectorAll('#bi-player option').length === 2")
    assert page.eval_on_selector("#bi-player", "el => el.value") == str(ana.pk)
