"""SQL the ledger's migrations run, written once: the append-only triggers of a record table.

FROZEN. Migrations 0010 (``ledger_accessevent``) and 0012 (``ledger_verificationcheckpoint``) run
what :func:`append_only_triggers` writes, on every new database and every test database, long after
the rows were made. So its output must never change: a database migrated before the change and one
migrated after would hold different triggers. ``tests/ledger/test_db_sql.py`` holds the statements
byte for byte, as the two migrations wrote them out when each was applied. Another trigger is a new
function (and a new migration), never an edit of this one.

Nothing here imports a model or the app registry: a migration may import it at any point of the
history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

type VendorSQL = Mapping[str, tuple[Sequence[str], Sequence[str]]]
"""Statements by database vendor (``connection.vendor``): ``(forwards, backwards)``."""


def append_only_triggers(table: str) -> dict[str, tuple[list[str], list[str]]]:
    """The triggers that make ``table`` append-only, as migration 0004 gives the report records: on
    PostgreSQL a ``<table>_append_only`` BEFORE UPDATE OR DELETE trigger calling 0004's
    ``ledger_refuse_record_change()``; on SQLite ``<table>_no_update`` and ``<table>_no_delete``
    RAISE(ABORT) triggers. With the statements that drop them again."""
    return {
        "postgresql": (
            [
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION ledger_refuse_record_change()"
            ],
            [f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}"],
        ),
        "sqlite": (
            [
                f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} FOR EACH ROW BEGIN "
                f"SELECT RAISE(ABORT, 'ledger: UPDATE on {table} is refused: records are append-only'); END",
                f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} FOR EACH ROW BEGIN "
                f"SELECT RAISE(ABORT, 'ledger: DELETE on {table} is refused: records are append-only'); END",
            ],
            [f"DROP TRIGGER IF EXISTS {table}_no_update", f"DROP TRIGGER IF EXISTS {table}_no_delete"],
        ),
    }


@dataclass(frozen=True, slots=True)
class VendorStatements:
    """A migration's raw SQL by vendor, as the two halves of a ``RunPython``
    (``migrations.RunPython(steps.forwards, steps.backwards)``)."""

    sql: VendorSQL

    def forwards(self, apps: Any, schema_editor: Any) -> None:
        """Run the vendor's forward statements; refuse a vendor the ledger's invariants aren't
        written for (RuntimeError), rather than migrate without them."""
        vendor = schema_editor.connection.vendor
        if vendor not in self.sql:
            raise RuntimeError(f"the ledger's invariants are written for PostgreSQL and SQLite, not {vendor}")
        for statement in self.sql[vendor][0]:
            schema_editor.execute(statement, params=None)

    def backwards(self, apps: Any, schema_editor: Any) -> None:
        """Run the vendor's backward statements (nothing for another vendor: nothing was made)."""
        vendor = schema_editor.connection.vendor
        if vendor in self.sql:
            for statement in self.sql[vendor][1]:
                schema_editor.execute(statement, params=None)
