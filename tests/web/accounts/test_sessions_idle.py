"""Sessions end after a time without a request: 30 minutes for the back office, 12 hours for a dealer
terminal (a user whose only role is Dealer), both set in the settings; ended sessions are in the
access log. Sessions used to last 14 days with no idle time-out."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from ledger.models import AccessEvent, AccessEventKind
from web.accounts.sessions import IDLE_LIMIT_KEY, LAST_SEEN_KEY, duration, is_terminal

pytestmark = pytest.mark.django_db

HOME = "/"


def log_in(user: AbstractBaseUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


def idle_for(client: Client, seconds: int) -> None:
    """As if the session's last request was ``seconds`` ago."""
    session = client.session
    session[LAST_SEEN_KEY] = int(time.time()) - seconds
    session.save()


def test_a_session_s_idle_limit_follows_the_role(users: dict[str, AbstractBaseUser], settings: Any) -> None:
    settings.SESSION_IDLE_MINUTES, settings.TERMINAL_IDLE_MINUTES = 30, 720
    assert log_in(users["dealer"]).session[IDLE_LIMIT_KEY] == 720 * 60
    for back_office in ("floor", "auditor", "admin", "nobody"):
        assert log_in(users[back_office]).session[IDLE_LIMIT_KEY] == 30 * 60, back_office
    assert settings.SESSION_COOKIE_AGE <= 720 * 60  # no longer 14 days


def test_a_dealer_who_also_holds_another_role_is_back_office(users: dict[str, AbstractBaseUser]) -> None:
    from django.contrib.auth.models import Group

    dealer = users["dealer"]
    assert is_terminal(dealer)
    dealer.groups.add(Group.objects.get(name="Auditor"))
    assert not is_terminal(dealer)


def test_an_idle_back_office_session_ends_at_its_next_request(users: dict[str, AbstractBaseUser]) -> None:
    client = log_in(users["floor"])
    idle_for(client, 29 * 60)
    assert client.get(HOME).status_code == 200
    idle_for(client, 31 * 60)
    response = client.get(HOME)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert "_auth_user_id" not in client.session
    ended = AccessEvent.objects.get(kind=AccessEventKind.SESSION_EXPIRED)
    assert ended.username == "floor"
    assert ended.detail["limit_seconds"] == 30 * 60
    login_page = client.get(response["Location"])
    assert "You were logged out after 30 minutes without activity." in login_page.text
    # Logged out for good: the API too.
    assert client.get("/api/tables/").status_code == 403


def test_a_terminal_stays_logged_in_through_a_shift(users: dict[str, AbstractBaseUser]) -> None:
    client = log_in(users["dealer"])
    idle_for(client, 3 * 60 * 60)
    assert client.get(HOME).status_code == 200
    idle_for(client, 12 * 60 * 60 + 61)
    assert client.get(HOME).status_code == 302
    assert AccessEvent.objects.filter(kind=AccessEventKind.SESSION_EXPIRED, username="dealer").count() == 1


def test_the_limits_are_settings(users: dict[str, AbstractBaseUser], settings: Any) -> None:
    settings.SESSION_IDLE_MINUTES = 5
    client = log_in(users["auditor"])
    idle_for(client, 6 * 60)
    assert client.get(HOME).status_code == 302


def test_the_last_request_time_is_written_at_most_once_a_minute(users: dict[str, AbstractBaseUser]) -> None:
    """A terminal's burst of requests costs no session write."""
    client = log_in(users["dealer"])
    idle_for(client, 10)
    seen = client.session[LAST_SEEN_KEY]
    client.get(HOME)
    assert client.session[LAST_SEEN_KEY] == seen
    idle_for(client, 90)
    client.get(HOME)
    assert abs(client.session[LAST_SEEN_KEY] - time.time()) < 5


def test_a_session_made_before_the_limits_gets_them(users: dict[str, AbstractBaseUser]) -> None:
    client = log_in(users["floor"])
    session = client.session
    del session[IDLE_LIMIT_KEY], session[LAST_SEEN_KEY]
    session.save()
    assert client.get(HOME).status_code == 200
    assert client.session[IDLE_LIMIT_KEY] == 30 * 60
    assert LAST_SEEN_KEY in client.session


@pytest.mark.parametrize(
    ("minutes", "text"),
    [(30, "30 minutes"), (1, "1 minute"), (60, "1 hour"), (720, "12 hours"), (90, "90 minutes")],
)
def test_durations_read_as_words(minutes: int, text: str) -> None:
    assert duration(minutes) == text
