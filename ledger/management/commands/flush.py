"""``flush``, ledger-aware: on SQLite the ledger's append-only triggers are lifted for the flush.

Why this exists: ``flush`` (and so every ``TransactionTestCase`` / ``django_db(transaction=True)``
test's teardown) empties tables with ``DELETE FROM`` on SQLite, and the ledger's BEFORE DELETE
triggers would refuse it. Erasing the whole database is the one deletion the ledger allows, so the
triggers are dropped and re-created from their stored definitions in the same transaction (SQLite's
DDL is transactional: on any failure everything, triggers included, is rolled back).

On PostgreSQL ``flush`` uses TRUNCATE, which row-level triggers don't see: nothing to do.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands.flush import Command as FlushCommand
from django.db import connections, transaction


class Command(FlushCommand):
    help = FlushCommand.help + " The ledger's append-only triggers are restored afterwards."

    def handle(self, **options: Any) -> None:
        database = options["database"]
        connection = connections[database]
        if connection.vendor != "sqlite":
            super().handle(**options)
            return
        with transaction.atomic(using=database):
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT name, sql FROM sqlite_master "
                    "WHERE type = 'trigger' AND tbl_name LIKE 'ledger!_%' ESCAPE '!'"
                )
                triggers: list[tuple[str, str]] = cursor.fetchall()
                for name, _ in triggers:
                    cursor.execute(f'DROP TRIGGER "{name}"')
            super().handle(**options)
            with connection.cursor() as cursor:
                for _, sql in triggers:
                    cursor.execute(sql)
