"""Database-level invariants of the ledger (see docs/ledger.md).

PostgreSQL (production):
* journal transactions and entries are append-only: BEFORE UPDATE OR DELETE triggers raise;
* accounts are never deleted and never change identity (kind, table, player, hand, shift);
* a DEFERRABLE INITIALLY DEFERRED constraint trigger checks at commit that every journal transaction
  has at least two entries and that they sum to zero.

SQLite (local demo): the same append-only and account triggers with RAISE(ABORT). SQLite has no
deferred triggers, so the sum-to-zero check is the posting service's (and verify_ledger's) there.

The SQL is written out here, frozen, rather than imported, so that this migration keeps meaning what
it meant when it was applied.
"""

from django.db import migrations

PG_FORWARD = [
    """
    CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'ledger: % on % is refused: ledger rows are append-only (post a reversal instead)',
            TG_OP, TG_TABLE_NAME
            USING ERRCODE = 'restrict_violation';
    END;
    $$
    """,
    """
    CREATE TRIGGER ledger_journaltransaction_append_only
        BEFORE UPDATE OR DELETE ON ledger_journaltransaction
        FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()
    """,
    """
    CREATE TRIGGER ledger_entry_append_only
        BEFORE UPDATE OR DELETE ON ledger_entry
        FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()
    """,
    """
    CREATE TRIGGER ledger_account_no_delete
        BEFORE DELETE ON ledger_account
        FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()
    """,
    """
    CREATE TRIGGER ledger_account_identity_fixed
        BEFORE UPDATE ON ledger_account
        FOR EACH ROW
        WHEN (OLD.id IS DISTINCT FROM NEW.id
              OR OLD.kind IS DISTINCT FROM NEW.kind
              OR OLD.table_id IS DISTINCT FROM NEW.table_id
              OR OLD.player_id IS DISTINCT FROM NEW.player_id
              OR OLD.hand_id IS DISTINCT FROM NEW.hand_id
              OR OLD.shift_date IS DISTINCT FROM NEW.shift_date
              OR OLD.shift_code IS DISTINCT FROM NEW.shift_code)
        EXECUTE FUNCTION ledger_refuse_change()
    """,
    """
    CREATE OR REPLACE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        txn_id bigint;
        entry_count bigint;
        total numeric;
    BEGIN
        IF TG_TABLE_NAME = 'ledger_entry' THEN
            txn_id := NEW.transaction_id;
        ELSE
            txn_id := NEW.id;
        END IF;
        SELECT count(*), coalesce(sum(amount), 0) INTO entry_count, total
            FROM ledger_entry WHERE transaction_id = txn_id;
        IF entry_count < 2 OR total <> 0 THEN
            RAISE EXCEPTION
                'ledger: journal transaction % has % entries summing to %; '
                'at least 2 entries summing to zero are required', txn_id, entry_count, total
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
    END;
    $$
    """,
    # Fired at COMMIT (deferred), once every entry of the transaction is in.
    """
    CREATE CONSTRAINT TRIGGER ledger_journaltransaction_balanced
        AFTER INSERT ON ledger_journaltransaction
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced()
    """,
    """
    CREATE CONSTRAINT TRIGGER ledger_entry_balanced
        AFTER INSERT ON ledger_entry
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced()
    """,
]

PG_REVERSE = [
    "DROP TRIGGER IF EXISTS ledger_entry_balanced ON ledger_entry",
    "DROP TRIGGER IF EXISTS ledger_journaltransaction_balanced ON ledger_journaltransaction",
    "DROP FUNCTION IF EXISTS ledger_check_balanced()",
    "DROP TRIGGER IF EXISTS ledger_account_identity_fixed ON ledger_account",
    "DROP TRIGGER IF EXISTS ledger_account_no_delete ON ledger_account",
    "DROP TRIGGER IF EXISTS ledger_entry_append_only ON ledger_entry",
    "DROP TRIGGER IF EXISTS ledger_journaltransaction_append_only ON ledger_journaltransaction",
    "DROP FUNCTION IF EXISTS ledger_refuse_change()",
]


def _sqlite_refuse(name: str, when: str, table: str, message: str, condition: str = "") -> str:
    return (
        f"CREATE TRIGGER {name} {when} ON {table} FOR EACH ROW {condition} "
        f"BEGIN SELECT RAISE(ABORT, '{message}'); END"
    )


SQLITE_FORWARD = [
    _sqlite_refuse(
        "ledger_journaltransaction_no_update",
        "BEFORE UPDATE",
        "ledger_journaltransaction",
        "ledger: UPDATE on ledger_journaltransaction is refused: ledger rows are append-only",
    ),
    _sqlite_refuse(
        "ledger_journaltransaction_no_delete",
        "BEFORE DELETE",
        "ledger_journaltransaction",
        "ledger: DELETE on ledger_journaltransaction is refused: ledger rows are append-only",
    ),
    _sqlite_refuse(
        "ledger_entry_no_update",
        "BEFORE UPDATE",
        "ledger_entry",
        "ledger: UPDATE on ledger_entry is refused: ledger rows are append-only",
    ),
    _sqlite_refuse(
        "ledger_entry_no_delete",
        "BEFORE DELETE",
        "ledger_entry",
        "ledger: DELETE on ledger_entry is refused: ledger rows are append-only",
    ),
    _sqlite_refuse(
        "ledger_account_no_delete",
        "BEFORE DELETE",
        "ledger_account",
        "ledger: DELETE on ledger_account is refused: accounts are never deleted",
    ),
    _sqlite_refuse(
        "ledger_account_identity_fixed",
        "BEFORE UPDATE OF id, kind, table_id, player_id, hand_id, shift_date, shift_code",
        "ledger_account",
        "ledger: an account never changes its identity",
        condition=(
            "WHEN OLD.id IS NOT NEW.id OR OLD.kind IS NOT NEW.kind OR OLD.table_id IS NOT NEW.table_id "
            "OR OLD.player_id IS NOT NEW.player_id OR OLD.hand_id IS NOT NEW.hand_id "
            "OR OLD.shift_date IS NOT NEW.shift_date OR OLD.shift_code IS NOT NEW.shift_code"
        ),
    ),
]

SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS ledger_account_identity_fixed",
    "DROP TRIGGER IF EXISTS ledger_account_no_delete",
    "DROP TRIGGER IF EXISTS ledger_entry_no_delete",
    "DROP TRIGGER IF EXISTS ledger_entry_no_update",
    "DROP TRIGGER IF EXISTS ledger_journaltransaction_no_delete",
    "DROP TRIGGER IF EXISTS ledger_journaltransaction_no_update",
]

SQL = {
    "postgresql": (PG_FORWARD, PG_REVERSE),
    "sqlite": (SQLITE_FORWARD, SQLITE_REVERSE),
}


def _run(schema_editor, statements):
    for statement in statements:
        schema_editor.execute(statement, params=None)


def forwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor not in SQL:
        raise RuntimeError(f"the ledger's invariants are written for PostgreSQL and SQLite, not {vendor}")
    _run(schema_editor, SQL[vendor][0])


def backwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor in SQL:
        _run(schema_editor, SQL[vendor][1])


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
