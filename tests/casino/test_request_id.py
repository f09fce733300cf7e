"""Request ids: taken from X-Request-ID when plausible or made, returned on the response, and on every
log record made while the request is served (and "-" outside one)."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory

from casino.request_id import (
    HEADER,
    NONE,
    RequestIdLogFilter,
    RequestIdMiddleware,
    current_request_id,
    request_id_for,
)

ROOT = Path(__file__).resolve().parents[2]
NEW_ID = re.compile(r"[0-9a-f]{32}")


class Collect(logging.Handler):
    """Keeps the records it is handed, after the request id filter."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []
        self.addFilter(RequestIdLogFilter())

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def collected() -> Iterator[Collect]:
    handler = Collect()
    logger = logging.getLogger("tests.request_id")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)


@pytest.mark.parametrize(
    "header",
    ["abc123", "0af7651916cd43dd8448eb211c80319c", "Root=1-67891233-abcdef012345678912345678", "a.b_c:d/e+f"],
)
def test_a_plausible_id_is_kept(header: str) -> None:
    assert request_id_for(header) == header


@pytest.mark.parametrize(
    "header",
    [None, "", "has space", "line\nbreak", 'quote"d', "x" * 129, "é-accent", "semi;colon", "[brackets]"],
)
def test_anything_else_gets_a_new_id(header: str | None) -> None:
    made = request_id_for(header)
    assert NEW_ID.fullmatch(made)
    assert made != request_id_for(header)  # a new one each time


def test_the_request_logs_with_its_id_and_the_response_carries_it(collected: Collect) -> None:
    def view(request: HttpRequest) -> HttpResponse:
        logging.getLogger("tests.request_id").info("inside")
        return HttpResponse("ok")

    middleware = RequestIdMiddleware(view)
    response = middleware(RequestFactory().get("/", headers={HEADER: "edge-42"}))
    assert response[HEADER] == "edge-42"
    made = middleware(RequestFactory().get("/"))[HEADER]
    assert NEW_ID.fullmatch(made)
    logging.getLogger("tests.request_id").info("outside")
    assert [(r.getMessage(), r.request_id) for r in collected.records] == [  # type: ignore[attr-defined]
        ("inside", "edge-42"),
        ("inside", made),
        ("outside", NONE),
    ]
    assert current_request_id() == NONE


def test_the_id_is_let_go_when_the_view_raises(collected: Collect) -> None:
    def view(request: HttpRequest) -> HttpResponse:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        RequestIdMiddleware(view)(RequestFactory().get("/", headers={HEADER: "failing-1"}))
    assert current_request_id() == NONE


def test_concurrent_requests_in_threads_keep_their_own_ids(collected: Collect) -> None:
    """A threaded server's requests overlap: each thread's records carry its own request's id."""
    barrier = threading.Barrier(4)

    def view(request: HttpRequest) -> HttpResponse:
        barrier.wait(timeout=10)  # all four requests are in flight at once
        logging.getLogger("tests.request_id").info("in %s", request.headers[HEADER])
        barrier.wait(timeout=10)
        return HttpResponse(current_request_id())

    middleware = RequestIdMiddleware(view)
    answers: dict[str, bytes] = {}

    def serve(n: int) -> None:
        answers[f"thread-{n}"] = middleware(
            RequestFactory().get("/", headers={HEADER: f"thread-{n}"})
        ).content

    threads = [threading.Thread(target=serve, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == {f"thread-{n}": f"thread-{n}".encode() for n in range(4)}
    assert {(r.getMessage(), r.request_id) for r in collected.records} == {  # type: ignore[attr-defined]
        (f"in thread-{n}", f"thread-{n}") for n in range(4)
    }


def test_an_id_already_on_the_record_is_kept() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
    record.request_id = "given"
    assert RequestIdLogFilter().filter(record) is True
    assert record.request_id == "given"


@pytest.mark.django_db
def test_every_response_of_the_site_carries_one() -> None:
    """The middleware is installed first: a page, a redirect to the login and a 404 all carry it."""
    client = Client()
    for path in ("/accounts/login/", "/", "/api/no-such-route/"):
        response = client.get(path, headers={HEADER: "site-check"})
        assert response[HEADER] == "site-check", path


def test_the_logging_settings_put_the_id_on_each_line() -> None:
    """settings.LOGGING: outside a request the line says ``[-]``."""
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "LOG_LEVEL"}} | {"DEBUG": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "import logging; logging.getLogger('casino.check').warning('from a command'); "
            "logging.getLogger('psycopg.pool').info('connection given by pool')",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"^\S+ \S+ WARNING casino\.check \[-\] from a command$", result.stderr, re.M), (
        result.stderr
    )
