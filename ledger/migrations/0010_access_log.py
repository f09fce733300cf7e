"""The access log: logins, failed logins, lock-outs, logouts, idle sessions ended and passwords set
(``ledger.AccessEvent``, docs/security.md), append-only like the other records.

The table and its append-only triggers, as migration 0004 gives the report records: on PostgreSQL a
``ledger_accessevent_append_only`` BEFORE UPDATE OR DELETE trigger calling 0004's
``ledger_refuse_record_change()``; on SQLite ``ledger_accessevent_no_update`` and
``ledger_accessevent_no_delete`` RAISE(ABORT) triggers. The app's database role gets SELECT and INSERT
only (``ledger/db_privileges.py``, ``RECORD_MODELS``).

The SQL is written out here, frozen, rather than imported, so that this migration keeps meaning what
it meant when it was applied.
"""

import django.utils.timezone
from django.db import migrations, models

TABLE = "ledger_accessevent"

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
    dependencies = [("ledger", "0009_sealed_zip_and_dealer_downs_exports")]

    operations = [
        migrations.CreateModel(
            name="AccessEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("login", "Logged in"),
                            ("login_failed", "Login failed"),
                            ("locked_out", "Locked out"),
                            ("logout", "Logged out"),
                            ("session_expired", "Session ended after inactivity"),
                            ("password_changed", "Password set or changed"),
                        ],
                        max_length=20,
                    ),
                ),
                ("username", models.CharField(blank=True, help_text="as typed, for a failed login", max_length=150)),
                (
                    "user_id",
                    models.BigIntegerField(blank=True, help_text="the user's id, when there is one", null=True),
                ),
                ("address", models.GenericIPAddressField(blank=True, null=True)),
                ("user_agent", models.CharField(blank=True, max_length=255)),
                ("path", models.CharField(blank=True, max_length=255)),
                ("detail", models.JSONField(blank=True, default=dict)),
            ],
            options={
                "ordering": ["-at", "-pk"],
                "indexes": [models.Index(fields=["username", "at"], name="ledger_access_user_at")],
            },
        ),
        migrations.RunPython(forwards, backwards, elidable=False),
    ]
