"""Least privilege on PostgreSQL: two database roles, and what the app's role may do to each table.

The roles (docs/ledger.md, "Database roles"; ``manage.py db_roles``):

* the **owner** (``DATABASE_OWNER_URL``) owns the schema, the tables, the sequences and the trigger
  functions, and runs ``migrate`` (``ledger/management/commands/migrate.py``);
* the **app** role (``DATABASE_URL``) logs in and is neither the owner, nor a member of it, nor a
  superuser. Owning no table, it can't ``ALTER TABLE`` one (``DISABLE TRIGGER``) or drop it, and no
  TRUNCATE, REFERENCES or TRIGGER privilege is ever granted to it. What rows it may change is
  decided here, table by table, from the models:

  - every table: SELECT and INSERT;
  - UPDATE and DELETE on every model's table except
    - the append-only ones (:data:`APPEND_ONLY_MODELS`): neither. Where the app locks a row of one
      (``SELECT ... FOR UPDATE``, which PostgreSQL allows only with an UPDATE privilege) it holds
      UPDATE on the ``id`` column alone (:data:`ROW_LOCKED_MODELS`), which the table's append-only
      trigger refuses to carry out;
    - the ones whose rows are updated but never deleted (:data:`NO_DELETE_MODELS`): UPDATE only;
  - ``django_migrations`` (migrate's own record): SELECT only;
  - every sequence: USAGE and SELECT.

:func:`setup_sql` is what a superuser runs once per database (the roles, the owner of the database
and its schema, the app's CONNECT and default privileges); :func:`grant_app_privileges` is what the
owner runs after every migrate (``migrate`` does, and ``manage.py db_roles grant``), so tables a
later migration made get their rights; :func:`privilege_differences` compares what a role holds with
this policy (``manage.py db_roles check``). Every step is idempotent.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.apps import apps
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, models

from ledger.models import (
    AccessEvent,
    Account,
    AuthChange,
    ChainHead,
    DropCount,
    Entry,
    FeeWaiver,
    IntegrityCheck,
    JournalTransaction,
    ReportExport,
    ShiftClose,
    VarianceSignOff,
    VerificationCheckpoint,
)

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.backends.utils import CursorWrapper

JOURNAL_MODELS: tuple[type[models.Model], ...] = (JournalTransaction, Entry)
"""The journal: append-only; migration 0002's triggers refuse UPDATE and DELETE of its rows."""

RECORD_MODELS: tuple[type[models.Model], ...] = (
    FeeWaiver,
    DropCount,
    VarianceSignOff,
    ShiftClose,
    IntegrityCheck,
    AuthChange,
    AccessEvent,
    VerificationCheckpoint,
)
"""The report records, the access log and the verification checkpoints: append-only; migration
0004's (0010's for the access log, 0011's for the checkpoints)
``<table>_append_only`` triggers refuse UPDATE and DELETE of their rows."""

RECORD_TABLES: tuple[str, ...] = tuple(model._meta.db_table for model in RECORD_MODELS)

OTHER_APPEND_ONLY_LABELS: tuple[str, ...] = (
    "tables.ConfigChange",
    "tables.WaitingListEvent",
    "tables.PlayerMerge",
    "tables.PlayerIdentification",
)
"""Append-only by their models, without a trigger (the change log, the waiting lists' record, player
merges, identifications recorded for the day's cash): named by label (the ledger doesn't import the
floor; it names the floor's models by label, as its foreign keys do)."""

NO_DELETE_MODELS: tuple[type[models.Model], ...] = (Account, ChainHead, ReportExport)
"""Rows the app updates (balances, chain heads, an export's status) but never deletes."""

ROW_LOCKED_MODELS: tuple[type[models.Model], ...] = (JournalTransaction, DropCount)
"""Append-only tables whose rows the app locks ``FOR UPDATE`` (a reversal locks the transaction it
reverses; a correction or sign-off locks its drop count)."""

ROW_LOCK_COLUMN = "id"
MIGRATIONS_TABLE = "django_migrations"
SCHEMA = "public"

ALL_RIGHTS = ("SELECT", "INSERT", "UPDATE", "DELETE")
NO_DELETE_RIGHTS = ("SELECT", "INSERT", "UPDATE")
APPEND_RIGHTS = ("SELECT", "INSERT")
READ_RIGHTS = ("SELECT",)
TABLE_PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")

_ROLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


class PrivilegeError(Exception):
    """The roles can't be set up or granted as asked (the message says why and what to do)."""


LOGIN_KEYS = ("USER", "PASSWORD", "HOST", "PORT", "OPTIONS")


def login(settings_dict: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a database's settings that say who logs in, and how (a copy)."""
    return {key: copy.deepcopy(settings_dict.get(key)) for key in LOGIN_KEYS}


def owner_login() -> dict[str, Any]:
    """DATABASE_OWNER_URL's login (``settings.DATABASE_OWNER``; DATABASE_URL's when it is unset)."""
    return login(getattr(settings, "DATABASE_OWNER", settings.DATABASES[DEFAULT_DB_ALIAS]))


@contextmanager
def logged_in_as_owner(connection: BaseDatabaseWrapper) -> Iterator[None]:
    """Within the block ``connection`` (closed first) logs in as the owner; afterwards (closed
    again) as before. Nothing happens when the owner logs in the same way. Not within a transaction
    of ``connection``'s: closing it would end it."""
    before, owner = login(connection.settings_dict), owner_login()
    if owner == before:
        yield
        return
    connection.close()
    connection.settings_dict.update(owner)
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.update(before)


def append_only_tables() -> frozenset[str]:
    """Every append-only table: the journal, the report records and :data:`OTHER_APPEND_ONLY_LABELS`."""
    labelled = (apps.get_model(label) for label in OTHER_APPEND_ONLY_LABELS)
    return frozenset(model._meta.db_table for model in (*JOURNAL_MODELS, *RECORD_MODELS, *labelled))


def model_tables() -> frozenset[str]:
    """The tables of every installed model Django manages (many-to-many tables included)."""
    return frozenset(
        model._meta.db_table
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    )


def app_table_rights(tables: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The table privileges the app's role holds on each of ``tables`` (the column UPDATE of
    :data:`ROW_LOCKED_MODELS` aside). A table no model knows (made by hand, or by a migration whose
    model is gone) gets what the default privileges give a new table: SELECT and INSERT."""
    append_only = append_only_tables()
    no_delete = {model._meta.db_table for model in NO_DELETE_MODELS}
    known = model_tables()
    rights: dict[str, tuple[str, ...]] = {}
    for table in sorted(set(tables)):
        if table == MIGRATIONS_TABLE:
            rights[table] = READ_RIGHTS
        elif table in append_only or table not in known:
            rights[table] = APPEND_RIGHTS
        elif table in no_delete:
            rights[table] = NO_DELETE_RIGHTS
        else:
            rights[table] = ALL_RIGHTS
    return rights


def row_locked_tables() -> tuple[str, ...]:
    return tuple(sorted(model._meta.db_table for model in ROW_LOCKED_MODELS))


def quote_name(name: str) -> str:
    """An SQL identifier, double-quoted."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: str) -> str:
    """An SQL string literal (``standard_conforming_strings``, PostgreSQL's default, is assumed)."""
    return "'" + value.replace("'", "''") + "'"


def check_role_name(name: str, *, what: str) -> str:
    """``name`` if it is a plain lower-case role name, else :class:`PrivilegeError`. (Plain names need
    no quoting rules in the generated SQL and mean the same to ``psql`` and ``::regrole``.)"""
    if not _ROLE_NAME.fullmatch(name or ""):
        raise PrivilegeError(
            f"the {what} role name {name!r} is not a plain lower-case name "
            "(letters a-z, digits and _, at most 63, not starting with a digit)"
        )
    return name


def grant_statements(*, app: str, tables: Iterable[str], database: str) -> list[str]:
    """The statements that give the app's role exactly its rights on ``tables`` (the tables of the
    schema now), run by their owner in one transaction. Idempotent: everything the owner granted the
    role on tables and sequences before is revoked first, so a right the policy no longer gives
    goes. The default privileges make the owner's future tables readable and insertable at once."""
    role = quote_name(app)
    by_rights: dict[tuple[str, ...], list[str]] = {}
    for table, rights in app_table_rights(tables).items():
        by_rights.setdefault(rights, []).append(table)
    statements = [
        f"GRANT CONNECT ON DATABASE {quote_name(database)} TO {role}",
        f"GRANT USAGE ON SCHEMA {SCHEMA} TO {role}",
        # PostgreSQL before 15 lets every role create tables in `public`.
        f"REVOKE CREATE ON SCHEMA {SCHEMA} FROM PUBLIC",
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {SCHEMA} FROM {role}",
        f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {SCHEMA} FROM {role}",
    ]
    for rights in (ALL_RIGHTS, NO_DELETE_RIGHTS, APPEND_RIGHTS, READ_RIGHTS):
        if by_rights.get(rights):
            names = ", ".join(quote_name(table) for table in by_rights[rights])
            statements.append(f"GRANT {', '.join(rights)} ON TABLE {names} TO {role}")
    locked = [table for table in row_locked_tables() if table in set(by_rights.get(APPEND_RIGHTS, ()))]
    if locked:
        names = ", ".join(quote_name(table) for table in locked)
        statements.append(f"GRANT UPDATE ({quote_name(ROW_LOCK_COLUMN)}) ON TABLE {names} TO {role}")
    statements += [
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {SCHEMA} TO {role}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA {SCHEMA} GRANT {', '.join(APPEND_RIGHTS)} ON TABLES TO {role}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA {SCHEMA} GRANT USAGE, SELECT ON SEQUENCES TO {role}",
    ]
    return statements


def _schema_tables(cursor: CursorWrapper) -> dict[str, str]:
    """Table name -> owner, for the schema's tables."""
    cursor.execute(
        "SELECT c.relname, pg_get_userbyid(c.relowner) FROM pg_class c "
        "WHERE c.relnamespace = %s::regnamespace AND c.relkind IN ('r', 'p') ORDER BY c.relname",
        [SCHEMA],
    )
    return dict(cursor.fetchall())


def grant_app_privileges(cursor: CursorWrapper, *, app: str) -> list[str]:
    """As the tables' owner (the connection of ``cursor``), give the app's role ``app`` exactly its
    rights on every table now in the schema; returns the statements run. The caller runs it in one
    transaction (``manage.py db_roles grant`` does), so the app never sees its rights half-granted.

    Raises :class:`PrivilegeError` when ``app`` doesn't exist, is the connection's own role or a
    superuser, or when a table belongs to another role than the connection's (the set-up SQL makes
    the owner own them all)."""
    check_role_name(app, what="app")
    cursor.execute("SELECT current_user, current_database()")
    me, database = cursor.fetchone()
    if app == me:
        raise PrivilegeError(f"the app's role {app!r} is the role granting: nothing to grant to itself")
    cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [app])
    found = cursor.fetchone()
    if found is None:
        raise PrivilegeError(
            f"role {app!r} does not exist: a superuser runs `manage.py db_roles setup` first (README)"
        )
    if found[0]:
        raise PrivilegeError(f"role {app!r} is a superuser: privileges would mean nothing to it")
    tables = _schema_tables(cursor)
    foreign = sorted(table for table, owner in tables.items() if owner != me)
    if foreign:
        raise PrivilegeError(
            f"{len(foreign)} table(s) belong to another role than {me!r} ({', '.join(foreign[:5])}"
            f"{', ...' if len(foreign) > 5 else ''}): migrate as the owner, or have a superuser run "
            "`manage.py db_roles setup`, which makes the owner own them"
        )
    statements = grant_statements(app=app, tables=tables, database=database)
    for statement in statements:
        cursor.execute(statement)
    return statements


def setup_sql(
    *,
    owner: str,
    app: str,
    database: str,
    owner_password: str | None = None,
    app_password: str | None = None,
) -> str:
    """The SQL a superuser runs once, connected to ``database`` (safe to run again): the two roles
    (made if missing; no superuser, no role creation; the app no member of the owner), the database
    and its ``public`` schema owned by the owner, with whatever an earlier migrate made as another
    role (tables, views, sequences that belong to no column, functions); CREATE on the schema for
    the owner only; CONNECT and USAGE for the app, and default privileges so that the tables and
    sequences the owner makes later are readable and insertable by the app at once. Passwords are
    set only when given. The per-table rights come after migrate (:func:`grant_app_privileges`)."""
    check_role_name(owner, what="owner")
    check_role_name(app, what="app")
    if owner == app:
        raise PrivilegeError(f"the owner and the app need two roles, not {owner!r} twice")
    o, a, o_lit, a_lit = quote_name(owner), quote_name(app), quote_literal(owner), quote_literal(app)
    passwords = [
        f"ALTER ROLE {name} PASSWORD {quote_literal(password)};"
        for name, password in ((o, owner_password), (a, app_password))
        if password
    ]
    return "\n".join(
        [
            '-- Least-privilege database roles for the card room (docs/ledger.md, "Database roles").',
            "-- Made by `manage.py db_roles setup`. Run it once as a superuser, connected to the database",
            f"-- {database} (safe to run again): psql -U postgres -d {database} -v ON_ERROR_STOP=1 -f <this>",
            "-- Then migrate with DATABASE_OWNER_URL set (make setup): migrate runs as the owner and grants",
            "-- the app's role its rights on every table (`manage.py db_roles grant` does that alone).",
            "BEGIN;",
            "",
            "-- The owner owns the schema and the tables and runs migrate; the app's role only logs in.",
            "DO $roles$",
            "BEGIN",
            f"    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {o_lit}) THEN",
            f"        CREATE ROLE {o};",
            "    END IF;",
            f"    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {a_lit}) THEN",
            f"        CREATE ROLE {a};",
            "    END IF;",
            "    -- A member of the owner could SET ROLE to it and have the owner's rights.",
            "    IF EXISTS (",
            "        SELECT FROM pg_auth_members m",
            f"        WHERE m.roleid = {o_lit}::regrole AND m.member = {a_lit}::regrole",
            "    ) THEN",
            f"        REVOKE {o} FROM {a};",
            "    END IF;",
            "END",
            "$roles$;",
            f"ALTER ROLE {o} LOGIN NOSUPERUSER NOCREATEROLE NOREPLICATION NOBYPASSRLS;",
            f"ALTER ROLE {a} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;",
            *passwords,
            "",
            "-- The database and its schema belong to the owner, and so does whatever an earlier migrate",
            "-- made as another role (a sequence that belongs to a column follows its table).",
            f"ALTER DATABASE {quote_name(database)} OWNER TO {o};",
            f"ALTER SCHEMA {SCHEMA} OWNER TO {o};",
            f"REVOKE CREATE ON SCHEMA {SCHEMA} FROM PUBLIC;",
            "DO $owned$",
            "DECLARE",
            "    item record;",
            "BEGIN",
            "    FOR item IN",
            "        SELECT c.oid::regclass AS name,",
            "               CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW'",
            "                              WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END AS kind",
            "        FROM pg_class c",
            f"        WHERE c.relnamespace = {quote_literal(SCHEMA)}::regnamespace",
            "          AND c.relkind IN ('r', 'p', 'v', 'm', 'S')",
            f"          AND c.relowner <> {o_lit}::regrole",
            "          AND NOT EXISTS (",
            "              SELECT FROM pg_depend d",
            "              WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid",
            "                AND d.deptype IN ('a', 'i', 'e')",
            "          )",
            "    LOOP",
            f"        EXECUTE format('ALTER %s %s OWNER TO %I', item.kind, item.name, {o_lit});",
            "    END LOOP;",
            "    FOR item IN",
            "        SELECT p.oid::regprocedure AS name",
            "        FROM pg_proc p",
            f"        WHERE p.pronamespace = {quote_literal(SCHEMA)}::regnamespace",
            f"          AND p.proowner <> {o_lit}::regrole",
            "          AND NOT EXISTS (",
            "              SELECT FROM pg_depend d",
            "              WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'",
            "          )",
            "    LOOP",
            f"        EXECUTE format('ALTER ROUTINE %s OWNER TO %I', item.name, {o_lit});",
            "    END LOOP;",
            "END",
            "$owned$;",
            "",
            "-- The app connects and sees the schema. What the owner makes from now on (migrate) the app may",
            "-- read and add rows to at once; `manage.py db_roles grant` gives the rest, table by table.",
            f"GRANT CONNECT ON DATABASE {quote_name(database)} TO {a};",
            f"GRANT USAGE ON SCHEMA {SCHEMA} TO {a};",
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {o} IN SCHEMA {SCHEMA} "
            f"GRANT {', '.join(APPEND_RIGHTS)} ON TABLES TO {a};",
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {o} IN SCHEMA {SCHEMA} "
            f"GRANT USAGE, SELECT ON SEQUENCES TO {a};",
            "",
            "COMMIT;",
            "",
        ]
    )


def privilege_differences(cursor: CursorWrapper, *, app: str) -> list[str]:
    """How what role ``app`` holds in the schema differs from this module's policy, one sentence
    each (empty: it holds exactly its rights). Checked: that it is no superuser and can't act as
    the owner of any table; each table's privileges (SELECT ... TRIGGER); the column UPDATE of the
    row-locked tables; USAGE and SELECT but no UPDATE on every sequence. Read-only."""
    cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", [app])
    found = cursor.fetchone()
    if found is None:
        return [f"role {app!r} does not exist"]
    differences = []
    if found[0]:
        differences.append(f"role {app!r} is a superuser: it may do anything, triggers off included")
    if found[1]:
        differences.append(f"role {app!r} bypasses row-level security")
    schema = [SCHEMA]
    cursor.execute(
        "SELECT c.relname, pg_get_userbyid(c.relowner) FROM pg_class c "
        "WHERE c.relnamespace = %s::regnamespace AND c.relkind IN ('r', 'p') "
        "AND pg_has_role(%s, c.relowner, 'USAGE') ORDER BY c.relname",
        [*schema, app],
    )
    owned = cursor.fetchall()
    if owned and not found[0]:
        owners = sorted({owner for _, owner in owned})
        differences.append(
            f"role {app!r} can act as the owner ({', '.join(owners)}) of {len(owned)} table(s), "
            f"e.g. {owned[0][0]}: it may TRUNCATE them and disable their triggers"
        )
    cursor.execute(
        "SELECT c.relname, p.privilege FROM pg_class c "
        "CROSS JOIN unnest(%s::text[]) AS p(privilege) "
        "WHERE c.relnamespace = %s::regnamespace AND c.relkind IN ('r', 'p') "
        "AND has_table_privilege(%s, c.oid, p.privilege)",
        [list(TABLE_PRIVILEGES), *schema, app],
    )
    held: dict[str, set[str]] = {}
    for table, privilege in cursor.fetchall():
        held.setdefault(table, set()).add(privilege)
    tables = _schema_tables(cursor)
    expected = app_table_rights(tables)
    for table in sorted(tables):
        differences += _table_difference(app, table, held.get(table, set()), set(expected[table]))
    cursor.execute(
        "SELECT c.relname, a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid "
        "WHERE c.relnamespace = %s::regnamespace AND c.relkind IN ('r', 'p') "
        "AND a.attnum > 0 AND NOT a.attisdropped AND has_column_privilege(%s, c.oid, a.attnum, 'UPDATE')",
        [*schema, app],
    )
    column_updates: dict[str, set[str]] = {}
    for table, column in cursor.fetchall():
        column_updates.setdefault(table, set()).add(column)
    locked = set(row_locked_tables())
    for table in sorted(tables):
        if "UPDATE" in expected[table] or "UPDATE" in held.get(table, set()):
            continue  # every column may be updated: as it should be, or reported above
        want = {ROW_LOCK_COLUMN} if table in locked and expected[table] == APPEND_RIGHTS else set()
        got = column_updates.get(table, set())
        if got != want:
            differences.append(
                f"{table}: role {app!r} may UPDATE column(s) {sorted(got)}, expected {sorted(want)}"
            )
    cursor.execute(
        "SELECT c.relname, has_sequence_privilege(%s, c.oid, 'USAGE'), "
        "has_sequence_privilege(%s, c.oid, 'SELECT'), has_sequence_privilege(%s, c.oid, 'UPDATE') "
        "FROM pg_class c WHERE c.relnamespace = %s::regnamespace AND c.relkind = 'S' ORDER BY c.relname",
        [app, app, app, *schema],
    )
    for sequence, usage, select, update in cursor.fetchall():
        if not (usage and select) or update:
            differences.append(
                f"sequence {sequence}: role {app!r} has USAGE {usage}, SELECT {select}, UPDATE {update}; "
                "expected USAGE and SELECT only"
            )
    return differences


def _table_difference(app: str, table: str, held: set[str], expected: set[str]) -> list[str]:
    extra, missing = sorted(held - expected), sorted(expected - held)
    if not extra and not missing:
        return []
    parts = []
    if extra:
        parts.append(f"holds {', '.join(extra)} it should not")
    if missing:
        parts.append(f"lacks {', '.join(missing)}")
    return [f"{table}: role {app!r} " + " and ".join(parts)]
