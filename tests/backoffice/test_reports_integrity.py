"""The integrity report: verify_ledger's checks summarized, the database's triggers present and
enabled, and the database really refusing edits (probes always rolled back)."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.utils import timezone

from backoffice.closing import run_integrity_check
from backoffice.reports.integrity import EXPECTED_TRIGGERS, build_integrity_report, check_database_guards
from ledger.models import Account, Entry, JournalTransaction
from tables.models import HandPlayer
from tests.factories import ReportRoom
from tests.ledger.forgery import rechain, sql, triggers_off

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


def test_a_sound_ledger_and_its_guards(some_postings: None, as_the_app_role: None) -> None:
    before = _snapshot()
    report = build_integrity_report()
    assert _snapshot() == before  # the probes changed nothing
    assert report.ok
    assert [check.ok for check in report.checks] == [True] * 6
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
    refused = next(p for p in guards.probes if p.probe == "UPDATE of an entry")
    if connection.vendor == "postgresql":
        assert outcomes["INSERT of an entry that unbalances its transaction"] == "refused"
        # The app's role holds no UPDATE there: refused before any trigger, row or no row.
        assert outcomes["UPDATE of a drop count"] == "refused"
        assert "permission denied" in refused.detail
    else:
        assert outcomes["UPDATE of a drop count"] == "untested"  # no drop count to try it on
        assert "append-only" in refused.detail


def test_an_empty_ledger_is_untested_not_failed(db: None, as_the_app_role: None) -> None:
    guards = check_database_guards()
    assert guards.ok
    outcomes = {p.probe: p.outcome for p in guards.probes}
    if connection.vendor == "postgresql":  # the app's role is refused the edits outright
        assert outcomes.pop("INSERT of an entry that unbalances its transaction") == "untested"
        assert set(outcomes.values()) == {"refused"}
    else:
        assert set(outcomes.values()) == {"untested"}


def test_a_dropped_trigger_is_reported_and_the_edit_it_let_through_undone(some_postings: None) -> None:
    if settings.DATABASE_OWNER["USER"] != settings.DATABASES["default"]["USER"]:
        pytest.skip("the app's role can't disable a trigger: test_guard_probes.py has the owner do it")
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
def test_a_tampered_row_breaks_the_chain_line(
    some_postings: None, db_superuser_cursor: CursorWrapper, db_app_role: str
) -> None:
    cursor = db_superuser_cursor  # someone with the database's own rights; the report runs as the app
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


@pytest.mark.tamper
def test_the_anchor_and_hand_lines_fail_on_their_own_problems(
    table_with_players: Any, deal_hand: Any, settle_hand: Any
) -> None:
    table, _ = table_with_players(3)
    hand = settle_hand(deal_hand(table))
    run_integrity_check()  # stores the heads it saw, signed
    lines = {check.name: check for check in build_integrity_report().checks}
    assert lines["The published chain heads still match (signed anchors)"].ok
    assert lines["The published chain heads still match (signed anchors)"].detail == "1 anchor(s), 1 head(s)"
    assert lines["Every settled hand agrees with its postings and every fee with its schedule"].detail == (
        "1 hand(s)"
    )

    HandPlayer.objects.filter(hand=hand, position=1).update(fee_cents=0)
    first = JournalTransaction.objects.order_by("pk").first()
    assert first is not None
    with triggers_off():
        sql("UPDATE ledger_journaltransaction SET memo = 'edited' WHERE id = %s", [first.pk])
        rechain(first.chain, key=b"x" * 32)
    lines = {check.name: check for check in build_integrity_report().checks}
    anchors_line = lines["The published chain heads still match (signed anchors)"]
    hands_line = lines["Every settled hand agrees with its postings and every fee with its schedule"]
    assert (anchors_line.ok, anchors_line.detail) == (False, "1 problem(s): anchor_mismatch")
    assert not hands_line.ok
    assert "fee_schedule_mismatch" in hands_line.detail
    assert "hash_mismatch" in lines["The hash chains verify"].detail
