"""Indexes the reports need (docs/reports.md, "Performance").

* ``ledger_txn_created``: the journal over all tables for a period (``created_at`` range).
* ``ledger_rpt_hand_created_at`` on the floor's ``tables_hand (created_at)``: every report selects
  the hands of a period by their start; without it a month of a year's room is a scan of every
  hand. It is created here, by raw SQL with no model state, because the reports are what need it;
  the floor app may adopt it as a ``Hand.Meta.indexes`` entry (then drop this one).
"""

from django.db import migrations, models

HAND_INDEX = "ledger_rpt_hand_created_at"


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0004_report_records_append_only"),
        ("tables", "0001_floor_model"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="journaltransaction",
            index=models.Index(fields=["created_at"], name="ledger_txn_created"),
        ),
        migrations.RunSQL(
            sql=f"CREATE INDEX IF NOT EXISTS {HAND_INDEX} ON tables_hand (created_at)",
            reverse_sql=f"DROP INDEX IF EXISTS {HAND_INDEX}",
            elidable=False,
        ),
    ]
