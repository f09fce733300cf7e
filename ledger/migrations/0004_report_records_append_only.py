"""The report records are append-only in the database too (docs/reports.md).

Fee waivers, drop counts, variance sign-offs, shift closes, integrity checks and the access-change
log refuse UPDATE and DELETE (a correction is a new record); report exports refuse DELETE (their
status moves on while they are built). PostgreSQL: BEFORE triggers calling
``ledger_refuse_record_change()`` (errcode restrict_violation, like migration 0002's); SQLite gets
RAISE(ABORT) triggers (``manage.py flush`` lifts every ``ledger_%`` trigger for
the flush and restores it).

The SQL is written out here, frozen, rather than imported, so that this migration keeps meaning what
it meant when it was applied.
"""

from django.db import migrations

APPEND_ONLY = [
    "ledger_feewaiver",
    "ledger_dropcount",
    "ledger_variancesignoff",
    "ledger_shiftclose",
    "ledger_integritycheck",
    "ledger_authchange",
]
NO_DELETE = ["ledger_reportexport"]

PG_FORWARD = [
    """
    CREATE OR REPLACE FUNCTION ledger_refuse_record_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'ledger: % on % is refused: records are append-only (add a correcting record instead)',
            TG_OP, TG_TABLE_NAME
            USING ERRCODE = 'restrict_violation';
    END;
    $$
    """,
    *(
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION ledger_refuse_record_change()"
        for table in APPEND_ONLY
    ),
    *(
        f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION ledger_refuse_record_change()"
        for table in NO_DELETE
    ),
]
PG_REVERSE = [
    *(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}" for table in APPEND_ONLY),
    *(f"DROP TRIGGER IF EXISTS {table}_no_delete ON {table}" for table in NO_DELETE),
    "DROP FUNCTION IF EXISTS ledger_refuse_record_change()",
]


def _sqlite_refuse(name, when, table, message):
    return f"CREATE TRIGGER {name} {when} ON {table} FOR EACH ROW BEGIN SELECT RAISE(ABORT, '{message}'); END"


SQLITE_FORWARD = [
    *(
        _sqlite_refuse(
            f"{table}_no_update",
            "BEFORE UPDATE",
            table,
            f"ledger: UPDATE on {table} is refused: records are append-only",
        )
        for table in APPEND_ONLY
    ),
    *(
        _sqlite_refuse(
            f"{table}_no_delete",
            "BEFORE DELETE",
            table,
            f"ledger: DELETE on {table} is refused: records are append-only",
        )
        for table in APPEND_ONLY + NO_DELETE
    ),
]
SQLITE_REVERSE = [
    *(f"DROP TRIGGER IF EXISTS {table}_no_update" for table in APPEND_ONLY),
    *(f"DROP TRIGGER IF EXISTS {table}_no_delete" for table in APPEND_ONLY + NO_DELETE),
]

SQL = {
    "postgresql": (PG_FORWARD, PG_REVERSE),
    "sqlite": (SQLITE_FORWARD, SQLITE_REVERSE),
}


def forwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor not in SQL:
        raise RuntimeError(f"the ledger's invariants are written for PostgreSQL and SQLite, not {vendor}")
    for statement in SQL[vendor][0]:
        schema_editor.execute(statement, params=None)


def backwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor in SQL:
        for statement in SQL[vendor][1]:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0003_reports")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
