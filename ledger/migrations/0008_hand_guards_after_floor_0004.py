"""Put back the ledger's guards on ``tables_hand`` after the floor's migration 0004.

On SQLite, Django adds a NOT NULL column or a check constraint by rebuilding the table (copy, drop,
rename), and a rebuilt table keeps only the indexes and constraints Django knows of: the triggers
of migration 0006 (a hand is dealt only with its fees; settled and void are final) and the report
index of 0005, made by raw SQL, are gone after ``tables`` 0004 rebuilds ``tables_hand``. This
migration runs after it and creates them again (the same frozen SQL; nothing to do on PostgreSQL,
whose ALTER TABLE keeps them). ``tests/ledger/test_hand_dealt_only_with_fees.py`` fails without it.

A later floor migration that rebuilds ``tables_hand`` on SQLite needs the same step after it.
"""

import importlib

from django.db import migrations

_guards = importlib.import_module("ledger.migrations.0006_hand_dealt_only_with_fees")
_indexes = importlib.import_module("ledger.migrations.0005_report_indexes")


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for statement in [*_guards.SQLITE_REVERSE, *_guards.SQLITE_FORWARD]:
        schema_editor.execute(statement, params=None)
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {_indexes.HAND_INDEX} ON tables_hand (created_at)", params=None
    )


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0007_keyed_chain"),
        ("tables", "0004_dealers_misdeal_codes_boards_sweeps"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop, elidable=False)]
