"""A shift close's sealed record is a zip of CSVs; the dealers' downs can be exported in the background.

* ``ledger_shiftclose.export_zip`` (nullable binary): the sealed export of a close, one CSV per table
  with the signed anchor as two of them (docs/reports.md). Closes made before keep their single CSV
  in ``export_csv`` and a null ``export_zip``; new closes leave ``export_csv`` empty. The column is
  added with ``ALTER TABLE ... ADD COLUMN`` written out here (as migration 0007 does): nullable, no
  default, so it touches no row and fires none of the append-only triggers of migration 0004, and
  on SQLite the table is not rebuilt (a rebuild would drop those triggers). The app's role needs no
  new grant: its table-wide SELECT and INSERT (``ledger/db_privileges.py``) cover a new column.
* ``ReportKind.DEALER_DOWNS`` (``dealer_downs``): a choice of ``ledger_reportexport.kind``, and a
  value the ``ledger_export_kind_valid`` CHECK constraint lists, so the constraint is dropped and
  made again with it. SQLite can't alter a constraint: Django rebuilds ``ledger_reportexport``,
  which drops migration 0004's ``ledger_reportexport_no_delete`` trigger; it is created again
  after (and, going back, after the reverse rebuild). PostgreSQL alters the constraint in place
  and keeps its triggers.

The SQL is written out here, frozen, so that this migration keeps meaning what it meant when it was
applied.
"""

from django.db import migrations, models

KINDS = [
    "collection",
    "hand_history",
    "player_statement",
    "journal",
    "integrity",
    "drop_variance",
    "config_changes",
    "dealer_downs",
]

SQLITE_EXPORT_GUARD = [
    "DROP TRIGGER IF EXISTS ledger_reportexport_no_delete",
    "CREATE TRIGGER ledger_reportexport_no_delete BEFORE DELETE ON ledger_reportexport FOR EACH ROW "
    "BEGIN SELECT RAISE(ABORT, 'ledger: DELETE on ledger_reportexport is refused: records are append-only'); "
    "END",
]


def _check_vendor(schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor not in ("postgresql", "sqlite"):
        raise RuntimeError(f"the ledger's migrations are written for PostgreSQL and SQLite, not {vendor}")
    return vendor


def add_export_zip(apps, schema_editor):
    column_type = "bytea" if _check_vendor(schema_editor) == "postgresql" else "BLOB"
    schema_editor.execute(f'ALTER TABLE ledger_shiftclose ADD COLUMN "export_zip" {column_type} NULL')


def drop_export_zip(apps, schema_editor):
    # DROP COLUMN (SQLite >= 3.35) touches no trigger of the table.
    schema_editor.execute('ALTER TABLE ledger_shiftclose DROP COLUMN "export_zip"')


def restore_export_guard(apps, schema_editor):
    """SQLite: the no-delete trigger of ``ledger_reportexport`` again, after a rebuild."""
    if _check_vendor(schema_editor) == "sqlite":
        for statement in SQLITE_EXPORT_GUARD:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0008_hand_guards_after_floor_0004")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(add_export_zip, drop_export_zip, elidable=False)],
            state_operations=[
                migrations.AddField(
                    model_name="shiftclose",
                    name="export_zip",
                    field=models.BinaryField(
                        blank=True,
                        help_text="The sealed export: a zip of one CSV per table (null: export_csv).",
                        null=True,
                    ),
                ),
                migrations.AlterField(
                    model_name="shiftclose",
                    name="export_csv",
                    field=models.TextField(
                        blank=True, help_text="The sealed CSV of a close made before the zip; else empty."
                    ),
                ),
            ],
        ),
        # Going back, this restores the trigger after the reverse of RemoveConstraint rebuilt the table.
        migrations.RunPython(migrations.RunPython.noop, restore_export_guard, elidable=False),
        migrations.RemoveConstraint(model_name="reportexport", name="ledger_export_kind_valid"),
        migrations.AlterField(
            model_name="reportexport",
            name="kind",
            field=models.CharField(
                choices=[
                    ("collection", "Collection report"),
                    ("hand_history", "Hand history"),
                    ("player_statement", "Player statement"),
                    ("journal", "Ledger journal"),
                    ("integrity", "Integrity report"),
                    ("drop_variance", "Drop count variance"),
                    ("config_changes", "Configuration change log"),
                    ("dealer_downs", "Dealers' downs"),
                ],
                max_length=20,
            ),
        ),
        migrations.AddConstraint(
            model_name="reportexport",
            constraint=models.CheckConstraint(
                condition=models.Q(kind__in=KINDS), name="ledger_export_kind_valid"
            ),
        ),
        migrations.RunPython(restore_export_guard, migrations.RunPython.noop, elidable=False),
    ]
