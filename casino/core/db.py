"""Transactions of the services: one ``atomic()`` per service, and no savepoint when a service is
called from inside another one; and an INSERT that loses a unique-key race without an error
(:func:`insert_unless_conflict`).

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

from django.db import connection, router, transaction
from django.db.models import Model
from django.db.models.constants import OnConflict
from django.db.models.sql import InsertQuery

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


def insert_unless_conflict(obj: Model) -> bool:
    """INSERT ``obj`` unless the row would break a unique constraint: True (``obj.pk`` set) when it
    was inserted, False when a row with the same unique values exists.

    ``INSERT ... ON CONFLICT DO NOTHING RETURNING pk`` (SQLite: ``INSERT OR IGNORE``): like a plain
    INSERT it waits for a concurrent transaction inserting the same key to commit (PostgreSQL), but
    losing the race raises nothing, so no savepoint is needed to keep the caller's transaction
    usable (a SAVEPOINT and its RELEASE are two round trips on every write of the hand's flow).
    Used by the ledger's accounts and postings and by the API's replay records.
    """
    meta = obj._meta
    fields = [f for f in meta.local_concrete_fields if f is not meta.auto_field and not f.generated]
    query = InsertQuery(type(obj), on_conflict=OnConflict.IGNORE)
    query.insert_values(fields, [obj])
    rows = query.get_compiler(using=router.db_for_write(type(obj))).execute_sql(returning_fields=[meta.pk])
    if not rows:
        return False
    obj.pk = rows[0][0]
    obj._state.adding, obj._state.db = False, router.db_for_write(type(obj))
    return True
