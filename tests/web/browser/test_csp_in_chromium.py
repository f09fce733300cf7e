"""The pages work under the Content-Security-Policy in Chromium: the dealer terminal (htmx and
static/terminal.js) deals and settles a hand, the floor, report and admin pages load, and no page
has a CSP violation in the console (``open_as`` fails a test on any). The API's documentation pages
run their scripts from the site; they relax only inline styles."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from handflow import services as hand_flow
from tables import services as floor_services
from tables.choices import HandStatus
from tables.models import Hand, Player, Table
from tests.web.browser.browser import BROWSER_MARKS, IDLE
from tests.web.browser.conftest import watch_csp

pytestmark = BROWSER_MARKS


def test_the_dealer_terminal_deals_and_settles_a_hand_under_the_policy(
    open_as: Callable[..., Any],
    users: dict[str, Any],
    make_table: Callable[..., Table],
    make_player: Callable[..., Player],
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    for number in (1, 2, 3):
        hand_flow.buy_in(
            table=table, player=make_player(f"CSP{number}"), amount_cents=8_000, seat_number=number,
            by=users["floor"], idempotency_key=f"csp-{number}",
        )  # fmt: skip
    floor_services.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])
    page = open_as("dealer", viewport=(1280, 800))
    page.goto(f"/tables/{table.number}/")
    page.wait_for_function(IDLE)
    csp = page.evaluate("() => fetch(location.href).then(r => r.headers.get('content-security-policy'))")
    assert "script-src 'self'" in csp
    assert "style-src 'self'" in csp
    page.click("#deal")
    page.wait_for_function(IDLE)
    hand = Hand.objects.get(table=table)
    # The seat that shows no cards folded: the button, the last in the screen's order (the one
    # folded before had its cards, and the button, showing none, read as folded: its chips taken
    # out of the pot, which paid nobody, an entry now refused, issue #32).
    third = hand.button_seat.number
    for card in ("Ah", "Kd", "7c", "7s", "2h", "As", "Ac", "Kc", "Qc"):  # board, then two seats' cards
        page.click(f"#card-picker button[data-card='{card}']")
        page.wait_for_function(IDLE)
    page.click(f"label:has(#folded_{third})")
    page.wait_for_function(IDLE)
    page.click("#put-in-pad button[data-add='800']")
    page.wait_for_function(IDLE)
    page.wait_for_selector("#confirm:enabled")
    page.click("#confirm")
    page.wait_for_function(IDLE)
    assert page.inner_text("#hand-status") == "settled"
    hand.refresh_from_db()
    assert hand.status == HandStatus.SETTLED


def test_the_floor_report_and_admin_pages_load_under_the_policy(
    open_as: Callable[..., Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(game="holdem", stakes="limit-4-8-half", schedule="A")
    floor = open_as("floor")
    for url in ("/", f"/floor/tables/{table.number}/", "/floor/schedules/", "/floor/schedules/A/"):
        response = floor.goto(url)
        assert response is not None, url
        assert response.status == 200, url
    auditor = open_as("auditor")
    for url in (
        "/reports/",
        "/reports/collection/",
        "/reports/hands/",
        "/reports/access/",
        "/reports/changes/",
    ):
        response = auditor.goto(url)
        assert response is not None, url
        assert response.status == 200, url
    # The report pages' styles now come from casino.css: the report table still has its borders.
    border = auditor.eval_on_selector("table.report td", "td => getComputedStyle(td).borderTopStyle")
    assert border == "solid"
    admin = open_as("admin")
    for url in ("/admin/", "/admin/auth/user/", "/admin/ledger/accessevent/"):
        response = admin.goto(url)
        assert response is not None, url
        assert response.status == 200, url


def test_the_login_page_logs_in_in_the_browser(
    chromium: Any, live_server: Any, users: dict[str, Any]
) -> None:
    context = chromium.new_context(base_url=live_server.url)
    page = context.new_page()
    violations: list[str] = []
    watch_csp(page, violations)
    page.goto("/")
    assert "/accounts/login/" in page.url
    assert "without activity" in page.inner_text("#session-note")
    page.fill("#id_username", "floor")
    page.fill("#id_password", "pw-floor")
    page.click("button[type=submit]")
    page.wait_for_load_state()
    assert "/accounts/login/" not in page.url
    page.click("text=Log out")
    page.wait_for_load_state()
    context.close()
    assert violations == []


def test_the_api_documentation_runs_its_scripts_from_the_site(open_as: Callable[..., Any]) -> None:
    page = open_as("auditor")
    page.goto("/api/docs/")
    page.wait_for_selector("#swagger-ui .information-container, #swagger-ui .info", timeout=20_000)
    assert "Card room table management API" in page.inner_text("#swagger-ui")
