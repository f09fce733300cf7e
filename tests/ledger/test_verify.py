"""verify_ledger (service and command): passes on a sound ledger, names what was altered behind its back."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from ledger import services
from ledger.models import ChainHead, Entry, JournalTransaction
from ledger.shifts import Shift, ShiftCode
from ledger.verification import verify_ledger
from tables.models import Hand, Player, Table

pytestmark = pytest.mark.django_db

SHIFT = Shift(business_date=dt.date(2030, 1, 2), code=ShiftCode.DAY)


@pytest.fixture
def book(
    table: Table, other_table: Table, hand: Hand, alice: Player, bob: Player, cashier
) -> dict[str, object]:
    """A small but complete ledger: buy-ins at two tables, fees, a settlement, a reversal, a cash-out."""
    services.buy_in(table=table, player=alice, amount=10_000, user=cashier, idempotency_key="a-in")
    services.buy_in(table=table, player=bob, amount=10_000, user=cashier, idempotency_key="b-in")
    services.buy_in(table=other_table, player=alice, amount=500, user=cashier, idempotency_key="a-in-2")
    fees = services.collect_fees(
        table=table,
        hand=hand,
        shift=SHIFT,
        fees=[(alice, 200), (bob, 100)],
        user=cashier,
        idempotency_key="fees",
    )
    settle = services.post_payments(
        table=table, hand=hand, payments=[(bob, alice, 1_200)], user=cashier, idempotency_key="settle"
    )
    assert fees is not None
    assert settle is not None
    reversal = services.reverse(
        transaction=fees.transaction, user=cashier, reason="misdeal", idempotency_key="fees-back"
    ).transaction
    services.cash_out(table=table, player=alice, amount=3_000, user=cashier, idempotency_key="a-out")
    # As at COMMIT: PostgreSQL's deferred checks run now, so the tampering below happens to a
    # committed-like ledger (and ALTER TABLE finds no pending trigger events).
    run_deferred_checks()
    return {"fees": fees.transaction, "settle": settle.transaction, "reversal": reversal}


def run_deferred_checks() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")


@contextmanager
def triggers_off() -> Iterator[None]:
    """Switch the append-only triggers off, as someone with direct database access could. On
    PostgreSQL by the replication role (superuser); on SQLite by dropping them (the test's transaction
    rolls the DDL back)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
            try:
                yield
            finally:
                cursor.execute("SET LOCAL session_replication_role = DEFAULT")
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ledger%%'")
            for (name,) in cursor.fetchall():
                cursor.execute(f'DROP TRIGGER "{name}"')
            yield


def tamper(sql: str, params: list[object]) -> None:
    with triggers_off(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def codes(report_problems: list[object]) -> set[str]:
    return {problem.code for problem in report_problems}  # type: ignore[attr-defined]


def test_a_sound_ledger_verifies(book: dict[str, object]) -> None:
    report = verify_ledger()
    assert report.ok, report.problems
    assert report.transactions == JournalTransaction.objects.count() == 7
    assert report.entries == Entry.objects.count()
    assert report.chains == 2
    assert report.as_dict()["ok"] is True


def test_the_command_prints_a_summary_and_exits_zero(book: dict[str, object]) -> None:
    out = StringIO()
    call_command("verify_ledger", stdout=out)
    assert "ledger OK: 2 chain(s), 7 transaction(s)" in out.getvalue()


@pytest.mark.tamper
def test_an_altered_amount_is_caught_and_named(book: dict[str, object]) -> None:
    settle: JournalTransaction = book["settle"]  # type: ignore[assignment]
    entry = settle.entries.order_by("line").first()
    assert entry is not None
    tamper("UPDATE ledger_entry SET amount = amount - 1 WHERE id = %s", [entry.pk])

    report = verify_ledger()

    assert not report.ok
    named = {(p.code, p.transaction_id) for p in report.problems}
    assert ("hash_mismatch", settle.pk) in named
    assert ("unbalanced", settle.pk) in named
    assert ("balance_mismatch", None) in {(p.code, p.transaction_id) for p in report.problems}
    assert {p.account_id for p in report.problems if p.code == "balance_mismatch"} == {entry.account_id}
    # Nothing else is blamed: the chain links still hold.
    assert {p.transaction_id for p in report.problems if p.transaction_id} == {settle.pk}


@pytest.mark.tamper
def test_the_command_fails_naming_the_altered_transaction(book: dict[str, object]) -> None:
    settle: JournalTransaction = book["settle"]  # type: ignore[assignment]
    tamper("UPDATE ledger_journaltransaction SET memo = %s WHERE id = %s", ["edited later", settle.pk])
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("verify_ledger", stdout=out, stderr=err)
    assert f"[hash_mismatch] transaction {settle.pk} " in err.getvalue()
    assert "FAILED" in out.getvalue()


@pytest.mark.tamper
@pytest.mark.postgres
def test_postgres_rows_altered_with_triggers_disabled_are_caught(book: dict[str, object]) -> None:
    """The brief's scenario, literally: ALTER TABLE ... DISABLE TRIGGER ALL, alter, re-enable."""
    fees: JournalTransaction = book["fees"]  # type: ignore[assignment]
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ledger_entry DISABLE TRIGGER ALL")
        cursor.execute("UPDATE ledger_entry SET amount = amount * 10 WHERE transaction_id = %s", [fees.pk])
        cursor.execute("ALTER TABLE ledger_entry ENABLE TRIGGER ALL")
    report = verify_ledger()
    assert ("hash_mismatch", fees.pk) in {(p.code, p.transaction_id) for p in report.problems}
    # The reversal no longer mirrors what it reversed.
    reversal: JournalTransaction = book["reversal"]  # type: ignore[assignment]
    assert ("reversal_mismatch", reversal.pk) in {(p.code, p.transaction_id) for p in report.problems}


@pytest.mark.tamper
def test_a_deleted_transaction_breaks_the_chain(book: dict[str, object]) -> None:
    settle: JournalTransaction = book["settle"]  # type: ignore[assignment]
    tamper("DELETE FROM ledger_entry WHERE transaction_id = %s", [settle.pk])
    tamper("DELETE FROM ledger_journaltransaction WHERE id = %s", [settle.pk])
    report = verify_ledger()
    following = JournalTransaction.objects.get(chain=settle.chain, sequence=settle.sequence + 1)
    found = {(p.code, p.transaction_id) for p in report.problems}
    assert ("chain_gap", following.pk) in found
    assert ("chain_broken", following.pk) in found


def test_a_drifted_cached_balance_is_caught(book: dict[str, object], table: Table, bob: Player) -> None:
    chips = services.player_account(table=table, player=bob)
    with connection.cursor() as cursor:  # balance updates are not blocked by a trigger, only checked
        cursor.execute("UPDATE ledger_account SET balance = balance + 5 WHERE id = %s", [chips.pk])
    report = verify_ledger()
    assert codes(report.problems) == {"balance_mismatch", "ledger_not_zero"}
    assert [p.account_id for p in report.problems if p.code == "balance_mismatch"] == [chips.pk]


def test_a_moved_chain_head_is_caught(book: dict[str, object], table: Table) -> None:
    ChainHead.objects.filter(chain=f"table:{table.pk}").update(sequence=1)
    report = verify_ledger()
    assert codes(report.problems) == {"head_mismatch"}
    assert report.problems[0].chain == f"table:{table.pk}"


def test_an_unbalanced_row_inserted_behind_the_service_is_caught(
    book: dict[str, object], table: Table
) -> None:
    """On SQLite (no deferred trigger) this is the only net; on PostgreSQL the commit would refuse it
    too, so the forged rows are rolled back before the test's end runs the deferred checks."""
    with transaction.atomic():
        txn = JournalTransaction.objects.create(
            kind="fee",
            table=table,
            created_at=dt.datetime(2030, 1, 2, tzinfo=dt.UTC),
            idempotency_key="forged",
            request_digest="",
            chain="forged",
            sequence=1,
            prev_hash="0" * 64,
            hash="e" * 64,
        )
        Entry.objects.create(transaction=txn, account=services.cage_account(table=table), line=1, amount=7)
        found = {(p.code, p.transaction_id) for p in verify_ledger().problems}
        transaction.set_rollback(True)
    assert {("too_few_entries", txn.pk), ("unbalanced", txn.pk), ("hash_mismatch", txn.pk)} <= found
