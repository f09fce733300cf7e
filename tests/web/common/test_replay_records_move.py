"""The API's replay records (IdempotentRequest) are the web's model, in the table they had as the
floor's: the move changed Django's migration state only, never the database."""

from __future__ import annotations

import io

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db import connection, migrations
from django.db.migrations.loader import MigrationLoader

from tables.roles import AUDITOR
from web.models import IdempotentRequest

# The two migrations of the move: the web's state gains the model, the floor's loses it.
MOVE = [("web", "0001_initial"), ("tables", "0009_idempotent_request_to_web")]


def test_the_model_is_the_webs_in_the_floors_old_table() -> None:
    assert IdempotentRequest._meta.app_label == "web"
    assert IdempotentRequest._meta.db_table == "tables_idempotentrequest"
    assert apps.get_model("web", "IdempotentRequest") is IdempotentRequest
    with pytest.raises(LookupError):
        apps.get_model("tables", "IdempotentRequest")


def test_the_move_changes_the_state_only() -> None:
    loader = MigrationLoader(None, ignore_no_migrations=True)
    for key in MOVE:
        operations = loader.disk_migrations[key].operations
        assert [type(op) for op in operations] == [migrations.SeparateDatabaseAndState]
        assert [op.database_operations for op in operations] == [[]]


# Transactional: SQLite's schema editor (which sqlmigrate opens) can't run inside the test's atomic().
@pytest.mark.django_db(transaction=True)
def test_the_move_sends_no_sql() -> None:
    for app, migration in MOVE:
        out = io.StringIO()
        call_command("sqlmigrate", app, migration, stdout=out)
        statements = [
            line
            for line in out.getvalue().splitlines()
            if line.strip() and not line.startswith("--") and line.strip() not in {"BEGIN;", "COMMIT;"}
        ]
        assert statements == [], (app, migration)


def test_the_table_is_there_and_the_state_matches_the_models(db: None) -> None:
    assert "tables_idempotentrequest" in connection.introspection.table_names()
    # No migration missing for the web's model or the floor's (the state agrees with the code).
    call_command("makemigrations", "web", "tables", "--check", "--dry-run", stdout=io.StringIO())


def test_the_auditor_still_views_the_replay_records(db: None) -> None:
    # The auditor views every model of the floor and the ledger, and of the web since the records moved.
    auditor = Group.objects.get(name=AUDITOR)
    held = auditor.permissions.select_related("content_type")
    viewed = {f"{p.content_type.app_label}.{p.codename}" for p in held}
    assert "web.view_idempotentrequest" in viewed
    assert not any(name.split(".")[1].startswith(("add_", "change_", "delete_")) for name in viewed)
