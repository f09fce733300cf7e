"""Player statement: every posting that moved a player's chips in the period (buy-ins, rebuys, fees,
payoffs, cash-outs, table changes, reversals), netted per transaction, with the running chips.

The opening chips are one aggregate over the player's entries before the period; the lines are one
grouped query (entries netted per transaction); totals by kind come from those lines. With a shift
filter the lines outside the shift are left out but still counted in the running chips (which are
always the player's real chips after each line).

Names as they were: each line names the player as they were called at the posting, the header as
at the period's end, and ``names`` lists every name of the period (a rename shows the old name on
the lines before it; :mod:`tables.player_names`, one query).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict

from django.db.models import Sum

from backoffice.reports.common import ReportFilters, ReportMeta, in_report_snapshot, make_meta
from ledger.models import AccountKind, Entry, TransactionKind
from ledger.shifts import Shift, shift_hours
from tables.models import Player
from tables.player_names import name_history

TITLE = "Player statement"

# How each kind of posting reads on a statement.
HEADINGS: dict[str, str] = {
    TransactionKind.BUY_IN: "buy_ins",
    TransactionKind.REBUY: "rebuys",
    TransactionKind.FEE: "fees",
    TransactionKind.POT_AWARD: "payoffs",
    TransactionKind.SETTLEMENT_PAYMENT: "payoffs",
    TransactionKind.CASH_OUT: "cash_outs",
    TransactionKind.TABLE_TRANSFER: "transfers",
    TransactionKind.REVERSAL: "reversals",
}


@dataclasses.dataclass(frozen=True, slots=True)
class StatementLine:
    transaction_id: int
    at: dt.datetime
    shift: str
    kind: str
    table_number: int
    hand_id: int | None
    hand_number: int | None
    memo: str
    amount_cents: int
    running_cents: int
    table_running_cents: int
    #: The player's name at the posting (not today's, when they were renamed since).
    player: str


@dataclasses.dataclass(frozen=True, slots=True)
class StatementTotals:
    """Net cents into the player's chips by heading (fees and cash-outs are negative)."""

    buy_ins: int = 0
    rebuys: int = 0
    fees: int = 0
    payoffs: int = 0
    cash_outs: int = 0
    transfers: int = 0
    reversals: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerStatement:
    meta: ReportMeta
    player_id: int
    #: The name at the period's end; ``names``: every name the player had in the period, oldest first.
    player: str
    names: list[str]
    member_number: str
    opening_cents: int
    closing_cents: int
    totals: StatementTotals
    lines: list[StatementLine]


@in_report_snapshot
def build_player_statement(player: Player, filters: ReportFilters) -> PlayerStatement:
    """``player``'s statement for ``filters`` (tables filter: only those tables' chips)."""
    meta = make_meta("player_statement", TITLE, filters, player=player.pk)
    entries = Entry.objects.filter(account__kind=AccountKind.PLAYER_CHIPS, account__player_id=player.pk)
    if filters.tables:
        entries = entries.filter(account__table__number__in=filters.tables)
    opening_by_table = {
        row["account__table__number"]: int(row["cents"] or 0)
        for row in entries.filter(transaction__created_at__lt=filters.start)
        .values("account__table__number")
        .annotate(cents=Sum("amount"))
        .order_by()
    }
    rows = (
        entries.filter(transaction__created_at__gte=filters.start, transaction__created_at__lt=filters.end)
        .values(
            "transaction_id",
            "transaction__created_at",
            "transaction__kind",
            "transaction__memo",
            "transaction__hand_id",
            "transaction__hand__number",
            "account__table__number",
        )
        .annotate(cents=Sum("amount"))
        .order_by("transaction_id", "account__table__number")
    )
    opening = sum(opening_by_table.values())
    names = name_history({player.pk: player.name}, since=filters.start)
    running, by_table = opening, dict(opening_by_table)
    totals: dict[str, int] = defaultdict(int)
    lines: list[StatementLine] = []
    hours = shift_hours(filters.shift) if filters.shift else None
    for row in rows:
        amount, table = int(row["cents"]), row["account__table__number"]
        running += amount
        by_table[table] = by_table.get(table, 0) + amount
        at = row["transaction__created_at"]
        shift = Shift.at(at)
        if hours is not None and shift.code != filters.shift:
            continue
        totals[HEADINGS.get(row["transaction__kind"], "reversals")] += amount
        lines.append(
            StatementLine(
                transaction_id=row["transaction_id"],
                at=at,
                shift=str(shift),
                kind=row["transaction__kind"],
                table_number=table,
                hand_id=row["transaction__hand_id"],
                hand_number=row["transaction__hand__number"],
                memo=row["transaction__memo"],
                amount_cents=amount,
                running_cents=running,
                table_running_cents=by_table[table],
                player=names.at(player.pk, at),
            )
        )
    return PlayerStatement(
        meta=meta,
        player_id=player.pk,
        player=names.at(player.pk, filters.end),
        names=names.during(player.pk, filters.start, filters.end),
        member_number=player.member_number or "",
        opening_cents=opening,
        closing_cents=running,
        totals=StatementTotals(**totals),
        lines=lines,
    )
