"""``verify_ledger``: recompute everything the ledger caches or chains, from the rows alone and the
chain keys (``ledger.keys``, which are not in the database).

Used by ``backoffice.books.verify_books`` (``manage.py verify_ledger``, the integrity report and the
full check), which adds what no hash can check. ``verify_ledger()`` reads the whole ledger in a
streaming pass, in one snapshot; ``verify_ledger_range()`` reads one id range of it (the nightly
check: the rows since the last checkpoint, and a rotating seventh of history, docs/retention.md),
linking each chain's first row in the range to the stored hash of the row before it.

Problems are counted, and the first ``MAX_PROBLEMS`` kept: a damaged ledger can't make a report
(or the worker building it) grow with the damage.
"""

from __future__ import annotations

import datetime as dt
import hmac
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import reduce
from operator import or_
from typing import Any, Self, SupportsIndex

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, Sum

from ledger.hashing import transaction_content, transaction_hash
from ledger.keys import chain_keys
from ledger.models import GENESIS_HASH, Account, AccountKind, ChainHead, Entry, JournalTransaction

_CHUNK = 2000

MAX_PROBLEMS = 1000
"""Problems kept by one verification (``LedgerReport.problem_count`` counts them all)."""

ROTATION_PARTS = 7
"""The older rows are verified again a seventh a night: every row at least once a week."""


def rotation_slice(
    last_id: int, day: dt.date, *, first_id: int = 1, parts: int = ROTATION_PARTS
) -> tuple[int, int] | None:
    """The ``day``'s part (one of ``parts``, by ``day.toordinal()``) of the ids
    ``first_id..last_id``, as ``(first, last)``; None when there is no row or that part is empty.
    Over ``parts`` consecutive days the parts cover ``first_id..last_id`` whole."""
    if last_id < max(first_id, 1):
        return None
    size = -(-(last_id - first_id + 1) // parts)
    first = first_id + (day.toordinal() % parts) * size
    if first > last_id:
        return None
    return first, min(first + size - 1, last_id)


@dataclass(frozen=True, slots=True)
class Problem:
    """One failed check. ``code`` is stable (for programs); ``message`` is for people."""

    code: str
    message: str
    transaction_id: int | None = None
    account_id: int | None = None
    chain: str | None = None
    hand_id: int | None = None


class ProblemList(list[Problem]):
    """A list that keeps the first ``limit`` problems appended (default ``MAX_PROBLEMS``) and counts
    them all (``total``)."""

    def __init__(self, items: Iterable[Problem] = (), *, limit: int | None = None) -> None:
        super().__init__()
        self.limit = MAX_PROBLEMS if limit is None else limit
        self.total = 0
        for item in items:
            self.append(item)

    def append(self, item: Problem, /) -> None:
        self.total += 1
        if len(self) < self.limit:
            super().append(item)

    def extend(self, items: Iterable[Problem], /) -> None:
        for item in items:
            self.append(item)

    def __iadd__(self, items: Iterable[Problem], /) -> Self:  # type: ignore[override,misc]
        self.extend(items)
        return self

    def insert(self, index: SupportsIndex, item: Problem, /) -> None:  # pragma: no cover - not used
        raise TypeError("problems are appended in the order found")


@dataclass(slots=True)
class LedgerReport:
    """What ``verify_ledger`` checked and the problems it found (empty when the ledger is sound):
    the first ``MAX_PROBLEMS`` kept, ``problem_count`` all of them. A range check
    (``verify_ledger_range``) sets ``first_id``/``last_id``."""

    chains: int = 0
    transactions: int = 0
    entries: int = 0
    accounts: int = 0
    problems: list[Problem] = field(default_factory=ProblemList)
    heads: dict[str, tuple[int, str]] = field(default_factory=dict)
    """The last ``(sequence, hash)`` of each chain as read from its rows (what an anchor signs)."""
    first_id: int | None = None
    last_id: int | None = None

    @property
    def problem_count(self) -> int:
        return getattr(self.problems, "total", len(self.problems))

    @property
    def ok(self) -> bool:
        return self.problem_count == 0

    def summary(self) -> str:
        verdict = "OK" if self.ok else f"FAILED: {self.problem_count} problem(s)"
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
            "problem_count": self.problem_count,
            "problems": [asdict(problem) for problem in self.problems],
        }


@dataclass(frozen=True, slots=True)
class _Range:
    """What a range check reads: journal rows ``first_id..last_id`` (plus, after a checkpoint, any
    row of a chain past the checkpoint's head that committed late with a lower id), and the accounts
    to re-add in full (``accounts``: an id range) or by their cheap rules only (touched ones)."""

    first_id: int
    last_id: int
    heads: Mapping[str, Sequence[Any]]
    accounts: tuple[int, int] | None


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
    return _in_snapshot(None)


def verify_ledger_range(
    *,
    first_id: int,
    last_id: int,
    heads: Mapping[str, Sequence[Any]] | None = None,
    accounts: tuple[int, int] | None = None,
) -> LedgerReport:
    """Check the journal rows with ids ``first_id..last_id`` as ``verify_ledger`` checks all of them
    (never raises for a bad ledger). Each chain's first row in the range is linked to the stored hash
    of the row before it in its chain (which an earlier check verified); ``heads`` (a checkpoint's
    ``chain -> [sequence, hash]``) adds: that row's hash is still the one verified
    (``checkpoint_mismatch``), rows of a chain past its checkpointed head with a lower id (committed
    late) are read too, and the chain heads are compared as in the full check.

    Accounts: with ``accounts`` (an id range), those are re-added from all their entries, with
    the balance rules, and all cached balances must sum to zero; otherwise each hand pot the range
    touches is re-added and must be at zero, and each player's chips it touches must not be negative
    (their full re-adding is left to the rotation and the full check). Reversals in the range are
    compared with what they reverse, wherever that is.
    """
    return _in_snapshot(_Range(first_id, last_id, heads or {}, accounts))


def _in_snapshot(scope: _Range | None) -> LedgerReport:
    if connection.in_atomic_block:
        return _verify(scope)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _verify(scope)


def _rows_of(scope: _Range, column: str = "pk") -> Q:
    """The journal rows a range check reads, as a filter on ``column`` (the transaction id: ``pk``
    for the journal, ``transaction_id`` for the entries, so that neither query needs a join to
    filter): the range, and the rows committed late (below the range, past their chain's
    checkpointed head), looked up first through the chain/sequence index."""
    rows = Q(**{f"{column}__gte": scope.first_id, f"{column}__lte": scope.last_id})
    if not scope.heads:
        return rows
    late = JournalTransaction.objects.filter(
        reduce(or_, (Q(chain=chain, sequence__gt=head[0]) for chain, head in scope.heads.items())),
        pk__lt=scope.first_id,
    ).values_list("pk", flat=True)
    late_ids = list(late)
    return rows | Q(**{f"{column}__in": late_ids}) if late_ids else rows


def _predecessor(chain: str, sequence: int) -> str | None:
    """The stored hash of row ``sequence - 1`` of ``chain`` (None: there is none)."""
    return (
        JournalTransaction.objects.filter(chain=chain, sequence=sequence - 1)
        .values_list("hash", flat=True)
        .first()
    )


def _verify(scope: _Range | None) -> LedgerReport:
    report = LedgerReport()
    problems = report.problems
    transactions = JournalTransaction.objects.all()
    entry_set = Entry.objects.all()
    if scope is None:
        reversed_ids = set(
            JournalTransaction.objects.filter(reverses__isnull=False).values_list("reverses_id", flat=True)
        )
    else:
        report.first_id, report.last_id = scope.first_id, scope.last_id
        transactions = transactions.filter(_rows_of(scope))
        entry_set = entry_set.filter(_rows_of(scope, "transaction_id"))
        reversed_ids = set()  # a reversal's original is read when the reversal is met
    kept_entries: dict[int, list[tuple[int, int, int]]] = {}  # for the reversal check
    reversals: list[tuple[int, int]] = []  # (reversal id, reversed id)
    account_sums: dict[int, int] = defaultdict(int)
    last_of_chain = report.heads
    keys = chain_keys().keys
    keyed_chains: set[str] = set()  # chains whose keyed rows have begun (no format 1 row after)

    entry_rows = _Peekable(
        entry_set.order_by("transaction__chain", "transaction__sequence", "line")
        .values_list("transaction_id", "line", "account_id", "amount")
        .iterator(chunk_size=_CHUNK)
    )
    txn_rows = transactions.order_by("chain", "sequence").values(*_TXN_FIELDS).iterator(chunk_size=_CHUNK)

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
        expected_prev: str | None
        if previous is None or previous[0] != chain:
            report.chains += 1
            expected_sequence, expected_prev = 1, GENESIS_HASH
            if scope is not None and txn["sequence"] > 1:
                expected_sequence = txn["sequence"]
                expected_prev = _link_to_verified(txn, scope, where, problems)
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
        if expected_prev is not None and txn["prev_hash"] != expected_prev:
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
        if original_id not in kept_entries:  # a range check: the original is outside the range
            kept_entries[original_id] = list(
                Entry.objects.filter(transaction_id=original_id)
                .order_by("line")
                .values_list("line", "account_id", "amount")
            )
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

    if scope is not None:
        _check_range_accounts(scope, report, account_sums)
        if scope.heads:  # the rows since a checkpoint: every chain's last row is known
            for chain, head in scope.heads.items():
                last_of_chain.setdefault(chain, (int(head[0]), str(head[1])))
            _check_heads(report)
        return report
    _check_heads(report)
    _check_all_accounts(report, account_sums)
    return report


def _link_to_verified(txn: dict[str, Any], scope: _Range, where: str, problems: list[Problem]) -> str | None:
    """The hash a range's first row of a chain must carry as ``prev_hash``: the stored hash of the
    row before it (verified by an earlier check), and that one still the checkpoint's, if the
    checkpoint ended there. None (and a ``chain_gap``) when that row is missing."""
    chain, sequence = txn["chain"], txn["sequence"]
    before = _predecessor(chain, sequence)
    if before is None:
        problems.append(
            Problem(
                "chain_gap", f"{where}: no row #{sequence - 1} before it in its chain", txn["id"], None, chain
            )
        )
        return None
    head = scope.heads.get(chain)
    if head is not None and int(head[0]) == sequence - 1 and head[1] != before:
        problems.append(
            Problem(
                "checkpoint_mismatch",
                f"{where}: the row before it (#{sequence - 1}) no longer has the hash verified at the last "
                "checkpoint",
                txn["id"],
                None,
                chain,
            )
        )
    return before


def _check_heads(report: LedgerReport) -> None:
    """Each chain head points at the last transaction of its chain (``report.heads``)."""
    problems, last_of_chain = report.problems, report.heads
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


def _check_all_accounts(report: LedgerReport, account_sums: Mapping[int, int]) -> None:
    """Cached balances against the entries read, and the balance rules, for every account."""
    grand_total = 0
    for account_id, kind, balance in (
        Account.objects.order_by("pk").values_list("id", "kind", "balance").iterator(chunk_size=_CHUNK)
    ):
        grand_total += balance
        _check_account(report, account_id, kind, balance, account_sums.get(account_id, 0))
    if grand_total != 0:
        report.problems.append(
            Problem("ledger_not_zero", f"cached balances of all accounts sum to {grand_total}, not zero")
        )


def _check_range_accounts(scope: _Range, report: LedgerReport, touched: Mapping[int, int]) -> None:
    """A range check's accounts (see ``verify_ledger_range``)."""
    if scope.accounts is not None:
        low, high = scope.accounts
        sums = dict(
            Entry.objects.filter(account_id__gte=low, account_id__lte=high)
            .values_list("account_id")
            .annotate(total=Sum("amount"))
            .values_list("account_id", "total")
        )
        for account_id, kind, balance in (
            Account.objects.filter(pk__gte=low, pk__lte=high)
            .order_by("pk")
            .values_list("id", "kind", "balance")
            .iterator(chunk_size=_CHUNK)
        ):
            _check_account(report, account_id, kind, balance, sums.get(account_id, 0))
        grand_total = Account.objects.aggregate(total=Sum("balance"))["total"] or 0
        if grand_total != 0:
            report.problems.append(
                Problem("ledger_not_zero", f"cached balances of all accounts sum to {grand_total}, not zero")
            )
        return
    ids = sorted(touched)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        rows = list(Account.objects.filter(pk__in=chunk).values_list("id", "kind", "balance"))
        pots = [account_id for account_id, kind, _ in rows if kind == AccountKind.HAND_POT]
        sums = dict(
            Entry.objects.filter(account_id__in=pots)
            .values_list("account_id")
            .annotate(total=Sum("amount"))
            .values_list("account_id", "total")
        )
        for account_id, kind, balance in rows:
            if kind == AccountKind.HAND_POT:
                _check_account(report, account_id, kind, balance, sums.get(account_id, 0))
            else:
                report.accounts += 1
                if kind == AccountKind.PLAYER_CHIPS and balance < 0:
                    report.problems.append(
                        Problem(
                            "negative_chips",
                            f"account {account_id}: player chips at {balance}",
                            None,
                            account_id,
                        )
                    )


def _check_account(report: LedgerReport, account_id: int, kind: str, balance: int, computed: int) -> None:
    """One account's cached balance against its entries' sum, and the balance rules."""
    problems = report.problems
    report.accounts += 1
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
            Problem("negative_chips", f"account {account_id}: player chips at {computed}", None, account_id)
        )
    if kind == AccountKind.HAND_POT and computed != 0:
        problems.append(
            Problem("pot_not_cleared", f"account {account_id}: hand pot holds {computed}", None, account_id)
        )


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
