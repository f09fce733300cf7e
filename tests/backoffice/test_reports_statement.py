"""Player statement and ledger journal: every posting with the running chips / running account
balance, checked against the ledger's balances and independent running sums."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

import pytest
from django.utils import timezone

from backoffice.reports.common import ReportFilters
from backoffice.reports.journal import build_journal
from backoffice.reports.statement import build_player_statement
from ledger import selectors
from ledger import services as ledger_services
from ledger.models import Account, Entry, JournalTransaction
from ledger.shifts import Shift, ShiftCode, room_zone
from tests.factories import ReportRoom, at_local, rpt_fee

pytestmark = pytest.mark.django_db


@pytest.fixture
def evening(room: ReportRoom, a_past_day: dt.date) -> dict[str, Any]:
    """Today: Ann buys in at two tables, pays fees, wins and loses, moves chips, cashes out."""
    schedule = room.limit_schedule()
    t1, t2 = room.table(101, schedule=schedule), room.table(102, schedule=schedule)
    ann, ben = room.seat(t1, ["Ann", "Ben"], chips=20_000)
    room.seat(t2, ["Cy", "Dee"], chips=5_000)
    now = timezone.now()
    hand = room.hand(t1, [ann, ben], at=now)  # Ann pays $1
    room.settle(hand, [(ben, ann, 1_500)])
    hand2 = room.hand(t1, [ben, ann], at=now)  # Ben pays $1
    room.settle(hand2, [(ann, ben, 400)])
    ledger_services.rebuy(table=t1, player=ann, amount=2_000, user=room.user, idempotency_key="ann-rebuy")
    ledger_services.transfer_chips(
        player=ann, from_table=t1, to_table=t2, amount=3_000, user=room.user, idempotency_key="ann-moves"
    )
    ledger_services.cash_out(table=t2, player=ann, user=room.user, idempotency_key="ann-out-2")
    return {"ann": ann, "ben": ben, "t1": t1, "t2": t2, "today": timezone.localtime(now, room_zone()).date()}


def test_statement_totals_and_running_chips(evening: dict[str, Any]) -> None:
    ann, today = evening["ann"], evening["today"]
    statement = build_player_statement(ann, ReportFilters(date_from=today, date_to=today))
    assert statement.opening_cents == 0
    assert [line.kind for line in statement.lines] == [
        "buy_in",
        "fee",
        "settlement_payment",
        "settlement_payment",
        "rebuy",
        "table_transfer",
        "table_transfer",
        "cash_out",
    ]
    totals = statement.totals
    assert (totals.buy_ins, totals.rebuys, totals.fees, totals.payoffs) == (20_000, 2_000, -rpt_fee(2), 1_100)
    assert totals.transfers == 0  # out of one table, into the other
    assert totals.cash_outs == -3_000
    # Running chips: each line adds to the previous; the end is what the ledger holds now.
    running = 0
    for line in statement.lines:
        running += line.amount_cents
        assert line.running_cents == running
    chips_now = selectors.player_chips(table=evening["t1"], player=ann) + selectors.player_chips(
        table=evening["t2"], player=ann
    )
    assert statement.closing_cents == chips_now == 20_000 - rpt_fee(2) + 1_100 + 2_000 - 3_000
    last_at_t1 = [line for line in statement.lines if line.table_number == 101][-1]
    assert last_at_t1.table_running_cents == selectors.player_chips(table=evening["t1"], player=ann)


def test_statement_opening_balance_and_filters(evening: dict[str, Any]) -> None:
    ann, today = evening["ann"], evening["today"]
    tomorrow = today + dt.timedelta(days=1)
    later = build_player_statement(ann, ReportFilters(date_from=tomorrow, date_to=tomorrow))
    assert later.lines == []
    assert later.opening_cents == later.closing_cents == 20_000 - rpt_fee(2) + 1_100 + 2_000 - 3_000
    only_t2 = build_player_statement(ann, ReportFilters(date_from=today, date_to=today, tables=(102,)))
    assert [line.kind for line in only_t2.lines] == ["table_transfer", "cash_out"]
    assert only_t2.closing_cents == 0
    other_shifts = [code for code in ShiftCode if code != Shift.current().code]
    elsewhere = build_player_statement(
        ann, ReportFilters(date_from=today, date_to=today, shift=other_shifts[0])
    )
    assert elsewhere.lines == []


def test_journal_running_balances(evening: dict[str, Any]) -> None:
    today = evening["today"]
    journal = build_journal(ReportFilters(date_from=today, date_to=today), limit=1000)
    assert journal.total == JournalTransaction.objects.count()
    assert journal.entries_sum_cents == 0
    running: dict[int, int] = defaultdict(int)
    for txn in journal.transactions:
        assert [entry.line for entry in txn.entries] == list(range(1, len(txn.entries) + 1))
        for entry in txn.entries:
            running[entry.account_id] += entry.amount_cents
            assert entry.balance_after_cents == running[entry.account_id]
    for account in Account.objects.all():
        assert running[account.pk] == account.balance


def test_journal_pages_keep_the_true_running_balance(evening: dict[str, Any]) -> None:
    today = evening["today"]
    filters = ReportFilters(date_from=today, date_to=today)
    whole = {
        (txn.transaction_id, entry.line): entry.balance_after_cents
        for txn in build_journal(filters, limit=1000).transactions
        for entry in txn.entries
    }
    paged: dict[tuple[int, int], int] = {}
    offset = 0
    while True:
        page = build_journal(filters, offset=offset, limit=3)
        if not page.transactions:
            break
        for txn in page.transactions:
            for entry in txn.entries:
                paged[(txn.transaction_id, entry.line)] = entry.balance_after_cents
        offset += 3
    assert paged == whole
    # Filtered to one table, the balances still count the entries the filter hides (the table change).
    only_t2 = build_journal(ReportFilters(date_from=today, date_to=today, tables=(102,)), limit=1000)
    cash_out = next(txn for txn in only_t2.transactions if txn.kind == "cash_out")
    assert cash_out.entries[0].balance_after_cents == 0  # Ann's chips at table 102 after cashing out
    assert cash_out.entries[0].amount_cents == -3_000
    assert all(txn.table_number == 102 for txn in only_t2.transactions)


def test_journal_of_a_past_period(room: ReportRoom, a_past_day: dt.date) -> None:
    """The journal filters by posting time: hands dated in the past but posted today are not in it."""
    table = room.table(103, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B"])
    room.hand(table, players, at=at_local(a_past_day, 10))
    past = build_journal(ReportFilters(date_from=a_past_day, date_to=a_past_day))
    assert past.total == 0
    assert Entry.objects.count() > 0
