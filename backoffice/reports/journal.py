"""The ledger journal: transactions of the period in posting order with every entry and the running
balance of its account after it.

A running balance is the account's real balance after that entry (all of the account's entries up
to it, whether or not the filters show them): an opening sum per account before the page's first
transaction, plus the account's entries from there on (one grouped query and one range query per
page, not one per account).

A player's chips are labelled with the name the player had at the transaction (renamed since: the
old name on the earlier transactions; :mod:`tables.player_names`, one query per page).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict

from django.db.models import Sum

from backoffice.reports.common import ReportFilters, ReportMeta, in_report_snapshot, make_meta
from ledger.models import Account, AccountKind, Entry, JournalTransaction
from tables.player_names import name_history

TITLE = "Ledger journal"
DEFAULT_LIMIT = 200
MAX_LIMIT = 2000


@dataclasses.dataclass(frozen=True, slots=True)
class JournalEntryLine:
    line: int
    account_id: int
    account: str
    amount_cents: int
    balance_after_cents: int


@dataclasses.dataclass(frozen=True, slots=True)
class JournalTransactionLine:
    transaction_id: int
    at: dt.datetime
    kind: str
    table_number: int | None
    hand_id: int | None
    idempotency_key: str
    memo: str
    created_by: str
    reverses_id: int | None
    chain: str
    sequence: int
    hash: str
    entries: list[JournalEntryLine]


@dataclasses.dataclass(frozen=True, slots=True)
class Journal:
    meta: ReportMeta
    total: int
    offset: int
    limit: int
    transactions: list[JournalTransactionLine]
    entries_sum_cents: int


def account_label(kind: str, table: int | None, player: str | None, hand: int | None, shift: str) -> str:
    match kind:
        case AccountKind.PLAYER_CHIPS:
            return f"chips: {player} @ table {table}"
        case AccountKind.HOUSE_COLLECTION:
            return f"house: table {table} {shift}"
        case AccountKind.CAGE:
            return f"cage: table {table}"
        case AccountKind.HAND_POT:
            return f"pot: hand {hand}"
    return kind


@in_report_snapshot
def build_journal(filters: ReportFilters, *, offset: int = 0, limit: int = DEFAULT_LIMIT) -> Journal:
    """The journal page: ``limit`` transactions (capped at ``MAX_LIMIT``) from ``offset``."""
    offset, limit = max(int(offset), 0), min(max(int(limit), 1), MAX_LIMIT)
    meta = make_meta("journal", TITLE, filters)
    txns_qs = filters.on_time(JournalTransaction.objects.all(), "created_at", table_field="table")
    total = txns_qs.count()
    txns = list(txns_qs.select_related("table", "created_by").order_by("pk")[offset : offset + limit])
    return _journal(meta, total, offset, limit, txns)


def _journal(
    meta: ReportMeta, total: int, offset: int, limit: int, txns: list[JournalTransaction]
) -> Journal:
    lines = journal_lines(txns)
    return Journal(
        meta=meta,
        total=total,
        offset=offset,
        limit=limit,
        transactions=lines,
        entries_sum_cents=sum(entry.amount_cents for txn in lines for entry in txn.entries),
    )


def journal_lines(txns: list[JournalTransaction]) -> list[JournalTransactionLine]:
    """``txns`` (ordered by id) with their entries and each entry's running account balance."""
    if not txns:
        return []
    ids = [txn.pk for txn in txns]
    first, last = ids[0], ids[-1]
    entries = list(
        Entry.objects.filter(transaction_id__in=ids)
        .values_list("transaction_id", "line", "account_id", "amount")
        .order_by("transaction_id", "line")
    )
    account_ids = {account_id for _, _, account_id, _ in entries}
    balance: dict[int, int] = defaultdict(int)
    for row in (
        Entry.objects.filter(account_id__in=account_ids, transaction_id__lt=first)
        .values("account_id")
        .annotate(cents=Sum("amount"))
        .order_by()
    ):
        balance[row["account_id"]] = int(row["cents"])
    # The accounts' entries within the page's id range, shown or not, in posting order.
    after: dict[tuple[int, int], int] = {}
    for txn_id, line, account_id, amount in (
        Entry.objects.filter(account_id__in=account_ids, transaction_id__gte=first, transaction_id__lte=last)
        .values_list("transaction_id", "line", "account_id", "amount")
        .order_by("transaction_id", "line")
    ):
        balance[account_id] += amount
        after[(txn_id, line)] = balance[account_id]
    accounts = {
        account.pk: account
        for account in Account.objects.filter(pk__in=account_ids).select_related("table", "player")
    }
    names = name_history(
        {a.player.pk: a.player.name for a in accounts.values() if a.player is not None},
        since=min(txn.created_at for txn in txns),
    )
    at = {txn.pk: txn.created_at for txn in txns}

    def label(account_id: int, txn_id: int) -> str:
        account = accounts.get(account_id)
        if account is None:
            return str(account_id)
        return account_label(
            account.kind,
            account.table.number,
            names.at(account.player_id, at[txn_id]) if account.player_id is not None else None,
            account.hand_id,
            str(account.shift) if account.shift else "",
        )

    by_txn: dict[int, list[JournalEntryLine]] = defaultdict(list)
    for txn_id, line, account_id, amount in entries:
        by_txn[txn_id].append(
            JournalEntryLine(
                line=line,
                account_id=account_id,
                account=label(account_id, txn_id),
                amount_cents=amount,
                balance_after_cents=after[(txn_id, line)],
            )
        )
    return [
        JournalTransactionLine(
            transaction_id=txn.pk,
            at=txn.created_at,
            kind=txn.kind,
            table_number=txn.table.number if txn.table else None,
            hand_id=txn.hand_id,
            idempotency_key=txn.idempotency_key,
            memo=txn.memo,
            created_by=txn.created_by.get_username() if txn.created_by else "system",
            reverses_id=txn.reverses_id,
            chain=txn.chain,
            sequence=txn.sequence,
            hash=txn.hash,
            entries=by_txn.get(txn.pk, []),
        )
        for txn in txns
    ]
