"""The browser tests' fixtures: Chromium (one per module) and pages logged in by role."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore

from tests.web.browser.browser import CHROMIUM


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


@pytest.fixture
def open_as(chromium: Any, live_server: Any, users: dict[str, Any]) -> Iterator[Callable[..., Any]]:
    """``open_as("dealer")``: a browser page logged in as that demo role (a session cookie);
    ``open_as("dealer", viewport=(1280, 800))`` at a table tablet's size (default 1024x1366).
    Every page must work under the Content-Security-Policy: a violation fails the test."""
    contexts = []
    violations: list[str] = []

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
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert violations == [], "Content-Security-Policy violations:\n" + "\n".join(violations)
