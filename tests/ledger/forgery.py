"""What an attacker with direct database access does, for the tests of the keyed chain, the anchors
and the audit (tests/ledger/test_keyed_chain.py, tests/backoffice/test_books_forgery.py).

The attacker has the code (``ledger.hashing``) and the database, as a superuser: they switch the
append-only triggers off (PostgreSQL: ``session_replication_role = replica``; SQLite: drop them and
create them again afterwards), edit rows, fix the cached balances, and recompute every hash of the
chain. What they don't have is the server's chain key: they hash with a key of their own choosing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection

from ledger.hashing import transaction_content, transaction_hash
from ledger.models import ChainHead, JournalTransaction


def run_deferred_checks() -> None:
    """PostgreSQL: run the deferred sum checks now, as at a COMMIT (ALTER/SET ROLE finds none pending)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")


@contextmanager
def triggers_off() -> Iterator[None]:
    """The database's guards switched off for the block, as a superuser can, and back on after."""
    run_deferred_checks()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
            try:
                yield
            finally:
                cursor.execute("SET LOCAL session_replication_role = DEFAULT")
            return
        cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
        triggers: list[tuple[str, str]] = cursor.fetchall()
        for name, _ in triggers:
            cursor.execute(f'DROP TRIGGER "{name}"')
        try:
            yield
        finally:
            for _, sql in triggers:
                cursor.execute(sql)


def sql(statement: str, params: list[object]) -> int:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.rowcount


def move_between_players(txn: JournalTransaction, *, cents: int, taker: int, giver: int) -> None:
    """Inside a settled pot (a POT_AWARD ``txn``), move ``cents`` from player account ``giver`` to
    ``taker``: the taker's award and the giver's put-in grow by ``cents`` (and the pot's matching
    lines), so the pot still clears and every transaction still balances; both cached balances are
    fixed to match. Call inside :func:`triggers_off`."""
    lines = list(txn.entries.order_by("line").values_list("line", "account_id", "amount"))
    award = next(line for line, account, amount in lines if account == taker and amount > 0)
    put_in = next(line for line, account, amount in lines if account == giver and amount < 0)
    for line, delta in ((award, cents), (award - 1, -cents), (put_in, -cents), (put_in + 1, cents)):
        sql(
            "UPDATE ledger_entry SET amount = amount + %s WHERE transaction_id = %s AND line = %s",
            [delta, txn.pk, line],
        )
    sql("UPDATE ledger_account SET balance = balance + %s WHERE id = %s", [cents, taker])
    sql("UPDATE ledger_account SET balance = balance - %s WHERE id = %s", [cents, giver])


def rechain(chain: str, *, key: bytes | None, key_id: str | None = None) -> None:
    """Recompute every hash of ``chain`` from its (edited) rows with ``key`` (None: as format 1,
    plain sha256, key id emptied), each ``prev_hash`` linked to the new hash before it, and move the
    chain head; ``key_id`` (default: each row keeps its own) is written on every row. Call inside
    :func:`triggers_off`."""
    previous = "0" * 64
    last = (0, previous)
    for txn in JournalTransaction.objects.filter(chain=chain).order_by("sequence"):
        row_key_id = "" if key is None else (key_id if key_id is not None else txn.key_id)
        content = transaction_content(
            chain=txn.chain,
            sequence=txn.sequence,
            prev_hash=previous,
            kind=txn.kind,
            table_id=txn.table_id,
            hand_id=txn.hand_id,
            created_by_id=txn.created_by_id,
            created_at=txn.created_at,
            memo=txn.memo,
            idempotency_key=txn.idempotency_key,
            request_digest=txn.request_digest,
            reverses_id=txn.reverses_id,
            key_id=row_key_id,
            entries=txn.entries.values_list("line", "account_id", "amount"),
        )
        new_hash = transaction_hash(content, key)
        sql(
            "UPDATE ledger_journaltransaction SET prev_hash = %s, hash = %s, key_id = %s WHERE id = %s",
            [previous, new_hash, row_key_id, txn.pk],
        )
        previous = new_hash
        last = (txn.sequence, new_hash)
    sql(
        "UPDATE ledger_chainhead SET sequence = %s, hash = %s WHERE chain = %s",
        [last[0], last[1], chain],
    )
    assert ChainHead.objects.get(chain=chain).hash == previous
