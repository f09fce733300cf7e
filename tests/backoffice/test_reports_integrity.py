"""The integrity report: verify_ledger's checks summarized, the database's triggers present and
enabled, and the database really refusing edits (probes always rolled back)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from backoffice.reports.integrity import EXPECTED_TRIGGERS, build_integrity_report, check_database_guards
from ledger.models import Account, Entry, JournalTransaction
from tests.factories import ReportRoom

pytestmark = pytest.mark.django_db


@pytest.fixture
def some_postings(room: ReportRoom) -> None:
    table = room.table(111, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C"])
    hand = room.hand(table, players, at=timezone.now())
    room.settle(hand, [(players[1], players[0], 700)])
    room.misdeal(room.hand(table, players, at=timezone.now(), settled=False))


def _snapshot() -> tuple[Any, ...]:
    return (
        list(JournalTransaction.objects.order_by("pk").values_list("pk", "hash", "memo")),
        list(Entry.objects.order_by("pk").values_list("pk", "amount")),
        list(Account.objects.order_by("pk").values_list("pk", "balance")),
    )


def test_a_sound_ledger_and_its_guards(some_postings: None) -> None:
    before = _snapshot()
    report = build_integrity_report()
    assert _snapshot() == before  # the probes changed nothing
    assert report.ok
    assert [check.ok for check in report.checks] == [True, True, True, True]
    assert report.ledger["transactions"] == JournalTransaction.objects.count()
    guards = report.guards
    assert guards.vendor == connection.vendor
    assert {t.trigger for t in guards.triggers} == {name for _, name in EXPECTED_TRIGGERS[connection.vendor]}
    assert all(t.present and t.enabled for t in guards.triggers)
    outcomes = {p.probe: p.outcome for p in guards.probes}
    for probe in (
        "UPDATE of a journal transaction",
        "DELETE of a journal transaction",
        "UPDATE of an entry",
        "DELETE of an entry",
        "DELETE of an account",
    ):
        assert outcomes[probe] == "refused", guards.probes
    assert outcomes["UPDATE of a drop count"] == "untested"  # no drop count to try it on
    if connection.vendor == "postgresql":
        assert outcomes["INSERT of an entry that unbalances its transaction"] == "refused"
    refused = next(p for p in guards.probes if p.probe == "UPDATE of an entry")
    assert "append-only" in refused.detail


def test_an_empty_ledger_is_untested_not_failed(db: None) -> None:
    guards = check_database_guards()
    assert guards.ok
    assert {p.outcome for p in guards.probes} == {"untested"}


def test_a_dropped_trigger_is_reported_and_the_edit_it_let_through_undone(some_postings: None) -> None:
    before = _snapshot()
    with connection.cursor() as cursor:  # undone when the test's transaction rolls back
        if connection.vendor == "postgresql":
            # Fire the deferred balance checks now: PostgreSQL refuses ALTER TABLE while
            # trigger events are pending in the transaction.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_append_only")
        else:
            cursor.execute("DROP TRIGGER ledger_entry_no_update")
    report = build_integrity_report()
    assert not report.ok
    guard_line = report.checks[-1]
    assert (guard_line.name, guard_line.ok) == ("The database refuses edits", False)
    outcomes = {p.probe: p.outcome for p in report.guards.probes}
    assert outcomes["UPDATE of an entry"] == "allowed"
    assert _snapshot() == before  # the allowed probe was rolled back at once
    missing = [t.trigger for t in report.guards.triggers if not (t.present and t.enabled)]
    assert missing == [
        "ledger_entry_append_only" if connection.vendor == "postgresql" else "ledger_entry_no_update"
    ]


def test_a_broken_balance_fails_its_line(some_postings: None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE ledger_account SET balance = balance + 5 WHERE id = (SELECT MIN(id) FROM ledger_account)"
        )
    report = build_integrity_report()
    lines = {check.name: check for check in report.checks}
    assert not lines["Every balance equals the sum of its entries"].ok
    assert "balance_mismatch" in lines["Every balance equals the sum of its entries"].detail
    assert not lines[
        "Every transaction's entries sum to zero (and all balances together)"
    ].ok  # ledger_not_zero
    assert lines["The hash chains verify"].ok
    assert not report.ok


@pytest.mark.postgres
def test_a_tampered_row_breaks_the_chain_line(some_postings: None) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending trigger events before ALTER
        cursor.execute(
            "ALTER TABLE ledger_journaltransaction DISABLE TRIGGER ledger_journaltransaction_append_only"
        )
        cursor.execute(
            "UPDATE ledger_journaltransaction SET memo = 'edited' "
            "WHERE id = (SELECT MIN(id) FROM ledger_journaltransaction)"
        )
        cursor.execute(
            "ALTER TABLE ledger_journaltransaction ENABLE TRIGGER ledger_journaltransaction_append_only"
        )
    report = build_integrity_report()
    lines = {check.name: check for check in report.checks}
    assert not lines["The hash chains verify"].ok
    assert "hash_mismatch" in lines["The hash chains verify"].detail
    assert lines["The database refuses edits"].ok
