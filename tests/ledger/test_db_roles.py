"""Least privilege for the app's database role (ledger/db_privileges.py, ``manage.py db_roles``).

The policy is checked everywhere (it needs only the models); on PostgreSQL the role the tests act as
the app with (``db_app_role``: the split's app role, or on a plain superuser run a role made for the
test and granted the same rights) is shown to hold exactly those rights, and to be refused what only
the owner may do: TRUNCATE, ALTER TABLE ... DISABLE TRIGGER, changing the journal.
"""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction
from django.db.backends.utils import CursorWrapper

from ledger import services
from ledger.db_privileges import (
    ALL_RIGHTS,
    APPEND_RIGHTS,
    NO_DELETE_RIGHTS,
    READ_RIGHTS,
    RECORD_MODELS,
    RECORD_TABLES,
    PrivilegeError,
    app_table_rights,
    grant_app_privileges,
    grant_statements,
    model_tables,
    privilege_differences,
)
from ledger.models import AppendOnlyModel, JournalTransaction
from tables.models import Player, Table

ROOT = Path(__file__).resolve().parents[2]


# --- The policy, from the models -------------------------------------------------------------------


def test_every_append_only_model_is_append_only_for_the_app() -> None:
    rights = app_table_rights(model_tables())
    append_only = {
        "ledger_journaltransaction",
        "ledger_entry",
        *(model._meta.db_table for model in AppendOnlyModel.__subclasses__()),
        "tables_configchange",
        "tables_waitinglistevent",
        "tables_playermerge",
        "tables_playeridentification",
    }
    assert {table for table, held in rights.items() if held == APPEND_RIGHTS} == append_only
    # A new append-only record model must be listed, so the report expects its trigger too.
    assert set(AppendOnlyModel.__subclasses__()) == set(RECORD_MODELS)
    assert set(RECORD_TABLES) <= append_only
    assert {table for table, held in rights.items() if held == NO_DELETE_RIGHTS} == {
        "ledger_account",
        "ledger_chainhead",
        "ledger_reportexport",
    }
    assert rights["tables_table"] == rights["auth_user_groups"] == rights["django_session"] == ALL_RIGHTS


def test_migrations_are_read_only_and_unknown_tables_get_the_default_privileges() -> None:
    rights = app_table_rights(["django_migrations", "made_by_hand", "tables_hand"])
    assert rights == {
        "django_migrations": READ_RIGHTS,
        "made_by_hand": APPEND_RIGHTS,
        "tables_hand": ALL_RIGHTS,
    }


def test_the_grants_never_give_truncate_references_or_trigger() -> None:
    statements = grant_statements(app="casino_app", tables=model_tables(), database="casino")
    text = "\n".join(statements)
    for right in ("TRUNCATE", "REFERENCES", "TRIGGER", "ALL PRIVILEGES", "WITH GRANT OPTION"):
        assert right not in text
    assert statements[3:5] == [  # idempotent: what was granted before goes first
        'REVOKE ALL ON ALL TABLES IN SCHEMA public FROM "casino_app"',
        'REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM "casino_app"',
    ]
    # Row locks on the two append-only tables the app locks FOR UPDATE: UPDATE of the id column only.
    assert 'GRANT UPDATE ("id") ON TABLE "ledger_dropcount", "ledger_journaltransaction" TO "casino_app"' in (
        statements
    )
    assert (
        'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT ON TABLES TO "casino_app"'
        in statements
    )


# --- The set-up SQL and the command ----------------------------------------------------------------


def test_the_shipped_sql_file_is_what_the_command_prints() -> None:
    out = StringIO()
    call_command(
        "db_roles",
        "setup",
        "--owner",
        "casino_owner",
        "--app",
        "casino_app",
        "--database-name",
        "casino",
        stdout=out,
    )
    assert (ROOT / "ledger" / "sql" / "roles.sql").read_text() == out.getvalue()
    sql = out.getvalue()
    assert 'ALTER ROLE "casino_app" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE' in sql
    assert 'ALTER DATABASE "casino" OWNER TO "casino_owner";' in sql
    assert "REVOKE CREATE ON SCHEMA public FROM PUBLIC;" in sql
    assert 'REVOKE "casino_owner" FROM "casino_app";' in sql
    assert "PASSWORD" not in sql  # passwords come only with the roles' own URLs
    assert sql.count("BEGIN;") == sql.count("COMMIT;") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--owner", "casino", "--app", "casino"], "two roles"),
        (["--owner", "Casino-Owner", "--app", "casino_app"], "not a plain lower-case name"),
        (["--owner", "casino_owner", "--app", "x'; DROP TABLE ledger_entry; --"], "not a plain lower-case"),
    ],
)
def test_setup_refuses_one_role_for_both_and_names_it_cannot_use(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("db_roles", "setup", *args, "--database-name", "casino", stdout=StringIO())


def test_setup_takes_the_roles_and_passwords_from_the_two_urls() -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k != "DATABASE_OWNER_URL"},
        "DATABASE_URL": "postgres://card_app:app%27s-pw@127.0.0.1:5432/cardroom",
        "DATABASE_OWNER_URL": "postgres://card_owner:owner-pw@127.0.0.1:6432/cardroom",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "db_roles", "setup"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert 'CREATE ROLE "card_owner";' in result.stdout
    assert 'CREATE ROLE "card_app";' in result.stdout
    assert "ALTER ROLE \"card_app\" PASSWORD 'app''s-pw';" in result.stdout
    assert 'ALTER DATABASE "cardroom" OWNER TO "card_owner";' in result.stdout


def test_an_owner_url_for_another_database_fails_at_start() -> None:
    env = {
        **os.environ,
        "DATABASE_URL": "postgres://card_app@127.0.0.1:5432/cardroom",
        "DATABASE_OWNER_URL": "postgres://card_owner@127.0.0.1:5432/elsewhere",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "DATABASE_OWNER_URL must name the database DATABASE_URL names ('cardroom'), not 'elsewhere'" in (
        result.stderr
    )


# --- On PostgreSQL: what the app's role holds, and what it is refused ------------------------------


@pytest.mark.postgres
def test_the_app_role_holds_exactly_its_rights(db_app_role: str) -> None:
    with connection.cursor() as cursor:
        assert privilege_differences(cursor, app=db_app_role) == []
        cursor.execute("SELECT current_user")
        assert cursor.fetchone()[0] == db_app_role
    out = StringIO()
    call_command("db_roles", "check", stdout=out)
    assert f"OK: role {db_app_role!r} holds exactly the app's rights" in out.getvalue()


@pytest.mark.postgres
def test_check_names_every_right_a_superuser_holds_beyond_the_app(db: None) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolname FROM pg_roles WHERE rolsuper LIMIT 1")
        superuser = cursor.fetchone()[0]
        differences = privilege_differences(cursor, app=superuser)
    assert differences[0].endswith("is a superuser: it may do anything, triggers off included")
    assert (
        f"ledger_entry: role {superuser!r} holds DELETE, REFERENCES, TRIGGER, TRUNCATE, UPDATE it should not"
        in (differences)
    )


@pytest.fixture
def posted(table: Table, alice: Player) -> JournalTransaction:
    return services.buy_in(
        table=table, player=alice, amount=1_000, user=None, idempotency_key="roles-in"
    ).transaction


REFUSED = [
    ("TRUNCATE ledger_journaltransaction CASCADE", "permission denied for table ledger_journaltransaction"),
    ("TRUNCATE ledger_entry", "permission denied for table ledger_entry"),
    (
        "ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_append_only",
        "must be owner of table ledger_entry",
    ),
    ("ALTER TABLE ledger_entry DISABLE TRIGGER USER", "must be owner of table ledger_entry"),
    ("SET LOCAL session_replication_role = replica", "permission denied to set parameter"),
    (
        "UPDATE ledger_journaltransaction SET memo = 'edited'",
        "permission denied for table ledger_journaltransaction",
    ),
    ("DELETE FROM ledger_journaltransaction", "permission denied for table ledger_journaltransaction"),
    ("UPDATE ledger_entry SET amount = amount + 1", "permission denied for table ledger_entry"),
    ("DELETE FROM ledger_entry", "permission denied for table ledger_entry"),
    ("DELETE FROM ledger_account", "permission denied for table ledger_account"),
    ("UPDATE ledger_shiftclose SET report_sha256 = ''", "permission denied for table ledger_shiftclose"),
    ("DELETE FROM django_migrations", "permission denied for table django_migrations"),
    ("DROP TABLE ledger_entry", "must be owner of table ledger_entry"),
    ("CREATE TABLE intruder (id int)", "permission denied for schema public"),
    # The one column the app may UPDATE on the journal (to lock rows): the trigger refuses it.
    ("UPDATE ledger_journaltransaction SET id = id", "ledger rows are append-only"),
]


@pytest.mark.postgres
@pytest.mark.parametrize(("sql", "message"), REFUSED, ids=[sql for sql, _ in REFUSED])
def test_the_app_role_is_refused(
    posted: JournalTransaction, db_app_role: str, sql: str, message: str
) -> None:
    with pytest.raises(DatabaseError, match=message), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)
    assert JournalTransaction.objects.filter(pk=posted.pk, memo=posted.memo).exists()


@pytest.mark.postgres
def test_the_app_role_updates_balances_and_locks_journal_rows(
    posted: JournalTransaction, db_app_role: str
) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE ledger_account SET balance = balance WHERE id IN (SELECT account_id FROM ledger_entry)"
        )
        assert cursor.rowcount == 2
        cursor.execute("SELECT id FROM ledger_journaltransaction WHERE id = %s FOR UPDATE", [posted.pk])
        assert cursor.fetchone() == (posted.pk,)
    # And it posts: a reversal locks the transaction it reverses, then posts through the chain head.
    reversal = services.reverse(
        transaction=posted, user=None, reason="test", idempotency_key="roles-back"
    ).transaction
    assert reversal.reverses_id == posted.pk


@pytest.mark.postgres
def test_grant_is_idempotent_and_a_later_migrations_table_is_covered(
    db_superuser_cursor: CursorWrapper, db_app_role: str
) -> None:
    owner = db_superuser_cursor
    # A table a later migration makes: the owner's default privileges let the app read and add at once.
    owner.execute("CREATE TABLE ledger_later_probe (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY)")
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT has_table_privilege(current_user, 'ledger_later_probe', 'INSERT'), "
                "has_table_privilege(current_user, 'ledger_later_probe', 'UPDATE'), "
                "has_sequence_privilege(current_user, 'ledger_later_probe_id_seq', 'USAGE')"
            )
            assert cursor.fetchone() == (True, False, True)
            cursor.execute("INSERT INTO ledger_later_probe DEFAULT VALUES")
        # After migrate, the grant step; run again, it takes back a right someone added meanwhile.
        grant_app_privileges(owner, app=db_app_role)
        assert privilege_differences(owner, app=db_app_role) == []
        owner.execute(f'GRANT TRUNCATE, UPDATE ON ledger_entry, ledger_later_probe TO "{db_app_role}"')
        assert len(privilege_differences(owner, app=db_app_role)) == 2
        grant_app_privileges(owner, app=db_app_role)
        assert privilege_differences(owner, app=db_app_role) == []
    finally:
        owner.execute("DROP TABLE ledger_later_probe")


@pytest.mark.postgres
def test_grant_refuses_a_missing_role_or_the_granting_role_itself(db_app_role: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        me = cursor.fetchone()[0]
        with pytest.raises(PrivilegeError, match="does not exist"):
            grant_app_privileges(cursor, app="no_such_role_here")
        with pytest.raises(PrivilegeError, match="nothing to grant to itself"):
            grant_app_privileges(cursor, app=me)


@pytest.mark.postgres
def test_grant_prints_the_statements_without_changing_anything(db_app_role: str) -> None:
    out = StringIO()
    call_command("db_roles", "grant", "--app", "some_app_role", "--print", stdout=out)
    printed = out.getvalue().splitlines()
    assert 'REVOKE ALL ON ALL TABLES IN SCHEMA public FROM "some_app_role";' in printed
    assert any(
        line.startswith("GRANT SELECT, INSERT ON TABLE ") and '"ledger_entry"' in line for line in printed
    )
    assert not any("TRUNCATE" in line for line in printed)
