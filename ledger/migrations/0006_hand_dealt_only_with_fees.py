"""A hand is dealt only with its fees, in the database too (docs/ledger.md, docs/hand-flow.md).

RULINGS §6: fees are collected before every deal. The one way a hand becomes ``dealt`` is
``tables.hand_flow.start_hand``, which posts the hand's FEE transaction (key ``hand:<id>:fees``)
and only then moves the hand on, or, when the schedule's band charges nothing, records why in
``tables_hand.no_fee_reason``. These triggers refuse any other way in:

* a hand entering ``dealt``, ``showdown`` or ``settled`` (inserted so, or updated from ``open``
  or ``void``) needs a FEE journal transaction of that hand or a ``no_fee_reason``;
* ``settled`` and ``void`` are final: their status never changes again.

They live in the ledger's migrations because the ledger owns the fee transactions they look for
(the floor's tables know nothing of the ledger). PostgreSQL raises ``check_violation``; SQLite
RAISE(ABORT). The SQL is written out here, frozen, so that this migration keeps meaning what it
meant when it was applied.
"""

from django.db import migrations

DEALT = "('dealt', 'showdown', 'settled')"
MESSAGE = (
    "ledger: a hand is dealt only with its fees: post its FEE transaction (or record why none was "
    "due) through the deal"
)
FINAL = "ledger: a settled or void hand is final: its status never changes"

PG_FORWARD = [
    f"""
    CREATE OR REPLACE FUNCTION ledger_hand_dealt_with_fees() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'UPDATE' AND OLD.status IN ('settled', 'void') AND NEW.status <> OLD.status THEN
            RAISE EXCEPTION '{FINAL} (hand %%: % -> %%)', NEW.id, OLD.status, NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status IN {DEALT}
           AND (TG_OP = 'INSERT' OR OLD.status NOT IN {DEALT})
           AND coalesce(NEW.no_fee_reason, '') = ''
           AND NOT EXISTS (
               SELECT 1 FROM ledger_journaltransaction t WHERE t.hand_id = NEW.id AND t.kind = 'fee'
           ) THEN
            RAISE EXCEPTION '{MESSAGE} (hand %%)', NEW.id USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END;
    $$
    """.replace("%%", "%"),
    """
    CREATE TRIGGER ledger_hand_dealt_with_fees
        BEFORE INSERT OR UPDATE OF status ON tables_hand
        FOR EACH ROW EXECUTE FUNCTION ledger_hand_dealt_with_fees()
    """,
]
PG_REVERSE = [
    "DROP TRIGGER IF EXISTS ledger_hand_dealt_with_fees ON tables_hand",
    "DROP FUNCTION IF EXISTS ledger_hand_dealt_with_fees()",
]

NO_FEES = (
    f"NEW.status IN {DEALT} AND NEW.no_fee_reason = '' AND NOT EXISTS ("
    "SELECT 1 FROM ledger_journaltransaction t WHERE t.hand_id = NEW.id AND t.kind = 'fee')"
)
SQLITE_FORWARD = [
    f"CREATE TRIGGER ledger_hand_inserted_dealt_with_fees BEFORE INSERT ON tables_hand FOR EACH ROW "
    f"WHEN {NO_FEES} BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END",
    f"CREATE TRIGGER ledger_hand_dealt_with_fees BEFORE UPDATE OF status ON tables_hand FOR EACH ROW "
    f"WHEN OLD.status NOT IN {DEALT} AND {NO_FEES} BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END",
    f"CREATE TRIGGER ledger_hand_final_status BEFORE UPDATE OF status ON tables_hand FOR EACH ROW "
    f"WHEN OLD.status IN ('settled', 'void') AND NEW.status <> OLD.status "
    f"BEGIN SELECT RAISE(ABORT, '{FINAL}'); END",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS ledger_hand_final_status",
    "DROP TRIGGER IF EXISTS ledger_hand_dealt_with_fees",
    "DROP TRIGGER IF EXISTS ledger_hand_inserted_dealt_with_fees",
]

SQL = {"postgresql": (PG_FORWARD, PG_REVERSE), "sqlite": (SQLITE_FORWARD, SQLITE_REVERSE)}


def forwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor not in SQL:
        raise RuntimeError(f"the ledger's invariants are written for PostgreSQL and SQLite, not {vendor}")
    for statement in SQL[vendor][0]:
        schema_editor.execute(statement, params=None)


def backwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for statement in SQL.get(vendor, ((), ()))[1]:
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0005_report_indexes"), ("tables", "0003_hand_joker_and_no_fee_reason")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
