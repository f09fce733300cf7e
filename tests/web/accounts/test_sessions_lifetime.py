"""A session ends a fixed time after its login however active it is (docs/security.md, "Sessions"):
a dealer terminal's after a shift (TERMINAL_SESSION_MAX_HOURS, 12), everyone else's sooner
(SESSION_MAX_HOURS, 8). A session kept active used to never end."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from ledger.models import AccessEvent, AccessEventKind
from web.accounts.sessions import LAST_SEEN_KEY, LOGGED_IN_AT_KEY, MAX_AGE_KEY, max_age_seconds

pytestmark = pytest.mark.django_db

HOME = "/"


def log_in(user: AbstractBaseUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


def logged_in_ago(client: Client, seconds: int) -> None:
    """As if the login was ``seconds`` ago, and the session was used a moment ago (never idle)."""
    session = client.session
    session[LOGGED_IN_AT_KEY] = int(time.time()) - seconds
    session[LAST_SEEN_KEY] = int(time.time()) - 5
    session.save()


def test_the_defaults(settings: Any) -> None:
    assert (settings.SESSION_MAX_HOURS, settings.TERMINAL_SESSION_MAX_HOURS) == (8, 12)
    assert settings.SESSION_COOKIE_AGE >= 12 * 60 * 60


def test_a_session_s_lifetime_follows_the_role(users: dict[str, AbstractBaseUser]) -> None:
    assert log_in(users["dealer"]).session[MAX_AGE_KEY] == 12 * 60 * 60
    for back_office in ("floor", "auditor", "admin", "nobody"):
        assert log_in(users[back_office]).session[MAX_AGE_KEY] == 8 * 60 * 60, back_office
        assert max_age_seconds(users[back_office]) == 8 * 60 * 60


@pytest.mark.parametrize(
    ("role", "hours"), [("dealer", 12), ("floor", 8), ("auditor", 8), ("admin", 8), ("nobody", 8)]
)
def test_an_active_session_ends_after_its_lifetime(
    users: dict[str, AbstractBaseUser], role: str, hours: int
) -> None:
    client = log_in(users[role])
    logged_in_ago(client, hours * 60 * 60 - 60)
    assert client.get(HOME).status_code in (200, 302, 403)
    assert "_auth_user_id" in client.session, "still logged in a minute before the end"
    logged_in_ago(client, hours * 60 * 60 + 1)
    response = client.get(HOME)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert "_auth_user_id" not in client.session
    ended = AccessEvent.objects.get(kind=AccessEventKind.SESSION_EXPIRED, username=role)
    assert ended.detail["max_seconds"] == hours * 60 * 60
    login_page = client.get(response["Location"])
    assert f"You were logged out: a session lasts at most {hours} hours." in login_page.text
    assert client.get("/api/tables/").status_code == 403


def test_the_lifetimes_are_settings(users: dict[str, AbstractBaseUser], settings: Any) -> None:
    settings.SESSION_MAX_HOURS = 1
    client = log_in(users["auditor"])
    logged_in_ago(client, 61 * 60)
    assert client.get(HOME).status_code == 302


def test_a_session_made_before_the_lifetime_gets_one(users: dict[str, AbstractBaseUser]) -> None:
    """A session from before this change starts its lifetime at its next request, not ended at once."""
    client = log_in(users["floor"])
    session = client.session
    del session[LOGGED_IN_AT_KEY], session[MAX_AGE_KEY]
    session.save()
    assert client.get(HOME).status_code == 200
    assert client.session[MAX_AGE_KEY] == 8 * 60 * 60
    assert abs(client.session[LOGGED_IN_AT_KEY] - time.time()) < 5


def test_the_login_page_says_how_long_a_session_lasts(db: None, settings: Any) -> None:
    settings.SESSION_MAX_HOURS, settings.TERMINAL_SESSION_MAX_HOURS = 8, 12
    page = Client().get("/accounts/login/")
    assert (
        "A session ends 8 hours after logging in (12 hours on a dealer terminal), however active."
        in page.text
    )
