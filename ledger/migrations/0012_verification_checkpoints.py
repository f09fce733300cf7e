"""Verification checkpoints (``ledger.VerificationCheckpoint``, docs/retention.md): how far each
nightly check has verified, append-only like the other records.

The table and its append-only triggers, as migration 0004 gives the report records: on PostgreSQL a
``ledger_verificationcheckpoint_append_only`` BEFORE UPDATE OR DELETE trigger calling 0004's
``ledger_refuse_record_change()``; on SQLite ``ledger_verificationcheckpoint_no_update``
and ``ledger_verificationcheckpoint_no_delete`` RAISE(ABORT) triggers. The app's database role gets SELECT and INSERT
only (``ledger/db_privileges.py``, ``RECORD_MODELS``).

The SQL is written out here, frozen, rather than imported, so that this migration keeps meaning what
it meant when it was applied.
"""

import django.utils.timezone
from django.db import migrations, models

TABLE = "ledger_verificationcheckpoint"

SQL = {
    "postgresql": (
        [
            f"CREATE TRIGGER {TABLE}_append_only BEFORE UPDATE OR DELETE ON {TABLE} "
            "FOR EACH ROW EXECUTE FUNCTION ledger_refuse_record_change()"
        ],
        [f"DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE}"],
    ),
    "sqlite": (
        [
            f"CREATE TRIGGER {TABLE}_no_update BEFORE UPDATE ON {TABLE} FOR EACH ROW BEGIN "
            f"SELECT RAISE(ABORT, 'ledger: UPDATE on {TABLE} is refused: records are append-only'); END",
            f"CREATE TRIGGER {TABLE}_no_delete BEFORE DELETE ON {TABLE} FOR EACH ROW BEGIN "
            f"SELECT RAISE(ABORT, 'ledger: DELETE on {TABLE} is refused: records are append-only'); END",
        ],
        [f"DROP TRIGGER IF EXISTS {TABLE}_no_update", f"DROP TRIGGER IF EXISTS {TABLE}_no_delete"],
    ),
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
    dependencies = [("ledger", "0011_report_export_expired")]

    operations = [
        migrations.CreateModel(
            name="VerificationCheckpoint",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("ledger", "Journal rows (hash chains, double entry)"),
                            ("hands", "Hands against their postings and fees"),
                            ("replay", "Replay audit of settled hands"),
                        ],
                        max_length=10,
                    ),
                ),
                (
                    "part",
                    models.CharField(
                        choices=[
                            ("since", "Rows since the last checkpoint"),
                            ("rotation", "A seventh of history (rotating)"),
                            ("full", "All rows"),
                        ],
                        max_length=10,
                    ),
                ),
                ("first_id", models.BigIntegerField(help_text="first row id of the range verified")),
                ("last_id", models.BigIntegerField(help_text="last row id of the range verified")),
                ("rows", models.BigIntegerField(default=0, help_text="rows found in the range")),
                (
                    "heads",
                    models.JSONField(blank=True, default=dict, help_text="chain -> [sequence, hash] at the end"),
                ),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                ("seconds", models.FloatField(default=0.0)),
                ("ok", models.BooleanField()),
                ("problems", models.BigIntegerField(default=0)),
            ],
            options={
                "ordering": ["-at", "-pk"],
                "indexes": [models.Index(fields=["kind", "part", "-at"], name="ledger_checkpoint_kind")],
            },
        ),
        migrations.RunPython(forwards, backwards, elidable=False),
    ]
