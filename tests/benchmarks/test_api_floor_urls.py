"""The hand API benchmark's floor endpoint (benchmarks/api_floor_urls.py) must cost what a real
terminal request costs before its work: the same login, CSRF and permission answers as
"start hand", and no rows touched. If it checked less, the floor it measures would be too low."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tables.roles import AUDITOR, DEALER, sync_roles

pytestmark = [pytest.mark.django_db, pytest.mark.urls("benchmarks.api_floor_urls")]

NOOP = "/bench/noop/"
START = "/api/terminal/tables/1/hands/"  # no table 1: past the permission check it is a 404


@pytest.fixture
def login(db: None) -> Callable[[str | None], Client]:
    """``login(role)``: a client with a real session and CSRF checks on (None: anonymous)."""
    groups = sync_roles()

    def make(role: str | None) -> Client:
        client = Client(enforce_csrf_checks=True)
        if role is not None:
            user: AbstractBaseUser = get_user_model().objects.create_user(username=role, password="pw")
            user.groups.add(groups[role])  # type: ignore[attr-defined]
            client.force_login(user)
        return client

    return make


def _post(client: Client, path: str, *, csrf: bool = True) -> int:
    headers = {"Idempotency-Key": "floor-test-key-1"}
    if csrf:
        client.cookies["csrftoken"] = "x" * 32
        headers["X-CSRFToken"] = "x" * 32
    body = {"table": 1} if path == NOOP else {}
    return client.post(path, body, content_type="application/json", headers=headers).status_code


@pytest.mark.parametrize(
    ("role", "csrf", "expected"),
    [
        (None, True, 403),  # anonymous
        (AUDITOR, True, 403),  # no tables.run_hand
        (DEALER, False, 403),  # CSRF token missing
    ],
)
def test_refused_like_start_hand(
    login: Callable[[str | None], Client], role: str | None, csrf: bool, expected: int
) -> None:
    client = login(role)
    assert _post(client, NOOP, csrf=csrf) == expected
    assert _post(client, START, csrf=csrf) == expected


def test_dealer_passes_every_check_and_touches_no_row(login: Callable[[str | None], Client]) -> None:
    client = login(DEALER)
    assert _post(client, START) == 404  # start hand got past the checks (there is no table 1)
    with CaptureQueriesContext(connection) as queries:
        assert _post(client, NOOP) == 200
    statements = [q["sql"].split()[0].upper() for q in queries.captured_queries]
    # The session, the user and the permissions are read; nothing is written.
    assert statements
    assert set(statements) == {"SELECT"}
    assert any("django_session" in q["sql"] for q in queries.captured_queries)
