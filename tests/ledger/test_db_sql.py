"""The append-only triggers' SQL that migrations 0010 and 0012 run (``ledger/db_sql.py``) is frozen:
byte for byte the statements those migrations wrote out themselves when they were applied, and run
as they ran them."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from ledger.db_sql import VendorStatements, append_only_triggers

# The statements as migrations 0010 and 0012 wrote them out before the helper, ``{table}`` for the
# table. Don't edit: an old migration run on a new database must make the triggers it always made.
FROZEN: dict[str, tuple[list[str], list[str]]] = {
    "postgresql": (
        [
            "CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} FOR EACH ROW EXECUTE "
            "FUNCTION ledger_refuse_record_change()"
        ],
        ["DROP TRIGGER IF EXISTS {table}_append_only ON {table}"],
    ),
    "sqlite": (
        [
            "CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} FOR EACH ROW BEGIN SELECT "
            "RAISE(ABORT, 'ledger: UPDATE on {table} is refused: records are append-only'); END",
            "CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} FOR EACH ROW BEGIN SELECT "
            "RAISE(ABORT, 'ledger: DELETE on {table} is refused: records are append-only'); END",
        ],
        ["DROP TRIGGER IF EXISTS {table}_no_update", "DROP TRIGGER IF EXISTS {table}_no_delete"],
    ),
}

MIGRATIONS = [
    ("ledger.migrations.0010_access_log", "ledger_accessevent"),
    ("ledger.migrations.0012_verification_checkpoints", "ledger_verificationcheckpoint"),
]


def frozen(table: str) -> dict[str, tuple[list[str], list[str]]]:
    def fill(statements: list[str]) -> list[str]:
        return [statement.replace("{table}", table) for statement in statements]

    return {vendor: (fill(forwards), fill(backwards)) for vendor, (forwards, backwards) in FROZEN.items()}


@pytest.mark.parametrize(("module", "table"), MIGRATIONS)
def test_the_migrations_run_the_frozen_statements_byte_for_byte(module: str, table: str) -> None:
    steps = importlib.import_module(module).TRIGGERS
    assert steps.sql == frozen(table)
    assert repr(append_only_triggers(table)) == repr(frozen(table))  # same strings, same containers
    operation = importlib.import_module(module).Migration.operations[-1]
    assert (operation.code, operation.reverse_code) == (steps.forwards, steps.backwards)


class _Editor:
    """A schema editor that records what it is asked to run."""

    def __init__(self, vendor: str) -> None:
        self.connection = type("Connection", (), {"vendor": vendor})()
        self.ran: list[tuple[str, Any]] = []

    def execute(self, sql: str, params: Any = ()) -> None:
        self.ran.append((sql, params))


@pytest.mark.parametrize("vendor", ["postgresql", "sqlite"])
def test_forwards_and_backwards_run_the_vendors_statements_in_order(vendor: str) -> None:
    steps = VendorStatements(append_only_triggers("ledger_accessevent"))
    editor = _Editor(vendor)
    steps.forwards(None, editor)
    steps.backwards(None, editor)
    forwards, backwards = frozen("ledger_accessevent")[vendor]
    assert editor.ran == [(sql, None) for sql in [*forwards, *backwards]]


def test_another_database_is_refused_going_forwards_and_left_alone_going_back() -> None:
    steps = VendorStatements(append_only_triggers("ledger_accessevent"))
    editor = _Editor("mysql")
    with pytest.raises(RuntimeError, match="PostgreSQL and SQLite, not mysql"):
        steps.forwards(None, editor)
    steps.backwards(None, editor)
    assert editor.ran == []
