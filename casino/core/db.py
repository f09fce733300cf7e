"""Transactions of the services: one ``atomic()`` per service, and no savepoint when a service is
called from inside another one.

Every service (``tables.services``, ``handflow.services``, ``ledger.services``) runs in one
``transaction.atomic()`` so that it writes everything or nothing. Called on its own, or from a
view, the admin or a test, its block is a savepoint: a caller may catch its error and carry on
in the same transaction (the admin does). Called from inside another service it joins the outer
service's block without a savepoint (``atomic(savepoint=False)``): no service catches another
service's error and carries on, so an error rolls the outer service back as a whole, and a
settled hand saves about a dozen SAVEPOINT/RELEASE round trips (benchmarks/README.md, "Hand
API"). Code that does catch an error and go on (a unique-key race, say) keeps its own explicit
``transaction.atomic()`` around the statement that may fail.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection, transaction

_state = threading.local()  # Django's connections are per thread too


@contextmanager
def service_atomic() -> Iterator[None]:
    """``transaction.atomic()`` for a service: a savepoint only for the outermost service."""
    depth: int = getattr(_state, "depth", 0)
    nested = depth > 0 and connection.in_atomic_block
    _state.depth = depth + 1
    try:
        with transaction.atomic(savepoint=not nested):
            yield
    finally:
        _state.depth = depth


def service[**P, R](func: Callable[P, R]) -> Callable[P, R]:
    """Decorator: run ``func`` in :func:`service_atomic`."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with service_atomic():
            return func(*args, **kwargs)

    return wrapper
