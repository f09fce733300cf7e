"""No input gets a server error, found by fuzzing: schemathesis generates requests from the API's
own OpenAPI schema (valid and invalid bodies, parameters, ids) for every operation, as each role,
and every answer must be below 500, with a status the schema documents for that operation and the
body it documents (schemathesis's status-code and response-schema checks; ``web/schema.py``).
Bounded (``FUZZ_EXAMPLES`` cases per operation and role) so it runs in the suite; raise it for a longer hunt:

    FUZZ_EXAMPLES=200 .venv/bin/python -m pytest tests/web/test_api_fuzz.py -p no:xdist
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

from tables.models import Hand, Player, Table

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "8"))
CONFORMANCE = [status_code_conformance, response_schema_conformance]
CSRF = "fuzzcsrf" * 4  # a CSRF secret: 32 letters and digits, sent as the cookie and the header


@pytest.fixture
def floor_with_a_hand(
    table_with_players: Callable[..., tuple[Table, list[Player]]], deal_hand: Callable[..., Hand]
) -> Hand:
    table, _players = table_with_players(3, stakes="limit-4-8")
    return deal_hand(table)


def _operations() -> list[Any]:
    raw = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))
    schema = schemathesis.openapi.from_dict(raw)
    schema.app = WSGIHandler()
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.slow
@pytest.mark.parametrize("role", ["dealer", "floor", "auditor"])
def test_no_generated_request_gets_a_server_error(
    users: dict[str, Any], floor_with_a_hand: Hand, role: str
) -> None:
    headers = session_headers(users[role])
    failures: list[str] = []
    # As Django's test client does: a request must not close the test's database connection (its
    # transaction holds the test's rows; on PostgreSQL a closed connection fails every later query).
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        fuzz_paths(headers, failures)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    assert not failures, "\n".join(sorted(set(failures)))


def session_headers(user: Any) -> dict[str, str]:
    """The headers of ``user``'s requests: a session, as the terminals and the pages have (the API
    takes no HTTP Basic passwords), and the CSRF token a page would send with it. Checks first that
    the session is accepted, and so is the CSRF token."""
    client = Client()
    client.force_login(user)
    session = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    cookies = {django_settings.SESSION_COOKIE_NAME: session, django_settings.CSRF_COOKIE_NAME: CSRF}
    headers = {
        "Cookie": "; ".join(f"{name}={value}" for name, value in cookies.items()),
        "X-CSRFToken": CSRF,
        "Idempotency-Key": "fuzz-key-0001",
    }
    probe = Client(enforce_csrf_checks=True)
    assert probe.get("/api/tables/", HTTP_COOKIE=headers["Cookie"]).status_code == 200
    posted = probe.post(
        "/api/players/",
        {},
        content_type="application/json",
        HTTP_COOKIE=headers["Cookie"],
        HTTP_X_CSRFTOKEN=CSRF,
    )
    assert "CSRF" not in posted.text, posted.text
    return headers


def fuzz_paths(headers: dict[str, str], failures: list[str], paths: tuple[str, ...] = ("/",)) -> None:
    """Every operation whose path starts with one of ``paths``, fuzzed; what went wrong into
    ``failures``."""
    for operation in _operations():
        if not operation.path.startswith(paths):
            continue

        @settings(
            max_examples=FUZZ_EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def check(case: Any) -> None:
            response = case.call(headers=headers)
            where = f"{case.method} {case.operation.path} -> {response.status_code}"
            if response.status_code >= 500:
                failures.append(where)
                return
            # The API says what it does: the status is one the schema documents for the operation,
            # and the body (an error's {code, detail} too) is the documented one.
            try:
                case.validate_response(response, checks=CONFORMANCE)
            except FailureGroup as group:  # one exception per check that failed
                failures.extend(
                    f"{where}: {type(e).__name__}: {str(e).splitlines()[0][:120]}" for e in group.exceptions
                )

        check()
