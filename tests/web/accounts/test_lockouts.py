"""Lock-outs an attacker can't aim (docs/security.md, "Logins are throttled").

Failures are counted per address; an attempt refused while its address is locked (or while its
username cools down) is answered 429 unhashed and counts for nothing, against the address or the
username. A username failed from several addresses cools down for a few seconds between attempts
instead of being locked out of every terminal. Refused attempts write a bounded number of access-log
rows, with what an anonymous caller typed truncated."""

from __future__ import annotations

import datetime as dt
import random
import string
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client
from django.utils import timezone

from ledger.access_log import TYPED_USER_AGENT_LENGTH, TYPED_USERNAME_LENGTH
from ledger.models import AccessEvent, AccessEventKind

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
LOCKED = "192.0.2.66"


def attempt(username: str, password: str, address: str, user_agent: str = "pytest") -> Any:
    """A POST of the real login page from ``address`` behind the loopback proxy (X-Forwarded-For)."""
    return Client().post(
        LOGIN,
        {"username": username, "password": password},
        HTTP_X_FORWARDED_FOR=address,
        REMOTE_ADDR="127.0.0.1",
        HTTP_USER_AGENT=user_agent,
    )


def lock(address: str = LOCKED) -> None:
    """Five wrong guesses from ``address``: it is locked out."""
    statuses = [attempt(f"guess-{n}", "wrong", address).status_code for n in range(5)]
    assert statuses == [200, 200, 200, 200, 429]


@pytest.fixture
def lockme(db: None) -> None:
    for name in ("lockme1", "lockme2", "untouched"):
        get_user_model().objects.create_user(username=name, password=f"pw-{name}")


def test_attempts_from_a_locked_address_count_against_no_username(lockme: None) -> None:
    """The issue's case: from a locked address, 5 POSTs each for lockme1 and lockme2, all 429 and none
    hashed, then counted against those usernames: the right password from a fresh address got 429 for
    both. Now they count for nothing: both log in from elsewhere, as the untouched user does."""
    lock()
    for name in ("lockme1", "lockme2"):
        for n in range(5):
            assert attempt(name, f"wrong-{n}", LOCKED).status_code == 429
    assert not AccessAttempt.objects.filter(username__in=["lockme1", "lockme2"]).exists()
    for name in ("lockme1", "lockme2", "untouched"):
        assert attempt(name, f"pw-{name}", "198.51.100.5").status_code == 302, name
    # The locked address stays locked, for the right password too.
    assert attempt("untouched", "pw-untouched", LOCKED).status_code == 429


def test_a_refused_attempt_does_not_extend_the_lock(lockme: None, settings: Any) -> None:
    """The lock lasts LOGIN_LOCKOUT_MINUTES after the last counted failure, whatever is tried since."""
    lock()
    counted = AccessAttempt.objects.filter(ip_address=LOCKED)
    last = max(counted.values_list("attempt_time", flat=True))
    for _ in range(3):
        assert attempt("lockme1", "wrong", LOCKED).status_code == 429
    assert max(counted.values_list("attempt_time", flat=True)) == last
    assert sum(counted.values_list("failures_since_start", flat=True)) == 5


def test_one_address_cannot_put_a_username_in_its_cool_down(lockme: None) -> None:
    """Five wrong passwords for lockme1 from one address lock that address only: lockme1 logs in at
    another terminal straight away."""
    statuses = [attempt("lockme1", f"wrong-{n}", LOCKED).status_code for n in range(5)]
    assert statuses == [200, 200, 200, 200, 429]
    assert attempt("lockme1", "pw-lockme1", LOCKED).status_code == 429
    assert attempt("lockme1", "pw-lockme1", "198.51.100.5").status_code == 302


def test_a_username_failed_from_several_addresses_cools_down_briefly(lockme: None, settings: Any) -> None:
    """Guessing one username from many addresses: after LOGIN_USER_FAILURE_LIMIT failures it may be
    tried once per LOGIN_USER_COOLDOWN_SECONDS, from anywhere; the refused attempt is unhashed and not
    counted, and once the cool-down is over the right password logs in."""
    assert (settings.LOGIN_USER_FAILURE_LIMIT, settings.LOGIN_USER_COOLDOWN_SECONDS) == (10, 30)
    for n in range(10):
        assert attempt("lockme1", f"wrong-{n}", f"203.0.113.{n}").status_code == 200
    refused = attempt("lockme1", "pw-lockme1", "198.51.100.5")
    assert refused.status_code == 429
    assert "30 seconds" in refused.text
    assert "_auth_user_id" not in refused.client.session
    # Another user from the same address is not slowed.
    assert attempt("untouched", "pw-untouched", "198.51.100.5").status_code == 302
    # The refused attempt was not counted: moving the failures 31 seconds back ends the cool-down.
    assert (
        sum(AccessAttempt.objects.filter(username="lockme1").values_list("failures_since_start", flat=True))
        == 10
    )
    AccessAttempt.objects.filter(username="lockme1").update(
        attempt_time=timezone.now() - dt.timedelta(seconds=31)
    )
    assert attempt("lockme1", "pw-lockme1", "198.51.100.5").status_code == 302


def test_a_flood_from_a_locked_address_writes_a_bounded_access_log(lockme: None) -> None:
    """The issue's case: 200 POSTs from a locked address with random 150-character usernames and
    255-character browsers added 400 rows (+377 KB) to the append-only log. Now the refused attempts
    of one address are summed up: a row at the 1st, 10th and 100th of the lock-out's window, each
    with the count so far, and what the caller typed is truncated."""
    lock()
    before = AccessEvent.objects.count()
    rng = random.Random(33)
    for _ in range(200):
        name = "".join(rng.choices(string.ascii_letters, k=150))
        agent = "".join(rng.choices(string.ascii_letters, k=255))
        assert attempt(name, "wrong", LOCKED, user_agent=agent).status_code == 429
    rows = list(AccessEvent.objects.order_by("pk")[before:])
    assert len(rows) == 3
    assert {row.kind for row in rows} == {AccessEventKind.LOCKED_OUT}
    assert [row.detail["refused"] for row in rows] == [1, 10, 100]
    for row in rows:
        assert row.address == LOCKED
        assert len(row.username) <= TYPED_USERNAME_LENGTH < 150
        assert len(row.user_agent) <= TYPED_USER_AGENT_LENGTH < 255
    assert not AccessAttempt.objects.exclude(username__startswith="guess-").exists()


def test_a_failed_login_s_typed_fields_are_truncated(db: None) -> None:
    """A failure that is counted (an unlocked address) is a row each, with what was typed cut short."""
    attempt("x" * 150, "wrong", "198.51.100.9", user_agent="y" * 255)
    row = AccessEvent.objects.get(kind=AccessEventKind.LOGIN_FAILED)
    assert row.username == "x" * TYPED_USERNAME_LENGTH
    assert row.user_agent == "y" * TYPED_USER_AGENT_LENGTH


def test_a_logged_in_user_s_row_keeps_their_name_and_browser(users: dict[str, AbstractBaseUser]) -> None:
    response = attempt("floor", "pw-floor", "198.51.100.9", user_agent="z" * 200)
    assert response.status_code == 302
    row = AccessEvent.objects.get(kind=AccessEventKind.LOGIN)
    assert (row.username, row.user_agent) == ("floor", "z" * 200)


def test_the_lock_out_page_says_what_is_locked(lockme: None) -> None:
    lock()
    page = attempt("lockme1", "pw-lockme1", LOCKED)
    assert "this address is locked out for 15 minutes" in page.text
