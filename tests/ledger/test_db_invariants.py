"""What the database itself refuses, whatever the code does (raw SQL, bypassing the services)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from ledger import services
from ledger.models import Account, Entry, JournalTransaction, ReportExport, ReportKind, ShiftClose
from tables.models import Player, Table

postgres = pytest.mark.postgres


@pytest.fixture
def posted(db: None, table: Table, alice: Player, cashier) -> JournalTransaction:
    return services.buy_in(
        table=table, player=alice, amount=1_000, user=cashier, idempotency_key="in"
    ).transaction


def refused(sql: str, params: list[object]) -> str:
    """Run ``sql`` in a savepoint; it must be refused by the database. Returns the error text."""
    with pytest.raises(IntegrityError) as error, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
    return str(error.value)


def insert_transaction(*, key: str, chain: str = "tampered", sequence: int = 1) -> int:
    """A journal transaction row inserted by raw SQL (no entries)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_journaltransaction (kind, table_id, hand_id, created_by_id, created_at, "
            "memo, idempotency_key, request_digest, reverses_id, chain, sequence, prev_hash, hash) "
            "VALUES (%s, NULL, NULL, NULL, %s, '', %s, '', NULL, %s, %s, %s, %s) RETURNING id",
            ["fee", timezone.now(), key, chain, sequence, "0" * 64, key.ljust(64, "0")[:64]],
        )
        return int(cursor.fetchone()[0])


def insert_entry(*, transaction_id: int, account_id: int, line: int, amount: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_entry (transaction_id, account_id, line, amount) VALUES (%s, %s, %s, %s)",
            [transaction_id, account_id, line, amount],
        )


def run_deferred_checks() -> None:
    """Run the pending deferred checks now, as COMMIT would (tests never commit)."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")


# --- append-only, on both databases -------------------------------------------------------------------


@pytest.mark.tamper
@pytest.mark.django_db
def test_journal_transactions_cannot_be_updated_or_deleted(posted: JournalTransaction) -> None:
    message = refused("UPDATE ledger_journaltransaction SET memo = %s WHERE id = %s", ["edited", posted.pk])
    assert "append-only" in message
    refused("DELETE FROM ledger_journaltransaction WHERE id = %s", [posted.pk])
    assert JournalTransaction.objects.get(pk=posted.pk).memo == ""


@pytest.mark.tamper
@pytest.mark.django_db
def test_entries_cannot_be_updated_or_deleted(posted: JournalTransaction) -> None:
    entry = posted.entries.first()
    assert entry is not None
    assert "append-only" in refused("UPDATE ledger_entry SET amount = amount * 2 WHERE id = %s", [entry.pk])
    refused("DELETE FROM ledger_entry WHERE transaction_id = %s", [posted.pk])
    assert Entry.objects.filter(transaction=posted).count() == 2


@pytest.mark.tamper
@pytest.mark.django_db
def test_accounts_keep_their_identity_and_are_never_deleted(
    posted: JournalTransaction, table: Table, alice: Player, bob: Player
) -> None:
    chips = services.player_account(table=table, player=alice)
    refused("UPDATE ledger_account SET player_id = %s WHERE id = %s", [bob.pk, chips.pk])
    refused("UPDATE ledger_account SET kind = %s WHERE id = %s", ["cage", chips.pk])
    refused("DELETE FROM ledger_account WHERE id = %s", [chips.pk])
    # The balance is the one column a posting updates.
    with connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_account SET balance = balance WHERE id = %s", [chips.pk])


@pytest.mark.tamper
@pytest.mark.django_db
def test_a_shift_close_s_sealed_zip_and_the_exports_stay_as_recorded() -> None:
    """Migration 0009 added the sealed zip's column and rebuilt the exports' table on SQLite: the
    append-only triggers still hold on both."""
    close = ShiftClose.objects.create(
        shift_date=dt.date(2030, 1, 2),
        shift_code="day",
        report={},
        report_sha256="0" * 64,
        export_zip=b"PK\x03\x04 sealed",
        export_sha256="1" * 64,
        software_version="casino",
    )
    message = refused("UPDATE ledger_shiftclose SET export_zip = %s WHERE id = %s", [b"PK other", close.pk])
    assert "append-only" in message
    refused("DELETE FROM ledger_shiftclose WHERE id = %s", [close.pk])
    assert bytes(ShiftClose.objects.get(pk=close.pk).export_zip) == b"PK\x03\x04 sealed"
    export = ReportExport.objects.create(kind=ReportKind.DEALER_DOWNS, format="csv")
    assert "append-only" in refused("DELETE FROM ledger_reportexport WHERE id = %s", [export.pk])


@pytest.mark.django_db
def test_an_export_s_kind_is_one_the_reports_know() -> None:
    ReportExport.objects.create(kind="dealer_downs", format="pdf")
    assert "ledger_export_kind_valid" in refused(
        "INSERT INTO ledger_reportexport (kind, format, params, status, requested_at, attempts, filename, "
        "sha256, size, error, software_version) VALUES ('no_such_report', 'csv', '{}', 'pending', %s, 0, "
        "'', '', 0, '', '')",
        [timezone.now()],
    )


@pytest.mark.django_db
def test_a_players_chips_never_go_below_zero_in_the_database(
    posted: JournalTransaction, table: Table, alice
) -> None:
    chips = services.player_account(table=table, player=alice)
    refused("UPDATE ledger_account SET balance = -1 WHERE id = %s", [chips.pk])
    cage = services.cage_account(table=table)
    with connection.cursor() as cursor:  # other kinds may be negative: the cage is, after a buy-in
        cursor.execute("UPDATE ledger_account SET balance = balance WHERE id = %s", [cage.pk])
    assert Account.objects.get(pk=cage.pk).balance == -1_000


@pytest.mark.django_db
def test_each_account_identity_exists_once(posted: JournalTransaction, table: Table, alice: Player) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(kind="player_chips", table=table, player=alice)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(kind="cage", table=table)
    with pytest.raises(IntegrityError), transaction.atomic():  # shape: a cage has no player
        Account.objects.create(kind="cage", table=table, player=alice)


@pytest.mark.django_db
def test_zero_entries_and_second_reversals_are_refused_by_the_database(posted: JournalTransaction) -> None:
    entry = posted.entries.first()
    assert entry is not None
    refused(
        "INSERT INTO ledger_entry (transaction_id, account_id, line, amount) VALUES (%s, %s, 99, 0)",
        [posted.pk, entry.account_id],
    )
    reversal = services.reverse(
        transaction=posted, user=None, reason="test", idempotency_key="rev"
    ).transaction
    with pytest.raises(IntegrityError), transaction.atomic():
        JournalTransaction.objects.create(
            kind="reversal",
            reverses=posted,
            created_at=timezone.now(),
            idempotency_key="rev-2",
            request_digest="",
            chain="forged",
            sequence=1,
            prev_hash="0" * 64,
            hash="f" * 64,
        )
    assert JournalTransaction.objects.get(reverses=posted) == reversal


# --- the deferred sum-to-zero trigger (PostgreSQL) ---------------------------------------------------------


def insert_raw(entries: list[tuple[int, int]], *, key: str, check_now: bool) -> None:
    """Insert a journal transaction and ``entries`` (account id, amount) by raw SQL, in one atomic
    block: committed at its end when it is the outermost block, else (in a test's transaction) with
    the deferred checks run right away when ``check_now``, as COMMIT would run them."""
    with transaction.atomic():
        txn_id = insert_transaction(key=key)
        for line, (account_id, amount) in enumerate(entries, start=1):
            insert_entry(transaction_id=txn_id, account_id=account_id, line=line, amount=amount)
        if check_now:
            run_deferred_checks()


@postgres
@pytest.mark.django_db
def test_postgres_refuses_an_unbalanced_transaction_at_commit_time(
    posted: JournalTransaction, table: Table, alice: Player
) -> None:
    chips = services.player_account(table=table, player=alice)
    cage = services.cage_account(table=table)
    with pytest.raises(IntegrityError, match="summing to -1"):
        insert_raw([(chips.pk, -100), (cage.pk, 99)], key="unbalanced", check_now=True)
    assert not JournalTransaction.objects.filter(idempotency_key="unbalanced").exists()


@postgres
@pytest.mark.django_db
def test_postgres_refuses_a_transaction_with_one_entry(posted: JournalTransaction, table: Table) -> None:
    cage = services.cage_account(table=table)
    with pytest.raises(IntegrityError, match="1 entries"):
        insert_raw([(cage.pk, 5)], key="lonely", check_now=True)


@postgres
@pytest.mark.django_db
def test_postgres_accepts_balanced_postings_at_commit_time(
    posted: JournalTransaction, table: Table, alice: Player, bob: Player
) -> None:
    services.buy_in(table=table, player=bob, amount=500, user=None, idempotency_key="bob-in")
    services.cash_out(table=table, player=alice, user=None, idempotency_key="alice-out")
    run_deferred_checks()  # every pending deferred check runs: no error
    chips = services.player_account(table=table, player=bob)
    cage = services.cage_account(table=table)
    insert_raw([(chips.pk, 100), (cage.pk, -100)], key="balanced-raw", check_now=True)


@postgres
@pytest.mark.django_db(transaction=True)
def test_postgres_commit_of_an_unbalanced_transaction_fails_and_leaves_nothing(
    table: Table, alice: Player
) -> None:
    services.buy_in(table=table, player=alice, amount=1_000, user=None, idempotency_key="in")
    chips = services.player_account(table=table, player=alice)
    cage = services.cage_account(table=table)
    with pytest.raises(IntegrityError, match="at least 2 entries summing to zero"):
        insert_raw([(chips.pk, -100), (cage.pk, 50)], key="unbalanced", check_now=False)  # a real COMMIT
    assert not JournalTransaction.objects.filter(idempotency_key="unbalanced").exists()
    assert JournalTransaction.objects.count() == 1
