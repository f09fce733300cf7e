"""Functions run in threads at once, each thread on its own database connection: the races production
has (two terminals, two requests). A plain module the tests import; its one runner is :func:`race`.

The threads' connections see only committed rows, so a test that races is ``transaction=True``, and
on PostgreSQL (``@pytest.mark.postgres``): SQLite serialises its writers, nothing races there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection, connections, transaction

JOIN_TIMEOUT = 120  # seconds a thread may take; longer is a hang (a deadlock) and fails the test


def race(*calls: Callable[[], Any]) -> list[Any]:
    """Run each of ``calls`` in a thread of its own, all released at the same instant. Each thread
    connects to the database first (so they race in the calls, not in connecting) and closes its
    connections after. Returns, in the order of ``calls``, what each returned or the exception it
    raised. Fails (AssertionError) if a thread is still running after ``JOIN_TIMEOUT`` seconds."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[Any] = [RuntimeError("did not finish")] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            connection.ensure_connection()
            barrier.wait(timeout=30)
            outcomes[index] = call()
        except Exception as exc:
            outcomes[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=JOIN_TIMEOUT)
        assert not thread.is_alive(), "a thread hung (deadlock?)"
    return outcomes


def race_threads(work: Callable[[int], Any], threads: int) -> list[Any]:
    """:func:`race` of ``work(0)``, ``work(1)``, ... ``work(threads - 1)``."""
    return race(*(lambda i=i: work(i) for i in range(threads)))


def returned(outcomes: list[Any]) -> list[Any]:
    """What the calls of a :func:`race` returned (those that raised left out)."""
    return [outcome for outcome in outcomes if not isinstance(outcome, Exception)]


def raised(outcomes: list[Any]) -> list[Exception]:
    """The exceptions the calls of a :func:`race` raised."""
    return [outcome for outcome in outcomes if isinstance(outcome, Exception)]


def in_other_connection(call: Callable[[], Any]) -> Any:
    """``call`` in a transaction on another connection (a thread of its own), as another request
    would run it while the test holds its own transaction's locks: what it returned or the
    exception it raised (:func:`race` of one)."""

    def atomically() -> Any:
        with transaction.atomic():
            return call()

    (outcome,) = race(atomically)
    return outcome
