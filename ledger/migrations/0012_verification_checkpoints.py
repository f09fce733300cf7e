"""Verification checkpoints (``ledger.VerificationCheckpoint``, docs/retention.md): how far each
nightly check has verified, append-only like the other records.

Triggers refuse UPDATE and DELETE on the new table, as on every record since migration 0004; the
statements are :func:`ledger.db_sql.append_only_triggers`'s for ``ledger_verificationcheckpoint``,
which are frozen (``tests/ledger/test_db_sql.py``: byte for byte what this migration ran when it
was applied). Like the other records, the app's role may only INSERT and SELECT here
(``RECORD_MODELS`` in ``ledger/db_privileges.py``).
"""

import django.utils.timezone
from django.db import migrations, models

from ledger.db_sql import VendorStatements, append_only_triggers

TRIGGERS = VendorStatements(append_only_triggers("ledger_verificationcheckpoint"))


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
        migrations.RunPython(TRIGGERS.forwards, TRIGGERS.backwards, elidable=False),
    ]
