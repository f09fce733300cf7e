"""The posting core: :func:`post` and what every service posts through (``post_by_ids``): the checks,
the locks (``locks``), the replay of a used idempotency key, the chained journal row, its entries,
the accounts' balances and the chain's new head; what a posting service returns (:class:`Posted`).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, connection
from django.utils import timezone

from casino.core.db import insert_unless_conflict, service_atomic
from ledger.errors import AlreadyReversed, IdempotencyConflict, InsufficientChips, InvalidPosting, LedgerError
from ledger.hashing import transaction_content, transaction_hash
from ledger.keys import chain_keys
from ledger.models import (
    Account,
    AccountKind,
    ChainHead,
    Entry,
    JournalTransaction,
    TransactionKind,
    chain_for_table,
)
from ledger.services.accounts import hand_table_id
from ledger.services.locks import identity_of, lock_chain_head, lock_for_posting
from ledger.services.validation import (
    EntryLine,
    request_digest_of,
    user_id_of,
    validate_input_digest,
    validate_key,
    validate_lines,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from tables.models import Hand, Table


@dataclasses.dataclass(frozen=True, slots=True)
class Posted:
    """What a posting service returns: the journal ``transaction``, and whether an earlier call under
    the same idempotency key had posted it (``replayed``: this call posted nothing), so an API can
    answer 200 instead of 201."""

    transaction: JournalTransaction
    replayed: bool


def replay(idempotency_key: str, digest: str) -> Posted | None:
    """The transaction already posted under ``idempotency_key``, if any (``replayed``);
    ``IdempotencyConflict`` if it was posted for a different request."""
    existing = JournalTransaction.objects.filter(idempotency_key=idempotency_key).first()
    if existing is None:
        return None
    if existing.request_digest != digest:
        raise IdempotencyConflict(idempotency_key=idempotency_key, existing=existing)
    return Posted(existing, replayed=True)


def post(
    *,
    kind: TransactionKind | str,
    entries: Sequence[EntryLine],
    idempotency_key: str,
    table: Table | None = None,
    hand: Hand | None = None,
    user: AbstractBaseUser | None = None,
    memo: str = "",
) -> Posted:
    """Post ``entries`` as one journal transaction and return it (:class:`Posted`).

    ``entries`` are ``(account, amount)`` pairs in the order they are posted; amounts are signed
    int cents into the account, non-zero, at least two of them, summing to zero, over at least two
    accounts. With ``table`` set every account must belong to that table (the posting joins the
    table's hash chain); without it (e.g. a table change) it joins the room chain. With ``hand`` set,
    ``table`` must be the hand's table. A hand's pot account may only be used by a posting of that
    hand and must net to zero within it (the pot is cleared by the same posting that fills it).

    Raises ``InvalidPosting`` (malformed), ``InsufficientChips`` (a player's chips would go below
    zero at any point in the order of the entries), ``IdempotencyConflict``. Use ``reverse()`` to
    post a reversal.
    """
    return post_bound(
        kind=kind,
        entries=entries,
        idempotency_key=idempotency_key,
        table=table,
        hand=hand,
        user=user,
        memo=memo,
        input_digest="",
    )


def post_bound(
    *,
    kind: TransactionKind | str,
    entries: Sequence[EntryLine],
    idempotency_key: str,
    table: Table | None,
    hand: Hand | None,
    user: AbstractBaseUser | None,
    memo: str,
    input_digest: str,
) -> Posted:
    """``post()`` with the ``input_digest`` a settlement is bound to (part of its request digest)."""
    try:
        kind = TransactionKind(kind)
    except ValueError:
        raise InvalidPosting(
            f"{kind!r} is not a transaction kind ({', '.join(TransactionKind.values)})"
        ) from None
    if kind == TransactionKind.REVERSAL:
        raise InvalidPosting("post a reversal with reverse(), which links it to what it reverses")
    table_id = None if table is None else table.pk
    hand_id = None if hand is None else hand.pk
    if hand is not None:
        if table is None:
            raise InvalidPosting("a posting of a hand needs the hand's table")
        if hand_table_id(hand) != table_id:
            raise InvalidPosting(f"hand {hand_id} is not a hand of table {table_id}")
    return post_by_ids(
        kind=kind,
        entries=entries,
        idempotency_key=idempotency_key,
        table_id=table_id,
        hand_id=hand_id,
        user_id=user_id_of(user),
        memo=memo,
        reverses_id=None,
        request=None,
        input_digest=input_digest,
    )


def post_by_ids(
    *,
    kind: TransactionKind,
    entries: Sequence[EntryLine],
    idempotency_key: str,
    table_id: int | None,
    hand_id: int | None,
    user_id: int | None,
    memo: str,
    reverses_id: int | None,
    request: Mapping[str, Any] | None,
    input_digest: str = "",
) -> Posted:
    lines = validate_lines(entries)
    idempotency_key = validate_key(idempotency_key)
    if not isinstance(memo, str):
        raise InvalidPosting("memo must be a string")
    digest = request_digest_of(
        kind=kind,
        table_id=table_id,
        hand_id=hand_id,
        reverses_id=reverses_id,
        memo=memo,
        lines=lines,
        request=request,
        input_digest=validate_input_digest(input_digest),
    )
    with service_atomic():
        # The replay check comes after the locks (one query, not two): a retry waits for the
        # posting's locks like any posting, then finds its first result.
        locked = lock_for_posting(
            {account_id for account_id, _ in lines},
            table_id=table_id,
            hand_id=hand_id,
            identities={account.pk: identity_of(account) for account, _ in entries},
        )
        # A concurrent call with the same key touches the same accounts, so it has committed by the
        # time we hold their locks (READ COMMITTED sees it). A retry is found without a query of its
        # own: when the checks refuse it (its chips were spent since), or when the INSERT below
        # meets its key; either way it returns the first transaction and writes nothing.
        try:
            _check_accounts(lines, locked, table_id=table_id, hand_id=hand_id)
            _check_player_chips(lines, locked)
        except LedgerError:
            if (done := replay(idempotency_key, digest)) is not None:
                return done
            raise

        chain = chain_for_table(table_id)
        head = lock_chain_head(chain)
        sequence = head.sequence + 1
        created_at = timezone.now()
        numbered = [(line, account_id, amount) for line, (account_id, amount) in enumerate(lines, start=1)]
        key_id, key = chain_keys().current
        content = transaction_content(
            chain=chain,
            sequence=sequence,
            prev_hash=head.hash,
            kind=kind,
            table_id=table_id,
            hand_id=hand_id,
            created_by_id=user_id,
            created_at=created_at,
            memo=memo,
            idempotency_key=idempotency_key,
            request_digest=digest,
            reverses_id=reverses_id,
            key_id=key_id,
            entries=numbered,
        )
        txn = JournalTransaction(
            kind=kind,
            table_id=table_id,
            hand_id=hand_id,
            created_by_id=user_id,
            created_at=created_at,
            memo=memo,
            idempotency_key=idempotency_key,
            request_digest=digest,
            reverses_id=reverses_id,
            chain=chain,
            sequence=sequence,
            prev_hash=head.hash,
            hash=transaction_hash(content, key),
            key_id=key_id,
        )
        # Losing a race on a unique key (the idempotency key, a reversed transaction) inserts
        # nothing and leaves the transaction usable, without a savepoint.
        if not insert_unless_conflict(txn):
            if (done := replay(idempotency_key, digest)) is not None:
                return done
            if reverses_id is not None and (
                reversal := JournalTransaction.objects.filter(reverses_id=reverses_id).first()
            ):
                raise AlreadyReversed(transaction_id=reverses_id, reversal=reversal)
            raise IntegrityError(f"journal transaction {idempotency_key!r} breaks a unique constraint")
        Entry.objects.bulk_create(
            [
                Entry(transaction=txn, account_id=account_id, line=line, amount=amount)
                for line, account_id, amount in numbered
            ]
        )
        _apply_balances(lines)
        ChainHead.objects.filter(pk=head.pk).update(sequence=sequence, hash=txn.hash)
    return Posted(txn, replayed=False)


def _check_accounts(
    lines: Sequence[tuple[int, int]],
    locked: Mapping[int, Account],
    *,
    table_id: int | None,
    hand_id: int | None,
) -> None:
    pot_net: dict[int, int] = defaultdict(int)
    for account_id, amount in lines:
        account = locked[account_id]
        if table_id is not None and account.table_id != table_id:
            raise InvalidPosting(f"account {account_id} ({account}) is not an account of table {table_id}")
        if account.kind == AccountKind.HAND_POT:
            if account.hand_id != hand_id:
                raise InvalidPosting(
                    f"account {account_id} ({account}) can only be used by a posting of its hand"
                )
            pot_net[account_id] += amount
    for account_id, net in pot_net.items():
        if net != 0:
            raise InvalidPosting(
                f"the posting leaves {net} cents in {locked[account_id]}; a pot must be cleared"
            )


def _check_player_chips(lines: Sequence[tuple[int, int]], locked: Mapping[int, Account]) -> None:
    """Walk the entries in order: a player's chips must never go below zero, not even between two
    payments of one settlement (a payment is made from chips the player has at that point)."""
    running = {account_id: account.balance for account_id, account in locked.items()}
    for account_id, amount in lines:
        running[account_id] += amount
        account = locked[account_id]
        if account.kind == AccountKind.PLAYER_CHIPS and running[account_id] < 0:
            raise InsufficientChips(
                account_id=account_id,
                player_id=account.player_id,
                table_id=account.table_id,
                balance=account.balance,
                needed=account.balance - running[account_id],
            )


def _apply_balances(lines: Sequence[tuple[int, int]]) -> None:
    """Add each account's net to its cached balance (the rows are locked by this transaction).
    The database's CHECK refuses a negative player balance even if the code check were bypassed."""
    net: dict[int, int] = defaultdict(int)
    for account_id, amount in lines:
        net[account_id] += amount
    changed = sorted((account_id, cents) for account_id, cents in net.items() if cents)
    if not changed:
        return
    # One statement for every account of the posting (a settlement touches up to ten), written out:
    # building the ORM's CASE WHEN expression for it cost more CPU than the rest of the posting's
    # statements (``WITH ... AS (VALUES ...) UPDATE ... FROM`` runs on PostgreSQL and SQLite >= 3.33).
    quote = connection.ops.quote_name
    table, pk, balance = quote(Account._meta.db_table), quote("id"), quote("balance")
    values = ", ".join(["(%s, %s)"] * len(changed))
    sql = (
        f"WITH delta (account, cents) AS (VALUES {values}) "
        f"UPDATE {table} SET {balance} = {table}.{balance} + delta.cents "
        f"FROM delta WHERE {table}.{pk} = delta.account"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [value for row in changed for value in row])
        # The rows are locked and were read: can't happen. (sqlite3 reports -1 for a WITH statement.)
        if cursor.rowcount not in (-1, len(changed)):
            raise IntegrityError(f"balances of {len(changed)} accounts updated {cursor.rowcount} rows")
