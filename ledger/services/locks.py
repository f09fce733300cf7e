"""The locks a posting takes, in the one order every posting uses (deadlock-free by construction):

1. the floor rows it references (tables, then the hand, then players, each by primary key),
   ``FOR KEY SHARE`` on PostgreSQL (see ``hold_floor_rows``; the kernel's
   :func:`casino.core.locks.key_share_statement` each);
2. for a reversal, the transaction it reverses (``FOR UPDATE``, in ``reversal``);
3. the accounts it touches, by primary key (``FOR UPDATE``);
4. the head of its hash chain (one chain per table).

No row is locked by every posting in the room. A caller that locks floor rows itself (a table,
then a hand) does so before calling a service, which is the same order; preferably with
``select_for_update(no_key=True)``, which postings at that table don't have to wait for.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import connection
from django.db.models import Model

from casino.core.locks import key_share_statement
from ledger.errors import InvalidPosting
from ledger.models import Account, ChainHead

Identity = tuple[int | None, int | None, int | None]
"""An account's floor rows: (table id, hand id, player id). They never change (a trigger refuses it)."""


def identity_of(account: Account) -> Identity:
    """The floor rows ``account`` references: ``(table id, hand id, player id)``."""
    return (account.table_id, account.hand_id, account.player_id)


def lock_for_posting(
    account_ids: set[int],
    *,
    table_id: int | None,
    hand_id: int | None,
    identities: Mapping[int, Identity] | None = None,
) -> dict[int, Account]:
    """Take a posting's locks in the one order every posting uses: the floor rows it references
    (``hold_floor_rows``), then its accounts by primary key. The chain head comes last (``post_by_ids``).

    ``identities`` are the floor rows of the accounts as the caller loaded them (saves reading them
    again); an account whose locked row says otherwise (an object built by hand) has its floor rows
    locked after all, so no reference is left to the commit's foreign-key check."""
    held = hold_floor_rows(account_ids, table_id=table_id, hand_id=hand_id, identities=identities)
    locked = _lock_accounts(account_ids)
    if held is not None:
        missed = [identity_of(a) for a in locked.values() if not _references_held(identity_of(a), held)]
        if missed:
            hold_floor_rows(set(), table_id=None, hand_id=None, identities=dict(enumerate(missed)))
    return locked


def _references_held(identity: Identity, held: Mapping[str, set[int]]) -> bool:
    return all(
        value is None or value in held[field]
        for field, value in zip(("table", "hand", "player"), identity, strict=True)
    )


def hold_floor_rows(
    account_ids: set[int],
    *,
    table_id: int | None,
    hand_id: int | None,
    identities: Mapping[int, Identity] | None = None,
) -> dict[str, set[int]] | None:
    """PostgreSQL: lock the tables, hand and players a posting references FOR KEY SHARE, up front.

    Why: the ledger's foreign keys are checked at COMMIT (Django makes them DEFERRABLE), and that
    check takes FOR KEY SHARE on the referenced floor rows. A floor service that holds its table
    FOR UPDATE and then posts would otherwise deadlock with a posting that already holds the
    accounts and reaches its commit: the floor waits for the accounts, the posting for the table.
    Taking these locks first puts the floor rows before the accounts in every transaction's order.
    FOR KEY SHARE doesn't conflict with itself or with FOR NO KEY UPDATE, so postings don't queue
    on each other here. (SQLite serialises whole write transactions; nothing to do there.)
    """
    if connection.vendor != "postgresql":
        return None
    referenced: dict[str, set[int]] = {"table": set(), "hand": set(), "player": set()}
    if table_id is not None:
        referenced["table"].add(table_id)
    if hand_id is not None:
        referenced["hand"].add(hand_id)
    if identities is None or account_ids - identities.keys():
        identities = {
            pk: (t, h, p)
            for pk, t, h, p in Account.objects.filter(pk__in=account_ids).values_list(
                "pk", "table_id", "hand_id", "player_id"
            )
        }
    for identity in identities.values():
        for field, value in zip(("table", "hand", "player"), identity, strict=True):
            if value is not None:
                referenced[field].add(value)
    # The kernel builds each statement; they go in one round trip when the driver allows it.
    statements = [
        statement
        for field in ("table", "hand", "player")  # the floor's own order: table, then hand
        if (statement := key_share_statement(_floor_model(field), referenced[field])) is not None
    ]
    with connection.cursor() as cursor:
        if len(statements) > 1 and _client_side_binding():
            # One round trip: the statements still run one after the other, in this order.
            cursor.execute(";\n".join(sql for sql, _ in statements), [keys for _, keys in statements])
        else:
            for sql, keys in statements:
                cursor.execute(sql, [keys])
    return referenced


def _floor_model(field: str) -> type[Model]:
    """The floor's model an account's ``field`` (table, hand, player) refers to."""
    model = Account._meta.get_field(field).related_model
    assert isinstance(model, type)  # table, hand and player are foreign keys to concrete models
    return model


def _client_side_binding() -> bool:
    """Django's psycopg 3 cursors bind parameters client side unless the database's OPTIONS ask for
    ``server_side_binding``; only then may one execute() carry several statements."""
    return not connection.settings_dict.get("OPTIONS", {}).get("server_side_binding", False)


def _lock_accounts(account_ids: set[int]) -> dict[int, Account]:
    """Lock the accounts in primary-key order (PostgreSQL locks rows in the ORDER BY order), which
    is the same order for every posting: no two postings can wait on each other in a cycle."""
    rows = list(Account.objects.select_for_update().filter(pk__in=account_ids).order_by("pk"))
    found = {row.pk: row for row in rows}
    if missing := account_ids - found.keys():
        raise InvalidPosting(f"unknown ledger accounts: {sorted(missing)}")
    return found


def lock_chain_head(chain: str) -> ChainHead:
    head = ChainHead.objects.select_for_update().filter(chain=chain).first()
    if head is None:
        ChainHead.objects.get_or_create(chain=chain)
        head = ChainHead.objects.select_for_update().get(chain=chain)
    return head
