"""The integrity report's probes of what only the tables' owner may do: TRUNCATE of the journal and
of the entries, ALTER TABLE ... DISABLE TRIGGER, triggers off for a session.

As the app's least-privilege role (``db_app_role``: the split, or a role made for the test) the
database refuses them all (permission denied), and the report says which role it probed. With owner
rights (a superuser, the tables' owner, an app role someone granted TRUNCATE) they go through, are
rolled back at once, and the report fails, naming the role. PostgreSQL; SQLite has no roles.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.utils import timezone

from backoffice.reports import integrity
from backoffice.reports.integrity import build_integrity_report, check_database_guards
from ledger.models import Account, Entry, JournalTransaction
from tests.factories import ReportRoom

pytestmark = pytest.mark.django_db

ROLE_PROBES = [name for name, _ in integrity._ROLE_PROBES]
TRUNCATES = ["TRUNCATE of the journal", "TRUNCATE of the entries"]
ALTER = "ALTER TABLE ... DISABLE TRIGGER on the entries"
REPLICATION = "Triggers off for a session (session_replication_role)"
GUARD_LINE = "The database refuses edits"
# Under the split the app's connection has no owner rights; .ci/run runs this file as a superuser too.
SPLIT = settings.DATABASE_OWNER["USER"] != settings.DATABASES["default"]["USER"]


@pytest.fixture
def some_postings(room: ReportRoom) -> None:
    table = room.table(121, schedule=room.limit_schedule())
    players = room.seat(table, ["A", "B", "C"])
    hand = room.hand(table, players, at=timezone.now())
    room.settle(hand, [(players[1], players[0], 700)])


def _snapshot() -> tuple[Any, ...]:
    return (
        list(JournalTransaction.objects.order_by("pk").values_list("pk", "hash", "memo")),
        list(Entry.objects.order_by("pk").values_list("pk", "amount")),
        list(Account.objects.order_by("pk").values_list("pk", "balance")),
    )


def _owner_rights() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT r.rolsuper OR pg_has_role(current_user, c.relowner, 'USAGE') FROM pg_roles r, pg_class c "
            "WHERE r.rolname = current_user AND c.oid = 'ledger_entry'::regclass"
        )
        return bool(cursor.fetchone()[0])


@pytest.mark.postgres
def test_the_app_role_is_refused_every_owner_right(some_postings: None, db_app_role: str) -> None:
    before = _snapshot()
    report = build_integrity_report()
    guards = report.guards
    probes = {p.probe: p for p in guards.probes}

    for name in ROLE_PROBES:
        assert probes[name].outcome == "refused", probes[name]
        assert f"role {db_app_role}:" in probes[name].detail
    for name in TRUNCATES:
        assert "permission denied for table" in probes[name].detail
    assert "must be owner of table ledger_entry" in probes[ALTER].detail
    assert 'permission denied to set parameter "session_replication_role"' in probes[REPLICATION].detail
    # The row probes are refused before any trigger: the role holds no UPDATE or DELETE there.
    assert "permission denied for table ledger_entry" in probes["UPDATE of an entry"].detail
    assert guards.role == db_app_role
    assert guards.ok
    assert f"Probed as role {db_app_role}, the role the app connects as: neither a superuser" in " ".join(
        guards.notes
    )
    line = next(check for check in report.checks if check.name == GUARD_LINE)
    assert line.ok
    assert f"(as role {db_app_role})" in line.detail
    assert _snapshot() == before


@pytest.mark.postgres
def test_with_owner_rights_the_probes_go_through_are_undone_and_fail_the_report(some_postings: None) -> None:
    if not _owner_rights():
        pytest.skip(
            "the app's connection has no owner rights (the split): .ci/run also runs this as a superuser"
        )
    before = _snapshot()
    report = build_integrity_report()
    guards = report.guards
    probes = {p.probe: p for p in guards.probes}

    for name in ROLE_PROBES:
        assert probes[name].outcome == "allowed", probes[name]
        assert f"role {guards.role} may do it" in probes[name].detail
    assert guards.role.endswith(("(superuser)", "(owner of the ledger's tables)"))
    assert not guards.ok
    assert not report.ok
    line = next(check for check in report.checks if check.name == GUARD_LINE)
    assert not line.ok
    assert f"(as role {guards.role})" in line.detail
    assert "ALLOWED: TRUNCATE of the journal, TRUNCATE of the entries, ALTER TABLE" in line.detail
    assert "it may truncate the ledger or switch its triggers off" in " ".join(guards.notes)
    # Everything was rolled back: the rows, the trigger, the session's replication role.
    assert _snapshot() == before
    assert JournalTransaction.objects.exists()
    assert all(t.present and t.enabled for t in check_database_guards().triggers)
    with connection.cursor() as cursor:
        cursor.execute("SHOW session_replication_role")
        assert cursor.fetchone()[0] == "origin"


@pytest.mark.postgres
def test_an_app_role_someone_granted_truncate_fails_the_report(
    some_postings: None, db_superuser_cursor: CursorWrapper, db_app_role: str
) -> None:
    """A slip of a DBA's (GRANT ALL to the app's role) is caught: TRUNCATE goes through (rolled
    back); ALTER TABLE still needs the owner."""
    db_superuser_cursor.execute(f'GRANT TRUNCATE ON ALL TABLES IN SCHEMA public TO "{db_app_role}"')
    try:
        before = _snapshot()
        guards = check_database_guards()
        after = _snapshot()
    finally:
        db_superuser_cursor.execute(f'REVOKE TRUNCATE ON ALL TABLES IN SCHEMA public FROM "{db_app_role}"')
    probes = {p.probe: p for p in guards.probes}

    assert [probes[name].outcome for name in TRUNCATES] == ["allowed", "allowed"]
    assert probes[ALTER].outcome == "refused"
    assert not guards.ok
    assert after == before
    assert JournalTransaction.objects.exists()


@pytest.mark.postgres
def test_a_trigger_the_owner_disabled_is_reported(
    some_postings: None, db_superuser_cursor: CursorWrapper, db_app_role: str
) -> None:
    db_superuser_cursor.execute("ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_append_only")
    report = build_integrity_report()

    missing = [t.trigger for t in report.guards.triggers if not (t.present and t.enabled)]
    assert missing == ["ledger_entry_append_only"]
    assert not report.ok
    line = next(check for check in report.checks if check.name == GUARD_LINE)
    assert not line.ok
    assert "missing or disabled: ledger_entry_append_only" in line.detail
    # The app's role still can't change an entry: its privileges refuse it, trigger or not.
    probes = {p.probe: p for p in report.guards.probes}
    assert probes["UPDATE of an entry"].outcome == "refused"
    assert "permission denied" in probes["UPDATE of an entry"].detail


@pytest.mark.postgres
def test_the_app_role_is_refused_at_once_while_the_tables_are_locked(
    some_postings: None, db_superuser_cursor: CursorWrapper, db_app_role: str
) -> None:
    """PostgreSQL checks these rights before it waits for a table's lock: the probes of a role
    without them are refused without waiting (so the report never holds up postings)."""
    db_superuser_cursor.execute("BEGIN")
    db_superuser_cursor.execute("LOCK TABLE ledger_journaltransaction, ledger_entry IN ROW EXCLUSIVE MODE")
    try:
        guards = check_database_guards()
    finally:
        db_superuser_cursor.execute("ROLLBACK")
    probes = {p.probe: p for p in guards.probes}
    for name in ROLE_PROBES:
        assert probes[name].outcome == "refused"  # a wait would have timed out: "allowed", "waited"
        assert "permission denied" in probes[name].detail or "must be owner" in probes[name].detail


@pytest.mark.postgres
@pytest.mark.skipif(SPLIT, reason="the app's connection has no owner rights under the split")
def test_a_role_with_owner_rights_that_waits_for_a_lock_fails_the_report(
    some_postings: None, db_superuser_cursor: CursorWrapper
) -> None:
    if not _owner_rights():
        pytest.skip(
            "the app's connection has no owner rights (the split): .ci/run also runs this as a superuser"
        )
    db_superuser_cursor.execute("BEGIN")
    db_superuser_cursor.execute("LOCK TABLE ledger_journaltransaction, ledger_entry IN ROW EXCLUSIVE MODE")
    try:
        guards = check_database_guards()
    finally:
        db_superuser_cursor.execute("ROLLBACK")
    probes = {p.probe: p for p in guards.probes}
    for name in [*TRUNCATES, ALTER]:
        assert probes[name].outcome == "allowed"
        assert "it waited for the table's lock" in probes[name].detail
    assert not guards.ok


def test_sqlite_has_no_roles_to_probe(db: None) -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    guards = check_database_guards()
    assert guards.role == ""
    assert not {p.probe for p in guards.probes} & set(ROLE_PROBES)
    assert any(note.startswith("SQLite has no roles") for note in guards.notes)
    assert guards.ok
