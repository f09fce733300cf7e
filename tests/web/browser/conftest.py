"""The browser tests' fixtures: Chromium (one per module), pages logged in by role, players
bought in at a table, and the dealer at a table's screen."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore

from handflow import services as hand_flow
from tables import services as floor_services
from tables.models import Player, Table
from tests.web.browser.browser import CHROMIUM, IDLE, Dealer

TABLET = (1280, 800)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread while the browser is open; the ORM
    # calls the fixtures and tests make between browser steps are still synchronous and safe.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def watch_csp(page: Any, violations: list[str]) -> None:
    """Every Content-Security-Policy violation on ``page`` (Chromium reports each in the console)
    is added to ``violations``."""

    def seen(message: Any) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"{page.url}: {message.text}")

    page.on("console", seen)


def watch_errors(page: Any, errors: list[str]) -> None:
    """Every error a page's script throws and doesn't catch (the terminal's scripts share one
    namespace: a name one of them lost would show here) is added to ``errors``."""
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))


@pytest.fixture
def open_as(chromium: Any, live_server: Any, users: dict[str, Any]) -> Iterator[Callable[..., Any]]:
    """``open_as("dealer")``: a browser page logged in as that demo role (a session cookie);
    ``open_as("dealer", viewport=(1280, 800))`` at a table tablet's size (default 1024x1366).
    Every page must work under the Content-Security-Policy, and its scripts throw nothing
    uncaught: a violation or an error fails the test."""
    contexts = []
    violations: list[str] = []
    errors: list[str] = []

    def open_page(role: str, viewport: tuple[int, int] = (1024, 1366)) -> Any:
        user = users[role]
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        width, height = viewport
        context = chromium.new_context(base_url=live_server.url, viewport={"width": width, "height": height})
        context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": session.session_key, "url": live_server.url}]
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        watch_csp(page, violations)
        watch_errors(page, errors)
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert violations == [], "Content-Security-Policy violations:\n" + "\n".join(violations)
    assert errors == [], "Uncaught script errors:\n" + "\n".join(errors)


@pytest.fixture
def seat(users: dict[str, Any], make_player: Callable[..., Player]) -> Callable[..., list[Player]]:
    """``seat(table, {1: 8_000, 2: 5_000})``: a player bought in at each seat for that many cents
    (named ``A1``, ``B2``...; ``names={1: "..."}`` names them)."""

    def buy(table: Table, stacks: dict[int, int], names: dict[int, str] | None = None) -> list[Player]:
        players = []
        for number, cents in stacks.items():
            player = make_player((names or {}).get(number) or f"{chr(64 + number)}{number}")
            hand_flow.buy_in(
                table=table, player=player, amount_cents=cents, seat_number=number, by=users["floor"],
                idempotency_key=f"screen-{table.number}-{number}",
            )  # fmt: skip
            players.append(player)
        return players

    return buy


@pytest.fixture
def dealer_at(open_as: Callable[..., Any], users: dict[str, Any]) -> Callable[..., Dealer]:
    """``dealer_at(table)``: the demo dealer clocked in at ``table``, its screen open at 1280x800
    (``dealer_at(table, (800, 1280))`` portrait)."""

    def open_screen(table: Table, viewport: tuple[int, int] = TABLET) -> Dealer:
        floor_services.clock_in(table=table, dealer=users["dealer"], by=users["dealer"])
        page = open_as("dealer", viewport=viewport)
        page.goto(f"/tables/{table.number}/")
        page.wait_for_function(IDLE)
        return Dealer(page)

    return open_screen
