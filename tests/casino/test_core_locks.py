"""The kernel's ``FOR KEY SHARE`` row lock (:func:`casino.core.locks.key_share_lock`): what it holds
off (a ``FOR UPDATE``) and what it lets through (another key share, a ``FOR NO KEY UPDATE``), on
PostgreSQL; nothing sent where there is nothing to lock."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from casino.core.locks import key_share_lock, key_share_statement


def _in_other_connection(call: Callable[[], Any]) -> Any:
    """Run ``call`` in a transaction of a thread (its own connection) that waits at most a second
    for a lock; its result or its exception."""
    result: list[Any] = [RuntimeError("did not finish")]

    def run() -> None:
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '1s'")
                result[0] = call()
        except Exception as exc:
            result[0] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()
    return result[0]


@pytest.mark.django_db
def test_no_ids_sends_nothing() -> None:
    with CaptureQueriesContext(connection) as queries:
        key_share_lock(get_user_model(), [])
    assert queries.captured_queries == []


@pytest.mark.django_db
def test_sqlite_has_no_row_locks_to_take() -> None:
    if connection.vendor == "postgresql":
        pytest.skip("SQLite's behaviour")
    user = get_user_model().objects.create(username="held")
    with CaptureQueriesContext(connection) as queries:
        key_share_lock(get_user_model(), [user.pk])
    assert queries.captured_queries == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_key_share_holds_off_for_update_only() -> None:
    model = get_user_model()
    held, other, free = (model.objects.create(username=name) for name in ("held", "other", "free"))

    def for_update(pk: int) -> int:
        return model.objects.select_for_update().get(pk=pk).pk

    def for_no_key_update(pk: int) -> int:
        return model.objects.select_for_update(no_key=True).get(pk=pk).pk

    with transaction.atomic():
        with CaptureQueriesContext(connection) as queries:
            key_share_lock(model, [other.pk, held.pk, held.pk])
        # One statement for the rows (primary-key order, each once).
        assert len(queries.captured_queries) == 1
        assert "FOR KEY SHARE" in queries.captured_queries[0]["sql"]
        for pk in (held.pk, other.pk):
            # A writer that locks the row FOR UPDATE waits for the holder (here: gives up).
            refused = _in_other_connection(lambda pk=pk: for_update(pk))
            assert isinstance(refused, DatabaseError), refused
            # Another holder doesn't wait, nor does an update that keeps the key.
            assert _in_other_connection(lambda pk=pk: key_share_lock(model, [pk])) is None
            assert _in_other_connection(lambda pk=pk: for_no_key_update(pk)) == pk
        # A row not asked for is not held.
        assert _in_other_connection(lambda: for_update(free.pk)) == free.pk
    # The transaction's end releases them.
    assert _in_other_connection(lambda: for_update(held.pk)) == held.pk


def test_the_statement_names_each_row_once_in_key_order() -> None:
    model = get_user_model()
    assert key_share_statement(model, []) is None
    statement = key_share_statement(model, [7, 3, 7])
    assert statement is not None
    sql, keys = statement
    assert keys == [3, 7]
    assert sql.count("%s") == 1
    assert connection.ops.quote_name(model._meta.db_table) in sql
    assert sql.endswith("FOR KEY SHARE")
