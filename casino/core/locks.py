"""Row locks the ORM can't take: ``FOR KEY SHARE``.

Django's ``select_for_update()`` takes ``FOR UPDATE`` or (``no_key=True``) ``FOR NO KEY UPDATE``,
never PostgreSQL's weakest row lock, ``FOR KEY SHARE``; :func:`key_share_lock` takes it, and
:func:`key_share_statement` is the statement it sends, for a caller that sends several of them in
one round trip (the ledger's postings lock a table, a hand and players at once).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, models


def key_share_statement(model: type[models.Model], ids: Iterable[int]) -> tuple[str, list[int]] | None:
    """The statement that locks the rows of ``model`` with primary keys ``ids`` ``FOR KEY SHARE``
    (in primary-key order, each once), and its one parameter, the sorted keys; None for no ids.

    PostgreSQL's syntax, whatever the connection: the caller sends it only on PostgreSQL (as
    :func:`key_share_lock` does), alone, or joined with others by ``;`` into one ``execute()`` where
    the driver binds parameters client side.
    """
    keys = sorted(set(ids))
    if not keys:
        return None
    quote = connection.ops.quote_name
    meta = model._meta
    assert meta.pk.column is not None  # a concrete primary key
    pk = quote(meta.pk.column)
    return (
        f"SELECT {pk} FROM {quote(meta.db_table)} WHERE {pk} = ANY(%s) ORDER BY {pk} FOR KEY SHARE",
        keys,
    )


def key_share_lock(model: type[models.Model], ids: Iterable[int]) -> None:
    """PostgreSQL: lock the rows of ``model`` with primary keys ``ids`` ``FOR KEY SHARE`` until the
    transaction ends (one statement, :func:`key_share_statement`; no ids, no statement).

    Why key share: it is the lock that keeps a row from being locked ``FOR UPDATE``, deleted or
    having its key changed, and nothing more. It doesn't conflict with itself nor with ``FOR NO KEY
    UPDATE``, so the transactions that hold the same row this way don't queue on it, and neither do
    ordinary updates of it; only a writer that takes the row ``FOR UPDATE`` waits for them (and they
    for it). Two uses:

    * holding a row a decision read against the one writer that locks it ``FOR UPDATE`` before it
      changes what the row stands for (a hand's start holds its collection schedule, so a new
      schedule version either commits before the fees are planned or waits for the deal), while
      every other holder carries on;
    * taking up front the lock PostgreSQL's deferred foreign-key check takes at COMMIT on the rows
      a new row references (``FOR KEY SHARE``), so that lock comes first in the transaction's lock
      order instead of last (the ledger's postings and the floor rows they reference).

    Primary-key order: transactions locking overlapping rows take them in one order. Call it inside
    the transaction whose end releases the locks. SQLite has no row locks (it serialises whole write
    transactions): nothing to do there, and nothing is sent.
    """
    if connection.vendor != "postgresql":
        return
    statement = key_share_statement(model, ids)
    if statement is None:
        return
    sql, keys = statement
    with connection.cursor() as cursor:
        cursor.execute(sql, [keys])
