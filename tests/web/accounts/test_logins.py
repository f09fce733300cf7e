"""Every way in is throttled and on record: failed logins lock out an address and slow a username down
(django-axes, seeing the client's address behind the trusted proxy; tests/web/accounts/test_lockouts.py
for what an attacker can't aim), the API takes no HTTP Basic
passwords, there is no password reset by e-mail, and the login page says when a session ends."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from casino.core.client_address import client_address
from ledger.models import AccessEvent, AccessEventKind

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


def attempt(client: Client, username: str, password: str, address: str = "203.0.113.7") -> Any:
    """A POST of the real login page, from ``address`` behind the loopback proxy (X-Forwarded-For)."""
    return client.post(
        LOGIN,
        {"username": username, "password": password},
        HTTP_X_FORWARDED_FOR=address,
        REMOTE_ADDR="127.0.0.1",
    )


def test_the_login_page_logs_in_and_the_login_is_recorded(users: dict[str, AbstractBaseUser]) -> None:
    client = Client()
    response = attempt(client, "floor", "pw-floor", address="198.51.100.20")
    assert response.status_code == 302
    event = AccessEvent.objects.get(kind=AccessEventKind.LOGIN)
    assert (event.username, event.user_id, event.address, event.path) == (
        "floor",
        users["floor"].pk,
        "198.51.100.20",
        LOGIN,
    )


def test_repeated_wrong_passwords_slow_the_username_down_even_with_the_right_one(
    users: dict[str, AbstractBaseUser], settings: Any
) -> None:
    """50 wrong passwords were answered as usual, each hashed. Then 5 failures locked the username out
    from every address for 15 minutes, which anyone could aim at a dealer. Now a username failed from
    several addresses (LOGIN_USER_FAILURE_LIMIT, 10) cools down: the right password is refused unhashed
    (429, the lock-out page saying how long) from every address for 30 seconds after the last failure."""
    client = Client()
    statuses = [
        attempt(client, "floor", f"wrong-{n}", address=f"203.0.113.{n}").status_code for n in range(1, 11)
    ]
    assert statuses == [200] * 10  # one failure from each address: none is locked
    refused = attempt(client, "floor", "pw-floor", address="198.51.100.99")
    assert refused.status_code == 429
    assert "Too many failed logins" in refused.text
    assert "30 seconds" in refused.text
    assert 0 < int(refused["Retry-After"]) <= 30
    assert "_auth_user_id" not in client.session
    # Another user from those addresses is not slowed by this username's failures (the addresses
    # each failed once).
    assert attempt(Client(), "auditor", "pw-auditor", address="203.0.113.1").status_code == 302
    kinds = list(AccessEvent.objects.filter(username="floor").values_list("kind", flat=True))
    assert kinds.count(AccessEventKind.LOGIN_FAILED) == 10
    assert kinds.count(AccessEventKind.LOCKED_OUT) == 1  # the refused login
    assert AccessEventKind.LOGIN not in kinds


def test_repeated_failures_from_one_address_lock_that_address_out(users: dict[str, AbstractBaseUser]) -> None:
    """Guessing a different username each time from one address: the address is locked out, for every
    username, while the same users log in from elsewhere."""
    client = Client()
    for n in range(5):
        attempt(client, f"guess-{n}", "password", address="192.0.2.66")
    assert attempt(client, "dealer", "pw-dealer", address="192.0.2.66").status_code == 429
    assert attempt(Client(), "dealer", "pw-dealer", address="192.0.2.67").status_code == 302
    locked = AccessEvent.objects.filter(kind=AccessEventKind.LOCKED_OUT).first()
    assert locked is not None
    assert locked.address == "192.0.2.66"


def test_the_admin_login_is_locked_out_the_same_way(users: dict[str, AbstractBaseUser]) -> None:
    client = Client()
    for n in range(5):
        client.post(
            "/admin/login/",
            {"username": "admin", "password": f"wrong-{n}"},
            HTTP_X_FORWARDED_FOR="203.0.113.50",
            REMOTE_ADDR="127.0.0.1",
        )
    for address, status in (("203.0.113.50", 429), ("198.51.100.1", 302)):
        response = client.post(
            "/admin/login/?next=/admin/",
            {"username": "admin", "password": "pw-admin"},
            HTTP_X_FORWARDED_FOR=address,
            REMOTE_ADDR="127.0.0.1",
        )
        assert response.status_code == status, address
    assert AccessEvent.objects.filter(username="admin", kind=AccessEventKind.LOGIN_FAILED).count() == 5
    assert AccessEvent.objects.filter(username="admin", kind=AccessEventKind.LOCKED_OUT).count() == 2


def test_the_api_takes_no_http_basic_password(users: dict[str, AbstractBaseUser]) -> None:
    """HTTP Basic at /api/ was a password check on every request, unthrottled: now it is no way in."""
    import base64

    token = base64.b64encode(b"admin:pw-admin").decode()
    response = Client().get("/api/tables/", HTTP_AUTHORIZATION=f"Basic {token}")
    assert response.status_code in (401, 403)
    assert not AccessEvent.objects.filter(kind=AccessEventKind.LOGIN).exists()


@pytest.mark.parametrize(
    "path",
    [
        "/accounts/password_reset/",
        "/accounts/password_reset/done/",
        "/accounts/reset/MQ/set-password/",
        "/accounts/reset/done/",
    ],
)
def test_there_is_no_password_reset_by_email(users: dict[str, AbstractBaseUser], path: str) -> None:
    """It was open to anyone and mailed through a default SMTP server."""
    assert Client().get(path).status_code == 404
    assert Client().post(path, {"email": "a@example.invalid"}).status_code == 404
    logged_in = Client()
    logged_in.force_login(users["admin"])
    assert logged_in.get(path).status_code == 404


def test_the_login_page_says_when_a_session_ends(db: None, settings: Any) -> None:
    settings.SESSION_IDLE_MINUTES = 30
    settings.TERMINAL_IDLE_MINUTES = 720
    page = Client().get(LOGIN)
    assert page.status_code == 200
    assert "logged out after 30 minutes without activity (12 hours on a dealer terminal)" in page.text


def test_a_password_change_on_its_page_is_recorded(users: dict[str, AbstractBaseUser]) -> None:
    client = Client()
    client.force_login(users["floor"])
    response = client.post(
        "/accounts/password_change/",
        {
            "old_password": "pw-floor",
            "new_password1": "a-new-Passw0rd-9",
            "new_password2": "a-new-Passw0rd-9",
        },
    )
    assert response.status_code == 302
    event = AccessEvent.objects.get(kind=AccessEventKind.PASSWORD_CHANGED)
    assert (event.username, event.user_id) == ("floor", users["floor"].pk)
    # A login that rehashes a password with a newer hasher changes no password: nothing recorded.
    before = AccessEvent.objects.filter(kind=AccessEventKind.PASSWORD_CHANGED).count()
    users["floor"].refresh_from_db()
    assert attempt(Client(), "floor", "a-new-Passw0rd-9").status_code == 302
    assert AccessEvent.objects.filter(kind=AccessEventKind.PASSWORD_CHANGED).count() == before


def test_logout_is_recorded(users: dict[str, AbstractBaseUser]) -> None:
    client = Client()
    assert attempt(client, "auditor", "pw-auditor").status_code == 302
    assert (
        client.post(
            "/accounts/logout/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.7"
        ).status_code
        == 302
    )
    assert list(
        AccessEvent.objects.filter(username="auditor").order_by("pk").values_list("kind", flat=True)
    ) == [
        AccessEventKind.LOGIN,
        AccessEventKind.LOGOUT,
    ]


class FakeRequest:
    def __init__(self, remote: str, forwarded: str | None = None) -> None:
        self.META = {"REMOTE_ADDR": remote}
        if forwarded is not None:
            self.META["HTTP_X_FORWARDED_FOR"] = forwarded


@pytest.mark.parametrize(
    ("remote", "forwarded", "expected"),
    [
        ("203.0.113.9", None, "203.0.113.9"),  # no proxy: the peer
        ("203.0.113.9", "10.9.9.9", "203.0.113.9"),  # an untrusted peer's header is ignored
        ("127.0.0.1", "198.51.100.4", "198.51.100.4"),  # behind the proxy: the address it saw
        ("127.0.0.1", "6.6.6.6, 198.51.100.4", "198.51.100.4"),  # a client's own header is not believed
        ("127.0.0.1", "198.51.100.4, 10.0.0.2", "10.0.0.2"),  # only the trusted proxy is skipped
        ("127.0.0.1", "nonsense", "127.0.0.1"),
        ("127.0.0.1", None, "127.0.0.1"),
        ("::1", "2001:db8::5", "2001:db8::5"),
        ("", None, None),
    ],
)
def test_the_client_address_is_read_through_the_trusted_proxy_only(
    remote: str, forwarded: str | None, expected: str | None
) -> None:
    assert client_address(FakeRequest(remote, forwarded)) == expected  # type: ignore[arg-type]


def test_a_second_trusted_proxy_is_skipped_when_configured(settings: Any) -> None:
    import ipaddress

    settings.TRUSTED_PROXY_NETWORKS = [
        ipaddress.ip_network("127.0.0.1/32"),
        ipaddress.ip_network("10.0.0.0/8"),
    ]
    assert client_address(FakeRequest("127.0.0.1", "198.51.100.4, 10.0.0.2")) == "198.51.100.4"  # type: ignore[arg-type]
