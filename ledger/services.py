"""The ledger's write side: every posting goes through here (HackSoft-style services).

Contract shared by every service below:

* Keyword-only arguments; amounts are ``int`` cents (``bool``, ``float``, ``Decimal`` refused).
* One ``transaction.atomic()`` each: a service either posts everything or nothing. Any ``LedgerError``
  (see ``ledger.errors``) means nothing was written. Called inside a caller's ``atomic()`` it joins
  that transaction (as a savepoint), so a flow can post fees and update its own rows at once.
* Exactly once: a call with an ``idempotency_key`` already used for the same request returns the
  first transaction (``was_replayed=True`` on it) and posts nothing; the same key with a different
  request raises ``IdempotencyConflict``. This holds under concurrency.
* Money integrity only: table rules (buy-in ranges, who may rebuy, when) belong to the callers.

Locking order (deadlock-free by construction), the same in every posting:

1. the floor rows it references (tables, then the hand, then players, each by primary key),
   ``FOR KEY SHARE`` on PostgreSQL (see ``_hold_floor_rows``);
2. for a reversal, the transaction it reverses (``FOR UPDATE``);
3. the accounts it touches, by primary key (``FOR UPDATE``);
4. the head of its hash chain (one chain per table).

No row is locked by every posting in the room. A caller that locks floor rows itself (a table,
then a hand) does so before calling a service, which is the same order; preferably with
``select_for_update(no_key=True)``, which postings at that table don't have to wait for.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, connection, router
from django.db.models import Model
from django.db.models.constants import OnConflict
from django.db.models.sql import InsertQuery
from django.utils import timezone

from casino.core.db import service_atomic
from ledger.errors import (
    AlreadyReversed,
    IdempotencyConflict,
    InsufficientChips,
    InvalidPosting,
    LedgerError,
    NotReversible,
)
from ledger.hashing import posting_digest, transaction_content, transaction_hash
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
from ledger.shifts import Shift
from ledger.verification import LedgerReport, verify_ledger

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from tables.models import Hand, Player, Table

__all__ = [
    "MAX_AMOUNT",
    "MAX_ENTRIES",
    "EntryLine",
    "LedgerReport",
    "award_pot",
    "buy_in",
    "cage_account",
    "cash_out",
    "collect_fees",
    "house_account",
    "player_account",
    "post",
    "post_payments",
    "pot_account",
    "rebuy",
    "reverse",
    "transfer_chips",
    "verify_ledger",
]

MAX_AMOUNT = 10**15
"""Largest amount of one entry, in cents (10 trillion dollars): far below BIGINT's range, so no sum
of a posting's entries can overflow the database."""

MAX_ENTRIES = 1000
"""Most entries in one posting (a ten-handed settlement needs well under 100)."""

MAX_KEY_LENGTH = 200

EntryLine = tuple[Account, int]
"""One leg of a posting: (account, signed cents into the account)."""


# --- Accounts -------------------------------------------------------------------------------------


def insert_unless_conflict(obj: Model) -> bool:
    """INSERT ``obj`` unless the row would break a unique constraint: True (``obj.pk`` set) when it
    was inserted, False when a row with the same unique values exists.

    ``INSERT ... ON CONFLICT DO NOTHING RETURNING pk`` (SQLite: ``INSERT OR IGNORE``): like a plain
    INSERT it waits for a concurrent transaction inserting the same key to commit (PostgreSQL), but
    losing the race raises nothing, so no savepoint is needed to keep the caller's transaction
    usable (a SAVEPOINT and its RELEASE are two round trips on every write of the hand's flow).
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


def _account(*, likely_new: bool = False, **identity: Any) -> Account:
    # Race-safe: each identity has a unique (partial) index; a concurrent creator of the same
    # account makes the INSERT wait for its commit and do nothing, and the account is read again.
    # ``likely_new`` (a hand's pot: made by the one settlement that uses it): INSERT first.
    account: Account | None
    if likely_new:
        account = Account(**identity)
        if insert_unless_conflict(account):
            return account
    account = Account.objects.filter(**identity).first()
    if account is None:
        account = Account(**identity)
        if not insert_unless_conflict(account):
            account = Account.objects.filter(**identity).first()
            if account is None:  # SQLite's INSERT OR IGNORE also skips a CHECK failure
                raise IntegrityError(f"no ledger account can be created for {identity}")
    return account


def player_account(*, table: Table, player: Player) -> Account:
    """The account of ``player``'s chips at ``table`` (created on first use)."""
    return _account(kind=AccountKind.PLAYER_CHIPS, table_id=table.pk, player_id=player.pk)


def player_accounts(*, table: Table, players: Sequence[Player]) -> dict[int, Account]:
    """The chip accounts of ``players`` at ``table`` by player id: the existing ones in one query,
    the missing ones created (as :func:`player_account` does)."""
    wanted = {p.pk for p in players}
    found = {
        a.player_id: a
        for a in Account.objects.filter(
            kind=AccountKind.PLAYER_CHIPS, table_id=table.pk, player_id__in=wanted
        )
        if a.player_id is not None  # always, by the filter: this tells mypy
    }
    for player in players:
        if player.pk not in found:
            found[player.pk] = player_account(table=table, player=player)
    return found


def cage_account(*, table: Table) -> Account:
    """The cage's account with ``table``: chips the cage sold to (negative balance) or bought back
    from that table. The room's cage position is the sum over tables; one row per table keeps
    buy-ins at different tables from queueing on a single cage row."""
    return _account(kind=AccountKind.CAGE, table_id=table.pk)


def house_account(*, table: Table, shift: Shift) -> Account:
    """The house's collection account of ``table`` for ``shift``."""
    if not isinstance(shift, Shift):
        raise InvalidPosting(f"shift must be a ledger.shifts.Shift, not {type(shift).__name__}")
    return _account(
        kind=AccountKind.HOUSE_COLLECTION,
        table_id=table.pk,
        shift_date=shift.business_date,
        shift_code=shift.code.value,
    )


def pot_account(*, hand: Hand) -> Account:
    """The clearing account of ``hand``'s pot (at the hand's table)."""
    return _account(
        kind=AccountKind.HAND_POT, table_id=_hand_table_id(hand), hand_id=hand.pk, likely_new=True
    )


def _hand_table_id(hand: Hand) -> int:
    table_id = getattr(hand, "table_id", None)
    if table_id is None:
        raise InvalidPosting(f"hand {hand.pk} has no table")
    return int(table_id)


# --- Validation -----------------------------------------------------------------------------------


def _cents(value: object, *, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidPosting(
            f"{what} must be an integer number of cents, not {type(value).__name__} {value!r}"
        )
    if abs(value) > MAX_AMOUNT:
        raise InvalidPosting(f"{what} {value} is beyond the largest amount the ledger accepts ({MAX_AMOUNT})")
    return int(value)


def _positive_cents(value: object, *, what: str) -> int:
    amount = _cents(value, what=what)
    if amount <= 0:
        raise InvalidPosting(f"{what} must be positive, not {amount}")
    return amount


def _not_negative_cents(value: object, *, what: str) -> int:
    amount = _cents(value, what=what)
    if amount < 0:
        raise InvalidPosting(f"{what} must not be negative, not {amount}")
    return amount


def _validate_key(idempotency_key: object) -> str:
    if not isinstance(idempotency_key, str) or not idempotency_key.strip():
        raise InvalidPosting("an idempotency key (a non-empty string) is required")
    if len(idempotency_key) > MAX_KEY_LENGTH:
        raise InvalidPosting(f"idempotency key is longer than {MAX_KEY_LENGTH} characters")
    return idempotency_key


def _validate_lines(entries: Sequence[EntryLine]) -> list[tuple[int, int]]:
    """Shape checks that need no database: returns ``[(account_id, amount), ...]`` in order."""
    if isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence):
        raise InvalidPosting("entries must be a sequence of (account, amount) pairs")
    if len(entries) < 2:
        raise InvalidPosting(f"a posting needs at least two entries, not {len(entries)}")
    if len(entries) > MAX_ENTRIES:
        raise InvalidPosting(f"a posting has at most {MAX_ENTRIES} entries, not {len(entries)}")
    lines: list[tuple[int, int]] = []
    for number, item in enumerate(entries, start=1):
        try:
            account, amount = item
        except (TypeError, ValueError):
            raise InvalidPosting(f"entry {number} is not an (account, amount) pair") from None
        if not isinstance(account, Account) or account.pk is None:
            raise InvalidPosting(f"entry {number}: {account!r} is not a saved ledger account")
        value = _cents(amount, what=f"entry {number} amount")
        if value == 0:
            raise InvalidPosting(f"entry {number} has a zero amount")
        lines.append((account.pk, value))
    total = sum(amount for _, amount in lines)
    if total != 0:
        raise InvalidPosting(f"entries sum to {total}, not zero")
    if len({account_id for account_id, _ in lines}) < 2:
        raise InvalidPosting("a posting must move money between at least two accounts")
    return lines


def _user_id(user: AbstractBaseUser | None) -> int | None:
    if user is None:
        return None
    if getattr(user, "pk", None) is None:
        raise InvalidPosting("user must be a saved user (or None for a system posting)")
    return int(user.pk)


def _digest(
    *,
    kind: str,
    table_id: int | None,
    hand_id: int | None,
    reverses_id: int | None,
    memo: str,
    lines: Sequence[tuple[int, int]] | None,
    request: Mapping[str, Any] | None,
    input_digest: str = "",
) -> str:
    """The request digest (``ledger.hashing.posting_digest``, which the audit recomputes)."""
    return posting_digest(
        kind=kind,
        table_id=table_id,
        hand_id=hand_id,
        reverses_id=reverses_id,
        memo=memo,
        lines=lines,
        request=request,
        input_digest=input_digest,
    )


_HEX64 = frozenset("0123456789abcdef")


def _validate_input_digest(input_digest: object) -> str:
    if not isinstance(input_digest, str) or (
        input_digest and (len(input_digest) != 64 or not _HEX64.issuperset(input_digest))
    ):
        raise InvalidPosting("input_digest must be empty or a sha256 in lowercase hex")
    return input_digest


def _replay(idempotency_key: str, digest: str) -> JournalTransaction | None:
    """The transaction already posted under ``idempotency_key``, if any; ``IdempotencyConflict`` if
    it was posted for a different request."""
    existing = JournalTransaction.objects.filter(idempotency_key=idempotency_key).first()
    if existing is None:
        return None
    if existing.request_digest != digest:
        raise IdempotencyConflict(idempotency_key=idempotency_key, existing=existing)
    existing.was_replayed = True
    return existing


# --- The posting core -----------------------------------------------------------------------------


def post(
    *,
    kind: TransactionKind | str,
    entries: Sequence[EntryLine],
    idempotency_key: str,
    table: Table | None = None,
    hand: Hand | None = None,
    user: AbstractBaseUser | None = None,
    memo: str = "",
) -> JournalTransaction:
    """Post ``entries`` as one journal transaction and return it.

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
    return _post_checked(
        kind=kind,
        entries=entries,
        idempotency_key=idempotency_key,
        table=table,
        hand=hand,
        user=user,
        memo=memo,
        input_digest="",
    )


def _post_checked(
    *,
    kind: TransactionKind | str,
    entries: Sequence[EntryLine],
    idempotency_key: str,
    table: Table | None,
    hand: Hand | None,
    user: AbstractBaseUser | None,
    memo: str,
    input_digest: str,
) -> JournalTransaction:
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
        if _hand_table_id(hand) != table_id:
            raise InvalidPosting(f"hand {hand_id} is not a hand of table {table_id}")
    return _post(
        kind=kind,
        entries=entries,
        idempotency_key=idempotency_key,
        table_id=table_id,
        hand_id=hand_id,
        user_id=_user_id(user),
        memo=memo,
        reverses_id=None,
        request=None,
        input_digest=input_digest,
    )


def _post(
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
) -> JournalTransaction:
    lines = _validate_lines(entries)
    idempotency_key = _validate_key(idempotency_key)
    if not isinstance(memo, str):
        raise InvalidPosting("memo must be a string")
    digest = _digest(
        kind=kind,
        table_id=table_id,
        hand_id=hand_id,
        reverses_id=reverses_id,
        memo=memo,
        lines=lines,
        request=request,
        input_digest=_validate_input_digest(input_digest),
    )
    with service_atomic():
        # The replay check comes after the locks (one query, not two): a retry waits for the
        # posting's locks like any posting, then finds its first result.
        locked = _lock_for_posting(
            {account_id for account_id, _ in lines},
            table_id=table_id,
            hand_id=hand_id,
            identities={account.pk: _identity(account) for account, _ in entries},
        )
        # A concurrent call with the same key touches the same accounts, so it has committed by the
        # time we hold their locks (READ COMMITTED sees it). A retry is found without a query of its
        # own: when the checks refuse it (its chips were spent since), or when the INSERT below
        # meets its key; either way it returns the first transaction and writes nothing.
        try:
            _check_accounts(lines, locked, table_id=table_id, hand_id=hand_id)
            _check_player_chips(lines, locked)
        except LedgerError:
            if (done := _replay(idempotency_key, digest)) is not None:
                return done
            raise

        chain = chain_for_table(table_id)
        head = _lock_chain_head(chain)
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
            if (done := _replay(idempotency_key, digest)) is not None:
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
    return txn


Identity = tuple[int | None, int | None, int | None]
"""An account's floor rows: (table id, hand id, player id). They never change (a trigger refuses it)."""


def _identity(account: Account) -> Identity:
    return (account.table_id, account.hand_id, account.player_id)


def _lock_for_posting(
    account_ids: set[int],
    *,
    table_id: int | None,
    hand_id: int | None,
    identities: Mapping[int, Identity] | None = None,
) -> dict[int, Account]:
    """Take a posting's locks in the one order every posting uses: the floor rows it references
    (``_hold_floor_rows``), then its accounts by primary key. The chain head comes last (``_post``).

    ``identities`` are the floor rows of the accounts as the caller loaded them (saves reading them
    again); an account whose locked row says otherwise (an object built by hand) has its floor rows
    locked after all, so no reference is left to the commit's foreign-key check."""
    held = _hold_floor_rows(account_ids, table_id=table_id, hand_id=hand_id, identities=identities)
    locked = _lock_accounts(account_ids)
    if held is not None:
        missed = [_identity(a) for a in locked.values() if not _references_held(_identity(a), held)]
        if missed:
            _hold_floor_rows(set(), table_id=None, hand_id=None, identities=dict(enumerate(missed)))
    return locked


def _references_held(identity: Identity, held: Mapping[str, set[int]]) -> bool:
    return all(
        value is None or value in held[field]
        for field, value in zip(("table", "hand", "player"), identity, strict=True)
    )


def _hold_floor_rows(
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
    quote = connection.ops.quote_name
    statements: list[str] = []
    params: list[list[int]] = []
    for field in ("table", "hand", "player"):  # the floor's own order: table, then hand
        if ids := referenced[field]:
            model = Account._meta.get_field(field).related_model
            assert model is not None  # table, hand and player are foreign keys
            meta = model._meta
            assert meta.pk.column is not None  # a concrete primary key
            pk = quote(meta.pk.column)
            statements.append(
                f"SELECT {pk} FROM {quote(meta.db_table)} WHERE {pk} = ANY(%s) ORDER BY {pk} FOR KEY SHARE"
            )
            params.append(sorted(ids))
    with connection.cursor() as cursor:
        if statements and _client_side_binding():
            # One round trip: the statements still run one after the other, in this order.
            cursor.execute(";\n".join(statements), params)
        else:
            for statement, statement_ids in zip(statements, params, strict=True):
                cursor.execute(statement, [statement_ids])
    return referenced


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


def _lock_chain_head(chain: str) -> ChainHead:
    head = ChainHead.objects.select_for_update().filter(chain=chain).first()
    if head is None:
        ChainHead.objects.get_or_create(chain=chain)
        head = ChainHead.objects.select_for_update().get(chain=chain)
    return head


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


# --- Reversal -------------------------------------------------------------------------------------


def reverse(
    *, transaction: JournalTransaction, user: AbstractBaseUser | None, reason: str, idempotency_key: str
) -> JournalTransaction:
    """Post the negation of ``transaction`` (same accounts, lines in the same order, amounts negated)
    as a REVERSAL linked to it by ``reverses``; ``reason`` becomes its memo.

    A transaction is reversed at most once (also enforced by a unique column): a second reversal
    under another key raises ``AlreadyReversed``; under the same key and reason it returns the first.
    Reversing a reversal raises ``NotReversible``. A reversal that would take a player's chips below
    zero (they were already played or cashed out) raises ``InsufficientChips``.
    """
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidPosting("a reversal needs a reason")
    idempotency_key = _validate_key(idempotency_key)
    user_id = _user_id(user)
    with service_atomic():
        found = JournalTransaction.objects.filter(pk=transaction.pk).first()
        if found is None:
            raise InvalidPosting(f"transaction {transaction.pk} does not exist")
        # The floor rows come before everything else in the lock order (see _hold_floor_rows).
        _hold_floor_rows(
            set(found.entries.values_list("account_id", flat=True)),
            table_id=found.table_id,
            hand_id=found.hand_id,
        )
        # Then the original: two reversals of one transaction queue here rather than both passing
        # the "already reversed?" check. (A row lock is not an UPDATE: no trigger fires.)
        original = JournalTransaction.objects.select_for_update().get(pk=found.pk)
        digest = _digest(
            kind=TransactionKind.REVERSAL,
            table_id=original.table_id,
            hand_id=original.hand_id,
            reverses_id=original.pk,
            memo=reason,
            lines=None,
            request={"reverses": original.pk},
        )
        if (done := _replay(idempotency_key, digest)) is not None:
            return done
        if original.kind == TransactionKind.REVERSAL:
            raise NotReversible(f"transaction {original.pk} is a reversal; reversals are not reversed")
        if (reversal := JournalTransaction.objects.filter(reverses=original).first()) is not None:
            raise AlreadyReversed(transaction_id=original.pk, reversal=reversal)
        negated = [
            (entry.account, -entry.amount)
            for entry in original.entries.select_related("account").order_by("line")
        ]
        return _post(
            kind=TransactionKind.REVERSAL,
            entries=negated,
            idempotency_key=idempotency_key,
            table_id=original.table_id,
            hand_id=original.hand_id,
            user_id=user_id,
            memo=reason,
            reverses_id=original.pk,
            request={"reverses": original.pk},
        )


# --- Buy-in, rebuy, cash-out, table change --------------------------------------------------------


def buy_in(
    *,
    table: Table,
    player: Player,
    amount: int,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
) -> JournalTransaction:
    """The cage sells ``amount`` cents of chips to ``player`` at ``table`` (BUY_IN).
    Raises ``InvalidPosting`` for a non-positive or non-int amount, ``IdempotencyConflict``."""
    return _chips_from_cage(
        kind=TransactionKind.BUY_IN,
        table=table,
        player=player,
        amount=amount,
        user=user,
        idempotency_key=idempotency_key,
        memo=memo,
    )


def rebuy(
    *,
    table: Table,
    player: Player,
    amount: int,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
) -> JournalTransaction:
    """As ``buy_in`` but booked as a REBUY (whether a rebuy is allowed is the flow's rule)."""
    return _chips_from_cage(
        kind=TransactionKind.REBUY,
        table=table,
        player=player,
        amount=amount,
        user=user,
        idempotency_key=idempotency_key,
        memo=memo,
    )


def _chips_from_cage(
    *,
    kind: TransactionKind,
    table: Table,
    player: Player,
    amount: int,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str,
) -> JournalTransaction:
    amount = _positive_cents(amount, what="amount")
    with service_atomic():
        chips = player_account(table=table, player=player)
        cage = cage_account(table=table)
        return post(
            kind=kind,
            entries=[(cage, -amount), (chips, amount)],
            idempotency_key=idempotency_key,
            table=table,
            user=user,
            memo=memo,
        )


def cash_out(
    *,
    table: Table,
    player: Player,
    amount: int | None = None,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
) -> JournalTransaction:
    """The cage buys back ``amount`` cents of ``player``'s chips at ``table`` (CASH_OUT); with
    ``amount=None``, all of them (a retry of a whole cash-out returns the first one, whatever the
    balance is by then).

    Raises ``InsufficientChips`` for more than the player has, ``InvalidPosting`` for a bad amount or
    a whole cash-out of an empty stack, ``IdempotencyConflict``.
    """
    if amount is not None:
        amount = _positive_cents(amount, what="amount")
    idempotency_key = _validate_key(idempotency_key)
    with service_atomic():
        chips = player_account(table=table, player=player)
        cage = cage_account(table=table)
        if amount is not None:
            return post(
                kind=TransactionKind.CASH_OUT,
                entries=[(chips, -amount), (cage, amount)],
                idempotency_key=idempotency_key,
                table=table,
                user=user,
                memo=memo,
            )
        # "Everything": the request (not the amount it comes to) is what a retry must match.
        request = {"cash_out": "all", "player": player.pk}
        digest = _digest(
            kind=TransactionKind.CASH_OUT,
            table_id=table.pk,
            hand_id=None,
            reverses_id=None,
            memo=memo,
            lines=None,
            request=request,
        )
        if (done := _replay(idempotency_key, digest)) is not None:
            return done
        # Lock (both accounts, in the usual order) before reading the balance, so that a concurrent
        # posting can't change it under us.
        balance = _lock_for_posting({chips.pk, cage.pk}, table_id=table.pk, hand_id=None)[chips.pk].balance
        if balance <= 0:
            raise InvalidPosting(f"player {player.pk} has no chips to cash out at table {table.pk}")
        return _post(
            kind=TransactionKind.CASH_OUT,
            entries=[(chips, -balance), (cage, balance)],
            idempotency_key=idempotency_key,
            table_id=table.pk,
            hand_id=None,
            user_id=_user_id(user),
            memo=memo,
            reverses_id=None,
            request=request,
        )


def transfer_chips(
    *,
    player: Player,
    from_table: Table,
    to_table: Table,
    amount: int,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
) -> JournalTransaction:
    """Move ``amount`` cents of ``player``'s chips from one table to another (a table change), as
    one TABLE_TRANSFER on the room chain. Raises ``InsufficientChips``, ``InvalidPosting``."""
    amount = _positive_cents(amount, what="amount")
    if from_table.pk == to_table.pk:
        raise InvalidPosting("a table change needs two different tables")
    with service_atomic():
        source = player_account(table=from_table, player=player)
        target = player_account(table=to_table, player=player)
        return post(
            kind=TransactionKind.TABLE_TRANSFER,
            entries=[(source, -amount), (target, amount)],
            idempotency_key=idempotency_key,
            user=user,
            memo=memo,
        )


# --- A hand's money -------------------------------------------------------------------------------


def collect_fees(
    *,
    table: Table,
    shift: Shift,
    fees: Sequence[tuple[Player, int]],
    hand: Hand | None = None,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
) -> JournalTransaction | None:
    """Collect several players' fees (e.g. a hand's collection before the deal, key
    ``hand:<id>:fees``) as ONE FEE transaction: each player's chips are debited in the order given,
    and the house account of ``table`` for ``shift`` is credited with the total.

    Zero fees are skipped; when every fee is zero nothing is posted and ``None`` is returned.
    ``shift`` is explicit (not "now") so that a retry after a shift change is the same request.
    Raises ``InsufficientChips`` (nothing collected from anyone), ``InvalidPosting``,
    ``IdempotencyConflict``.
    """
    charged = [(player, _not_negative_cents(amount, what="fee")) for player, amount in fees]
    charged = [(player, amount) for player, amount in charged if amount]
    if not charged:
        return None
    with service_atomic():
        house = house_account(table=table, shift=shift)
        accounts = player_accounts(table=table, players=[p for p, _ in charged])
        entries: list[EntryLine] = [(accounts[p.pk], -amount) for p, amount in charged]
        entries.append((house, sum(amount for _, amount in charged)))
        return post(
            kind=TransactionKind.FEE,
            entries=entries,
            idempotency_key=idempotency_key,
            table=table,
            hand=hand,
            user=user,
            memo=memo,
        )


def post_payments(
    *,
    table: Table,
    hand: Hand,
    payments: Sequence[tuple[Player, Player, int]],
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
    input_digest: str = "",
) -> JournalTransaction | None:
    """Post a settlement's payments ``(from_player, to_player, amount)`` in the order given, as ONE
    SETTLEMENT_PAYMENT transaction of ``hand`` (key ``hand:<id>:settle``): all or none.
    ``input_digest``: the sha256 of the showdown input the payments were read from
    (``HandResult.digest``); it is part of the request digest, so the chained row covers it.

    Each payment is two entries (payer -amount, payee +amount) and is made from the chips the payer
    has at that point of the order. Zero payments (capped away) are skipped; when nothing moves,
    nothing is posted and ``None`` is returned. Raises ``InsufficientChips`` (the caps were not
    applied), ``InvalidPosting`` (negative amount, a player paying themself), ``IdempotencyConflict``.
    """
    input_digest = _validate_input_digest(input_digest)
    moved: list[tuple[Player, Player, int]] = []
    for number, (payer, payee, amount) in enumerate(payments, start=1):
        cents = _not_negative_cents(amount, what=f"payment {number}")
        if payer.pk == payee.pk:
            raise InvalidPosting(f"payment {number}: player {payer.pk} cannot pay themself")
        if cents:
            moved.append((payer, payee, cents))
    if not moved:
        return None
    with service_atomic():
        accounts = player_accounts(
            table=table, players=[p for payer, payee, _ in moved for p in (payer, payee)]
        )
        entries: list[EntryLine] = []
        for payer, payee, cents in moved:
            entries += [(accounts[payer.pk], -cents), (accounts[payee.pk], cents)]
        return _post_checked(
            kind=TransactionKind.SETTLEMENT_PAYMENT,
            entries=entries,
            idempotency_key=idempotency_key,
            table=table,
            hand=hand,
            user=user,
            memo=memo,
            input_digest=input_digest,
        )


def award_pot(
    *,
    table: Table,
    hand: Hand,
    put_ins: Sequence[tuple[Player, int]],
    awards: Sequence[tuple[Player, int]],
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
    input_digest: str = "",
) -> JournalTransaction | None:
    """Settle a pot game's hand as ONE POT_AWARD transaction: every put-in moves from the player's
    chips into the hand's pot, then every award (including uncalled chips going back) moves from the
    pot to the player, in the order given. The pot must end at zero: ``sum(put_ins) == sum(awards)``.
    ``input_digest`` as for :func:`post_payments`.

    Zero lines are skipped; when nothing moves, ``None`` is returned. Raises ``InvalidPosting``
    (the pot doesn't clear, negative amounts), ``InsufficientChips``, ``IdempotencyConflict``.
    """
    input_digest = _validate_input_digest(input_digest)
    ins = [(p, _not_negative_cents(a, what="put-in")) for p, a in put_ins]
    outs = [(p, _not_negative_cents(a, what="award")) for p, a in awards]
    ins = [(p, a) for p, a in ins if a]
    outs = [(p, a) for p, a in outs if a]
    total_in, total_out = sum(a for _, a in ins), sum(a for _, a in outs)
    if total_in != total_out:
        raise InvalidPosting(
            f"put-ins total {total_in} but awards total {total_out}; the pot must end at zero"
        )
    if not ins:
        return None
    with service_atomic():
        pot = pot_account(hand=hand)
        accounts = player_accounts(table=table, players=[p for p, _ in ins + outs])
        entries: list[EntryLine] = []
        for player, amount in ins:
            entries += [(accounts[player.pk], -amount), (pot, amount)]
        for player, amount in outs:
            entries += [(pot, -amount), (accounts[player.pk], amount)]
        return _post_checked(
            kind=TransactionKind.POT_AWARD,
            entries=entries,
            idempotency_key=idempotency_key,
            table=table,
            hand=hand,
            user=user,
            memo=memo,
            input_digest=input_digest,
        )
