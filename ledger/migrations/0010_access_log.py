"""The access log: logins, failed logins, lock-outs, logouts, idle sessions ended and passwords set
(``ledger.AccessEvent``, docs/security.md), append-only like the other records.

The table, then its append-only triggers (``ledger_accessevent_append_only`` on PostgreSQL,
``ledger_accessevent_no_update`` and ``_no_delete`` on SQLite), written by
:func:`ledger.db_sql.append_only_triggers`: frozen, the statements this migration wrote out itself
when it was applied, byte for byte (``tests/ledger/test_db_sql.py`` holds them). The app's database
role gets SELECT and INSERT only (``ledger/db_privileges.py``, ``RECORD_MODELS``).
"""

import django.utils.timezone
from django.db import migrations, models

from ledger.db_sql import VendorStatements, append_only_triggers

TRIGGERS = VendorStatements(append_only_triggers("ledger_accessevent"))


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
        migrations.RunPython(TRIGGERS.forwards, TRIGGERS.backwards, elidable=False),
    ]
