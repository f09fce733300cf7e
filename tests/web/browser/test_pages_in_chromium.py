"""The pages in a real browser: Playwright driving Debian's Chromium (``/usr/bin/chromium``:
``apt-get install chromium``; ``.ci/run`` installs it) against pytest-django's live server. The
``playwright`` package comes from requirements.lock; no ``playwright install`` download is used.
Without Chromium (or the package) every test here is skipped with the reason (``pytest -rs``).

A dealer plays a hold'em hand with side pots and a Chinese poker round from the terminal screen; a
floor manager changes a schedule and the next hand uses it; an auditor can change nothing; bad
card entry shows the error (as it is typed, and from the server) and posts nothing. Each page
also passes an automated accessibility check (every control labelled; text contrast at least
4.5:1, WCAG AA). With ``SCREENSHOTS_DIR`` set, the main pages are saved there as PNG
(``docs/screenshots/`` was made that way: see docs/pages.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from handflow import services as hand_flow
from ledger.models import JournalTransaction
from ledger.verification import verify_ledger
from tables import services as floor_services
from tables.choices import HandStatus
from tables.models import CollectionSchedule, Hand, HandResult, Player, Seating, Table
from tests.web.browser.browser import BROWSER_MARKS, IDLE, accessible, chips, confirm, csrf_token, snapshot

pytestmark = BROWSER_MARKS


@pytest.fixture
def holdem(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> tuple[Table, list[Player]]:
    table = make_table(number=31, game="holdem", stakes="nl-20-100", schedule="A")
    players = [make_player(f"H{seat}") for seat in range(1, 6)]
    for seat, (player, amount) in enumerate(
        zip(players, (10_000, 2_000, 5_000, 8_000, 2_000), strict=True), 1
    ):
        hand_flow.buy_in(
            table=table,
            player=player,
            amount_cents=amount,
            seat_number=seat,
            by=users["floor"],
            idempotency_key=f"browser-{seat}",
        )
    return table, players


HOLDEM_ENTRY = {
    "#board": "Ah Kd 7c 7s 2h",
    "#cards_1": "9c 8c", "#put_in_1": "98",
    "#cards_2": "Qc Jd", "#put_in_2": "20",
    "#cards_3": "Qd Jc", "#put_in_3": "50",
    "#cards_4": "Tc 3d", "#put_in_4": "80",
    "#put_in_5": "5",
}  # fmt: skip


def clock_in(table: Table, users: dict[str, Any]) -> None:
    """The demo dealer clocks in at ``table`` (only the dealer on duty deals there)."""
    floor_services.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])


def test_dealer_plays_a_holdem_hand_with_side_pots(
    open_as: Callable[..., Any], users: dict[str, Any], holdem: tuple[Table, list[Player]]
) -> None:
    table, players = holdem
    clock_in(table, users)
    page = open_as("dealer")
    page.goto("/")
    accessible(page)
    snapshot(page, "floor-overview")
    page.click("text=Texas Hold'em")
    page.wait_for_selector("#fee-preview")
    accessible(page)
    assert page.inner_text("#total-fees") == "$2"
    page.click("#deal")
    page.wait_for_function(IDLE)
    assert page.inner_text("#hand-status") == "dealt"
    for selector, value in HOLDEM_ENTRY.items():
        if selector != "#cards_4":
            page.fill(selector, value)
    # seat 4's cards from the card picker: tap into the field, then tap the cards
    page.focus("#cards_4")
    page.click("#card-picker button[aria-label=Tc]")
    page.click("#card-picker button[aria-label='3d']")
    assert page.input_value("#cards_4") == "Tc 3d"
    assert page.get_attribute("#card-picker button[aria-label=Ah]", "aria-pressed") == "true"  # on the board
    page.check("#folded_5")
    page.wait_for_function(IDLE)
    accessible(page)
    page.click("#read-showdown")
    page.wait_for_selector("#confirm:enabled")
    payments = page.inner_text("#payments")
    assert "main pot to seat 2 (H2)\t$43" in payments  # the odd chip, first clockwise from the button
    assert "side pot 2 to seat 4 (H4)\t$60" in payments
    assert "uncalled chips back to seat 1 (H1)\t$18" in payments  # named as every seat is
    assert "Seat 3: Pair of sevens (7c 7s Ah Kd Qd)" in page.inner_text("#readings")
    assert "odd chip to seat 2 (H2): first clockwise from the button" in page.inner_text("#reading-panel")
    assert chips(table, *players) == [9_800, 2_000, 5_000, 8_000, 2_000]  # nothing posted yet
    confirm(page)
    assert chips(table, *players) == [1_800, 4_300, 13_200, 6_000, 1_500]
    # A second terminal that still shows the reading confirms too: nothing is posted twice.
    other = open_as("floor")
    other.goto(f"/tables/{table.number}/")
    count = JournalTransaction.objects.count()
    hand = Hand.objects.get(table=table)
    other.evaluate(
        """([url, token]) => { const f = document.createElement('form'); f.method = 'post'; f.action = url;
            f.innerHTML = '<input name=csrfmiddlewaretoken value=' + token + '><input name=revision value=1>';
            document.body.append(f); f.submit(); }""",
        [f"/hands/{hand.pk}/confirm/", csrf_token(other)],
    )
    other.wait_for_load_state()
    assert "already settled" in other.inner_text(".messages")
    assert JournalTransaction.objects.count() == count
    assert verify_ledger().ok


CHINESE_ENTRY = {
    "front_1": "Kc Qd 5h", "middle_1": "2c 2d 9s 7h 4c", "back_1": "8c 8d 8h 8s 3c",
    "front_2": "Jc Jd Js", "middle_2": "Ah Kd Qh Jh Ts", "back_2": "2h 3h 6h 9h Th",
    "front_3": "Ac Kh 4d", "middle_3": "3d 3s Td 6c 5d", "back_3": "Qs Qc 7c 7d 2s",
    "front_4": "6s 6d Tc", "middle_4": "5c 5s 4h Ks 7s", "back_4": "As Ad 9c 9d 4s",
}  # fmt: skip


def test_dealer_plays_a_chinese_poker_round(
    open_as: Callable[..., Any],
    users: dict[str, Any],
    make_table: Callable[..., Table],
    make_player: Callable[..., Player],
) -> None:
    table = make_table(number=32, game="chinese-poker", stakes="points-5", schedule="CP2")
    other = make_table(number=33, game="chinese-poker", stakes="points-5", schedule="CP2")
    players = [make_player(n) for n in "ABCD"]
    floor = open_as("floor")
    floor.goto(f"/floor/tables/{table.number}/")
    accessible(floor)
    for seat, player in enumerate(players, 1):
        floor.select_option("#bi-player", str(player.pk))
        floor.select_option("#bi-seat", str(seat))
        floor.fill("#bi-amount", "100")
        floor.click("#buy-in-form button")
        assert "bought in for $100.00" in floor.inner_text(".messages")
    snapshot(floor, "floor-manage-table")
    assert chips(table, *players) == [10_000] * 4

    clock_in(table, users)
    page = open_as("dealer")
    page.goto(f"/tables/{table.number}/")
    assert page.inner_text("#total-fees") == "$5"  # option 2: the button $2, three others $1
    page.click("#deal")
    page.wait_for_function(IDLE)
    for name, value in CHINESE_ENTRY.items():
        page.fill(f"#{name}", value)
    page.wait_for_function(IDLE)
    accessible(page)
    page.click("#read-showdown")
    page.wait_for_selector("#confirm:enabled")
    assert "Seat 4 (D): fouled" in page.inner_text("#readings")
    payments = page.inner_text("#payments")
    assert "seat 4 (D) pays seat 1 (A)" in payments
    assert "$35" in payments
    confirm(page)
    assert chips(table, *players) == [14_800, 15_900, 6_900, 1_900]
    # After the round the floor moves A to the other table: A's chips go along.
    seating = Seating.objects.get(table=table, player=players[0], left_at=None)
    floor.goto(f"/floor/tables/{table.number}/")
    floor.select_option(f"#to_table_{seating.pk}", str(other.number))
    floor.fill(f"#to_table_seat_{seating.pk}", "2")
    floor.click(f"#to_table_seat_{seating.pk} ~ button")
    assert "A moved to table 33 seat 2 with their chips ($148.00 there now)." in floor.inner_text(".messages")
    assert chips(table, players[0]) == [0]
    assert chips(other, players[0]) == [14_800]
    assert verify_ledger().ok


def test_floor_manager_changes_a_schedule_and_the_next_hand_uses_it(
    open_as: Callable[..., Any], users: dict[str, Any], holdem: tuple[Table, list[Player]]
) -> None:
    table, _ = holdem
    floor = open_as("floor")
    floor.goto("/floor/schedules/A/")
    accessible(floor)
    latest = CollectionSchedule.objects.get(code="A").versions.order_by("-number").first()
    assert latest is not None
    rates = list(latest.rates.order_by("pk"))
    index = next(
        i for i, r in enumerate(rates) if r.structure == "nl_pl" and r.players_min <= 5 <= r.players_max
    )
    # A fee is whole chips of the tables on the schedule ($1 here): $3.50 is refused.
    floor.fill(f"#id_fee_{index}", "3.50")
    floor.fill("#id_reason", "rate review, notice posted")
    floor.click("#preview-version")
    assert "whole number" in floor.inner_text("body")
    floor.fill(f"#id_fee_{index}", "4")
    floor.fill("#id_reason", "rate review, notice posted")
    floor.click("#preview-version")  # the preview: which tables and bands change, old and new fee
    snapshot(floor, "schedule-edit")
    floor.click("#save-version")
    assert "saved" in floor.inner_text(".messages")
    assert "$4 from the button" in floor.inner_text("#notice")

    clock_in(table, users)
    page = open_as("dealer")
    page.goto(f"/tables/{table.number}/")
    assert page.inner_text("#total-fees") == "$4"
    page.click("#deal")
    page.wait_for_function(IDLE)
    hand = Hand.objects.get(table=table)
    assert hand.players.get(position=1).fee_cents == 400


def test_auditor_cannot_change_anything(
    open_as: Callable[..., Any], holdem: tuple[Table, list[Player]]
) -> None:
    table, _ = holdem
    versions = CollectionSchedule.objects.get(code="A").versions.count()
    page = open_as("auditor")
    page.goto(f"/tables/{table.number}/")
    assert page.locator("#deal").count() == 0
    assert page.locator("#clock-in").count() == 0
    assert page.locator("form[action*='showdown']").count() == 0
    accessible(page)
    assert page.goto(f"/tables/{table.number}/start/").status == 403
    assert page.goto(f"/floor/tables/{table.number}/").status == 403
    page.goto("/floor/schedules/A/")
    assert page.locator("#revise-form").count() == 0
    # A hand-made POST (the CSRF token from a page the auditor may see) is refused too.
    page.goto("/reports/")
    token = csrf_token(page) if page.locator("input[name=csrfmiddlewaretoken]").count() else ""
    status = page.evaluate(
        """async ([url, token]) => (await fetch(url, {method: 'POST', headers: {'X-CSRFToken': token},
            body: new URLSearchParams({reason: 'x', fee_0: '9'})})).status""",
        ["/floor/schedules/A/", token],
    )
    assert status == 403
    assert Hand.objects.filter(table=table).count() == 0
    assert CollectionSchedule.objects.get(code="A").versions.count() == versions


def test_bad_card_entry_shows_the_error_and_posts_nothing(
    open_as: Callable[..., Any], users: dict[str, Any], holdem: tuple[Table, list[Player]]
) -> None:
    table, _ = holdem
    clock_in(table, users)
    page = open_as("dealer")
    page.goto(f"/tables/{table.number}/")
    page.click("#deal")
    page.wait_for_function(IDLE)
    # As it is typed: an unknown card, a card already on the board, a wrong count. (An entry
    # that is complete and shows no mistake is read at once: this one never is.)
    page.fill("#cards_2", "Qc Xd")
    for selector, value in HOLDEM_ENTRY.items():
        if selector != "#cards_2":
            page.fill(selector, value)
    page.check("#folded_5")
    page.wait_for_function(IDLE)
    assert "unknown card Xd" in page.inner_text("#cards_2-error")
    page.fill("#cards_2", "Ah Jd")
    assert "Ah is already in the board" in page.inner_text("#cards_2-error")
    page.fill("#cards_2", "Qc Jd 4s")
    assert "needs 2 cards, got 3" in page.inner_text("#cards_2-error")
    assert page.get_attribute("#cards_2", "aria-invalid") == "true"
    # Sent anyway: the server refuses it, the entry stays as typed, and nothing is read or posted.
    count = JournalTransaction.objects.count()
    page.fill("#cards_2", "Qc Xd")
    page.click("#read-showdown")
    page.wait_for_function(IDLE)
    assert "unknown card" in page.inner_text("#refusal")
    assert page.input_value("#cards_2") == "Qc Xd"
    assert page.input_value("#board") == "Ah Kd 7c 7s 2h"
    assert page.get_attribute("#cards_2", "aria-invalid") == "true"
    hand = Hand.objects.get(table=table)
    assert hand.status == HandStatus.DEALT
    assert not HandResult.objects.filter(hand=hand).exists()
    assert JournalTransaction.objects.count() == count


def test_the_demo_dealer_logs_in_and_plays_a_hand(chromium: Any, live_server: Any, house: None) -> None:
    """``make run``'s path: the demo floor, the printed password, the login page, a hand."""
    import io
    import re

    from django.core.management import call_command

    out = io.StringIO()
    call_command("load_demo_floor", "--demo", stdout=out)  # the tests run with DEBUG off
    password = re.search(r"Created user dealer \(Dealer\) with password: (\S+)", out.getvalue())
    assert password is not None
    context = chromium.new_context(base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto("/")
    assert "/accounts/login/" in page.url  # everything needs a login
    page.fill("#id_username", "dealer")
    page.fill("#id_password", password.group(1))
    page.click("button[type=submit], input[type=submit]")
    page.click("text=Texas Hold'em >> nth=0")  # table 1: $4-$8 limit, three demo players
    if page.locator("#clock-in").count():
        page.click("#clock-in")
        page.wait_for_function(IDLE)
    page.click("#deal")
    page.wait_for_function(IDLE)
    hand = Hand.objects.get(table__number=1)
    seats = list(hand.players.order_by("position").values_list("seat__number", flat=True))
    page.fill("#board", "Ah Kd 7c 7s 2h")
    page.fill(f"#cards_{seats[0]}", "As Ac")
    page.fill(f"#put_in_{seats[0]}", "8")
    page.fill(f"#cards_{seats[1]}", "Kc Qc")
    page.fill(f"#put_in_{seats[1]}", "8")
    page.fill(f"#put_in_{seats[2]}", "4")
    page.check(f"#folded_{seats[2]}")
    page.wait_for_function(IDLE)
    page.click("#read-showdown")
    page.wait_for_selector("#confirm:enabled")
    assert f"main pot to seat {seats[0]}" in page.inner_text("#payments")
    confirm(page)
    assert verify_ledger().ok
    context.close()
