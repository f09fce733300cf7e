"""A keyed hash chain and signed anchors (docs/ledger.md, "Who can rewrite the ledger unseen").

* ``ledger_journaltransaction.key_id``: the id of the secret key a row's hash is an HMAC with;
  existing rows keep ``''`` (content format 1, plain sha256) and verify as before.
* ``ledger_integritycheck.scope`` (``ledger`` for every existing row, or ``replay``) and
  ``anchors``; ``ledger_shiftclose.anchors``: the signed chain heads each published.

The columns are added with ``ALTER TABLE ... ADD COLUMN`` written out here rather than Django's
``AddField``: on SQLite ``AddField`` of a NOT NULL column rebuilds the table (create a copy, copy
the rows, drop the original), and dropping the original would drop the append-only triggers of
migrations 0002 and 0004 with it. ``ADD COLUMN`` touches no row and fires no trigger on either
database. The model state is the same as ``AddField`` would give.
"""

from django.db import migrations, models

# (table, column, PostgreSQL type, SQLite type, default literal)
COLUMNS = [
    ("ledger_journaltransaction", "key_id", "varchar(32)", "varchar(32)", "''"),
    ("ledger_integritycheck", "scope", "varchar(10)", "varchar(10)", "'ledger'"),
    (
        "ledger_integritycheck",
        "anchors",
        "jsonb",
        'text CHECK ((JSON_VALID("anchors") OR "anchors" IS NULL))',
        "'{}'",
    ),
    (
        "ledger_shiftclose",
        "anchors",
        "jsonb",
        'text CHECK ((JSON_VALID("anchors") OR "anchors" IS NULL))',
        "'{}'",
    ),
]


def forwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor not in ("postgresql", "sqlite"):
        raise RuntimeError(f"the ledger's migrations are written for PostgreSQL and SQLite, not {vendor}")
    for table, column, pg_type, sqlite_type, default in COLUMNS:
        # The database default stays (SQLite can't drop one anyway): Django names every column in
        # its INSERTs, and a hand-written INSERT that doesn't (older tools, tests) gets an unkeyed
        # row, which verify_ledger then judges like any format 1 row.
        column_type = pg_type if vendor == "postgresql" else sqlite_type
        schema_editor.execute(
            f'ALTER TABLE {table} ADD COLUMN "{column}" {column_type} NOT NULL DEFAULT {default}'
        )


def backwards(apps, schema_editor):
    # DROP COLUMN (SQLite >= 3.35) touches no trigger of the table.
    for table, column, *_ in reversed(COLUMNS):
        schema_editor.execute(f'ALTER TABLE {table} DROP COLUMN "{column}"')


class Migration(migrations.Migration):
    dependencies = [("ledger", "0006_hand_dealt_only_with_fees")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(forwards, backwards, elidable=False)],
            state_operations=[
                migrations.AddField(
                    model_name="journaltransaction",
                    name="key_id",
                    field=models.CharField(
                        blank=True,
                        default="",
                        help_text=(
                            "Id of the secret key the hash is an HMAC with (empty: a plain sha256 row "
                            "of format 1)."
                        ),
                        max_length=32,
                    ),
                ),
                migrations.AddField(
                    model_name="integritycheck",
                    name="scope",
                    field=models.CharField(
                        choices=[("ledger", "Ledger and books"), ("replay", "Replay audit")],
                        default="ledger",
                        max_length=10,
                    ),
                ),
                migrations.AddField(
                    model_name="integritycheck",
                    name="anchors",
                    field=models.JSONField(
                        blank=True, default=dict, help_text="Signed chain heads the check saw."
                    ),
                ),
                migrations.AddField(
                    model_name="shiftclose",
                    name="anchors",
                    field=models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="Signed chain heads at the close (ledger.anchors).",
                    ),
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="integritycheck",
            index=models.Index(fields=["scope", "-started_at"], name="ledger_integrity_scope"),
        ),
    ]
