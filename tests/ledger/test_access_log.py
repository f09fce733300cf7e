"""The access log (``ledger.AccessEvent``) is a record like the ledger's others: append-only in the
ORM and in the database (migration 0010's triggers), and the app's database role may only add and
read its rows. Passwords set anywhere are recorded; a rehash at login is not a change."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, transaction

from ledger.access_log import RecordPasswordChange, record
from ledger.db_privileges import APPEND_RIGHTS, RECORD_TABLES, app_table_rights
from ledger.models import AccessEvent, AccessEventKind

pytestmark = pytest.mark.django_db


def test_the_app_role_may_only_add_and_read_access_events() -> None:
    assert "ledger_accessevent" in RECORD_TABLES  # so the integrity report expects its trigger too
    assert app_table_rights(["ledger_accessevent"]) == {"ledger_accessevent": APPEND_RIGHTS}


def test_access_events_are_append_only_in_the_orm() -> None:
    event = record(kind=AccessEventKind.LOGIN_FAILED, username="nobody-here")
    with pytest.raises(TypeError):
        event.save()
    with pytest.raises(TypeError):
        event.delete()
    with pytest.raises(TypeError):
        AccessEvent.objects.filter(pk=event.pk).update(username="someone")
    with pytest.raises(TypeError):
        AccessEvent.objects.all().delete()


@pytest.mark.tamper
def test_access_events_are_append_only_in_the_database() -> None:
    """With the tables' owner's rights (an attacker with the database password), the triggers refuse."""
    event = record(kind=AccessEventKind.LOGIN_FAILED, username="mallory")
    for sql in ("UPDATE ledger_accessevent SET username = 'nobody'", "DELETE FROM ledger_accessevent"):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)
    event.refresh_from_db()
    assert event.username == "mallory"


@pytest.mark.postgres
def test_the_app_role_can_t_change_or_delete_access_events(db_app_role: str) -> None:
    record(kind=AccessEventKind.LOGIN_FAILED, username="mallory")
    for sql in ("UPDATE ledger_accessevent SET username = 'nobody'", "DELETE FROM ledger_accessevent"):
        with (
            pytest.raises(DatabaseError, match="permission denied"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)
    assert AccessEvent.objects.filter(username="mallory").count() == 1


def test_a_password_set_anywhere_is_recorded_once() -> None:
    """set_password and a save, as the password change page, the admin's forms and ``manage.py
    changepassword`` do: one event each. (A user made with a password is the change log's
    ``user_created``; create_user stores the hash without set_password.)"""
    user = get_user_model().objects.create_user(username="newfloor", password="first-Passw0rd-1")
    user.set_password("second-Passw0rd-2")
    user.save()
    user.is_staff = True
    user.save()  # no password set: nothing
    user.set_password("third-Passw0rd-3")
    user.save(update_fields=["password"])
    events = AccessEvent.objects.filter(kind=AccessEventKind.PASSWORD_CHANGED, user_id=user.pk)
    assert events.count() == 2
    assert set(events.values_list("username", flat=True)) == {"newfloor"}


def test_a_user_made_without_a_password_records_no_password() -> None:
    get_user_model().objects.create_user(username="nopassword", password=None)
    assert not AccessEvent.objects.filter(kind=AccessEventKind.PASSWORD_CHANGED).exists()


def test_the_recording_validator_validates_nothing_and_says_what_it_does() -> None:
    validator = RecordPasswordChange()
    assert validator.validate("x") is None
    assert "access log" in validator.get_help_text()
