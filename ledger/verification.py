"""``verify_ledger``: recompute everything the ledger caches or chains, from the rows alone and the
chain keys (``ledger.keys``, which are not in the database).

Used by ``backoffice.audit.verify_books`` (``manage.py verify_ledger``, the integrity report and the
nightly check), which adds what no hash can check. It reads the whole ledger in a streaming pass, in
one snapshot.
"""

from __future__ import annotations

import hmac
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from ledger.hashing import transaction_content, transaction_hash
from ledger.keys import chain_keys
from ledger.models import GENESIS_HASH, Account, AccountKind, ChainHead, Entry, JournalTransaction

_CHUNK = 2000


@dataclass(frozen=True, slots=True)
class Problem:
    """One failed check. ``code`` is stable (for programs); ``message`` is for people."""

    code: str
    message: str
    transaction_id: int | None = None
    account_id: int | None = None
    chain: str | None = None
    hand_id: int | None = None


@dataclass(slots=True)
class LedgerReport:
    """What ``verify_ledger`` checked and every problem it found (empty when the ledger is sound)."""

    chains: int = 0
    transactions: int = 0
    entries: int = 0
    accounts: int = 0
    problems: list[Problem] = field(default_factory=list)
    heads: dict[str, tuple[int, str]] = field(default_factory=dict)
    """The last ``(sequence, hash)`` of each chain as read from its rows (what an anchor signs)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        verdict = "OK" if self.ok else f"FAILED: {len(self.problems)} problem(s)"
        return (
            f"ledger {verdict}: {self.chains} chain(s), {self.transactions} transaction(s), "
            f"{self.entries} entries, {self.accounts} account(s) checked"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "chains": self.chains,
            "transactions": self.transactions,
            "entries": self.entries,
            "accounts": self.accounts,
            "problems": [asdict(problem) for problem in self.problems],
        }


_TXN_FIELDS = (
    "id",
    "chain",
    "sequence",
    "prev_hash",
    "hash",
    "kind",
    "table_id",
    "hand_id",
    "created_by_id",
    "created_at",
    "memo",
    "idempotency_key",
    "request_digest",
    "reverses_id",
    "key_id",
)


def verify_ledger() -> LedgerReport:
    """Check the whole ledger and return a ``LedgerReport`` (never raises for a bad ledger).

    Checks: each chain's sequences run 1, 2, 3... with each ``prev_hash`` equal to the previous
    ``hash`` (the first to ``GENESIS_HASH``) and each ``hash`` equal to the one recomputed from the
    transaction's row and entries: an HMAC under the chain key its ``key_id`` names (``unknown_key``
    when that key is not configured), or for a row of format 1 (no key id) a plain sha256, which is
    accepted only before the chain's first keyed row (``hash_downgraded``) and only while
    ``LEDGER_ALLOW_UNKEYED`` is on (``unkeyed_row``); each chain head points at its chain's last
    transaction; every
    transaction has at least two entries, none zero, summing to zero; every reversal is the exact
    negation of what it reverses; every account's cached balance equals the sum of its entries;
    no player's chips are negative; every hand pot is at zero; all balances sum to zero.

    Run outside a transaction it reads one consistent snapshot (REPEATABLE READ on PostgreSQL).
    """
    if connection.in_atomic_block:
        return _verify()
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _verify()


def _verify() -> LedgerReport:
    report = LedgerReport()
    problems = report.problems
    reversed_ids = set(
        JournalTransaction.objects.filter(reverses__isnull=False).values_list("reverses_id", flat=True)
    )
    kept_entries: dict[int, list[tuple[int, int, int]]] = {}  # for the reversal check
    reversals: list[tuple[int, int]] = []  # (reversal id, reversed id)
    account_sums: dict[int, int] = defaultdict(int)
    last_of_chain = report.heads
    keys = chain_keys().keys
    keyed_chains: set[str] = set()  # chains whose keyed rows have begun (no format 1 row after)

    entry_rows = _Peekable(
        Entry.objects.order_by("transaction__chain", "transaction__sequence", "line")
        .values_list("transaction_id", "line", "account_id", "amount")
        .iterator(chunk_size=_CHUNK)
    )
    txn_rows = (
        JournalTransaction.objects.order_by("chain", "sequence")
        .values(*_TXN_FIELDS)
        .iterator(chunk_size=_CHUNK)
    )

    previous: tuple[str, int, str] | None = None  # (chain, sequence, hash) of the row before
    for txn in txn_rows:
        report.transactions += 1
        txn_id, chain = txn["id"], txn["chain"]
        where = (
            f"transaction {txn_id} ({chain} #{txn['sequence']}, {txn['kind']}, "
            f"key {txn['idempotency_key']!r})"
        )

        entries: list[tuple[int, int, int]] = []
        while (row := entry_rows.peek()) is not None and row[0] == txn_id:
            next(entry_rows)
            entries.append((row[1], row[2], row[3]))
        report.entries += len(entries)
        for _, account_id, amount in entries:
            account_sums[account_id] += amount

        # The chain: order and links.
        if previous is None or previous[0] != chain:
            report.chains += 1
            expected_sequence, expected_prev = 1, GENESIS_HASH
        else:
            expected_sequence, expected_prev = previous[1] + 1, previous[2]
        if txn["sequence"] != expected_sequence:
            problems.append(
                Problem(
                    "chain_gap",
                    f"{where}: sequence {txn['sequence']}, expected {expected_sequence}",
                    txn_id,
                    None,
                    chain,
                )
            )
        if txn["prev_hash"] != expected_prev:
            problems.append(
                Problem(
                    "chain_broken",
                    f"{where}: prev_hash does not match the previous transaction's hash",
                    txn_id,
                    None,
                    chain,
                )
            )
        _check_hash(txn, entries, where=where, keys=keys, problems=problems, keyed_chains=keyed_chains)
        previous = (chain, txn["sequence"], txn["hash"])
        last_of_chain[chain] = (txn["sequence"], txn["hash"])

        # Double entry.
        if len(entries) < 2:
            problems.append(
                Problem("too_few_entries", f"{where}: {len(entries)} entries, at least 2 required", txn_id)
            )
        if any(amount == 0 for _, _, amount in entries):
            problems.append(Problem("zero_entry", f"{where}: has an entry of zero", txn_id))
        if (total := sum(amount for _, _, amount in entries)) != 0:
            problems.append(Problem("unbalanced", f"{where}: entries sum to {total}, not zero", txn_id))

        if txn_id in reversed_ids:
            kept_entries[txn_id] = entries
        if txn["reverses_id"] is not None:
            kept_entries[txn_id] = entries
            reversals.append((txn_id, txn["reverses_id"]))

    for reversal_id, original_id in reversals:
        original = [
            (line, account_id, -amount) for line, account_id, amount in kept_entries.get(original_id, [])
        ]
        if kept_entries[reversal_id] != original:
            problems.append(
                Problem(
                    "reversal_mismatch",
                    f"transaction {reversal_id}: is not the exact negation of transaction {original_id}",
                    reversal_id,
                )
            )

    # Chain heads point at the last transaction of their chain.
    heads = {head.chain: head for head in ChainHead.objects.all()}
    for chain in sorted(set(heads) | set(last_of_chain)):
        sequence, last_hash = last_of_chain.get(chain, (0, GENESIS_HASH))
        head = heads.get(chain)
        if head is None:
            problems.append(Problem("head_missing", f"chain {chain}: no chain head row", None, None, chain))
        elif (head.sequence, head.hash) != (sequence, last_hash):
            problems.append(
                Problem(
                    "head_mismatch",
                    f"chain {chain}: head at #{head.sequence}, "
                    f"last transaction is #{sequence} (or their hashes differ)",
                    None,
                    None,
                    chain,
                )
            )

    # Cached balances, and the balance rules.
    grand_total = 0
    for account_id, kind, balance in (
        Account.objects.order_by("pk").values_list("id", "kind", "balance").iterator(chunk_size=_CHUNK)
    ):
        report.accounts += 1
        computed = account_sums.get(account_id, 0)
        grand_total += balance
        if computed != balance:
            problems.append(
                Problem(
                    "balance_mismatch",
                    f"account {account_id} ({kind}): cached balance {balance}, entries sum to {computed}",
                    None,
                    account_id,
                )
            )
        if kind == AccountKind.PLAYER_CHIPS and computed < 0:
            problems.append(
                Problem(
                    "negative_chips", f"account {account_id}: player chips at {computed}", None, account_id
                )
            )
        if kind == AccountKind.HAND_POT and computed != 0:
            problems.append(
                Problem(
                    "pot_not_cleared", f"account {account_id}: hand pot holds {computed}", None, account_id
                )
            )
    if grand_total != 0:
        problems.append(
            Problem("ledger_not_zero", f"cached balances of all accounts sum to {grand_total}, not zero")
        )
    return report


def _check_hash(
    txn: dict[str, Any],
    entries: list[tuple[int, int, int]],
    *,
    where: str,
    keys: Mapping[str, bytes],
    problems: list[Problem],
    keyed_chains: set[str],
) -> None:
    """Recompute one row's hash (see ``verify_ledger``) and add what is wrong to ``problems``."""
    txn_id, chain, key_id = txn["id"], txn["chain"], txn["key_id"]
    key: bytes | None = None
    if key_id:
        keyed_chains.add(chain)
        key = keys.get(key_id)
        if key is None:
            problems.append(
                Problem(
                    "unknown_key",
                    f"{where}: hashed under key {key_id!r}, which is not configured (LEDGER_KEYS); "
                    "its hash can't be checked",
                    txn_id,
                    None,
                    chain,
                )
            )
            return
    elif chain in keyed_chains:
        problems.append(
            Problem(
                "hash_downgraded",
                f"{where}: an unkeyed (format 1) row after keyed rows of its chain: a row rewritten "
                "without the chain key?",
                txn_id,
                None,
                chain,
            )
        )
    elif not settings.LEDGER_ALLOW_UNKEYED:
        problems.append(
            Problem(
                "unkeyed_row",
                f"{where}: an unkeyed (format 1) row, and LEDGER_ALLOW_UNKEYED is off",
                txn_id,
                None,
                chain,
            )
        )
    content = transaction_content(
        chain=chain,
        sequence=txn["sequence"],
        prev_hash=txn["prev_hash"],
        kind=txn["kind"],
        table_id=txn["table_id"],
        hand_id=txn["hand_id"],
        created_by_id=txn["created_by_id"],
        created_at=txn["created_at"],
        memo=txn["memo"],
        idempotency_key=txn["idempotency_key"],
        request_digest=txn["request_digest"],
        reverses_id=txn["reverses_id"],
        key_id=key_id,
        entries=entries,
    )
    if not hmac.compare_digest(transaction_hash(content, key), txn["hash"]):
        problems.append(
            Problem(
                "hash_mismatch",
                f"{where}: stored hash does not match its content (altered row, or hashed without "
                "the chain key?)",
                txn_id,
                None,
                chain,
            )
        )


class _Peekable[T]:
    """An iterator with one item of look-ahead (``peek()`` gives ``None`` at the end)."""

    def __init__(self, iterator: Iterator[T]) -> None:
        self._iterator = iterator
        self._next: T | None = None
        self._has_next = False

    def peek(self) -> T | None:
        if not self._has_next:
            self._next = next(self._iterator, None)
            self._has_next = True
        return self._next

    def __iter__(self) -> _Peekable[T]:
        return self

    def __next__(self) -> T:
        item = self.peek()
        self._has_next = False
        if item is None:
            raise StopIteration
        return item
