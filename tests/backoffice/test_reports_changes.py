"""The configuration change log: floor changes with who, when and why; user, group and permission
changes recorded by signals; the admin's own log naming who changed a user."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from backoffice.reports.changes import build_change_log, describe_change
from backoffice.reports.common import ReportFilters
from ledger.models import AuthChange, AuthChangeAction
from ledger.shifts import room_zone
from tables import services as floor_services
from tests.factories import ReportRoom

pytestmark = pytest.mark.django_db


def _today() -> ReportFilters:
    today = timezone.localtime(timezone.now(), room_zone()).date()
    return ReportFilters(date_from=today, date_to=today)


def test_floor_changes_name_who_what_and_why(room: ReportRoom, staff: dict[str, Any]) -> None:
    table = room.table(121, schedule=room.limit_schedule())
    floor_services.close_table(table=table, by=staff["floor"], reason="end of the night")
    log = build_change_log(_today())
    closed = next(line for line in log.lines if line.action == "Closed")
    assert (closed.source, closed.who, closed.reason) == ("floor", "floor", "end of the night")
    assert closed.subject == "table Table 121"
    assert "status: open -> closed" in closed.what
    created = next(line for line in log.lines if line.action == "Created" and "Table 121" in line.subject)
    assert created.who == "system"
    # Newest first.
    assert [line.at for line in log.lines] == sorted((line.at for line in log.lines), reverse=True)
    # A tables filter keeps that table's changes (and the schedule's), not other tables'.
    room.table(122, schedule=room.limit_schedule())
    only = build_change_log(
        ReportFilters(date_from=_today().date_from, date_to=_today().date_to, tables=(122,))
    )
    assert not any("Table 121" in line.subject for line in only.lines)
    assert any("Table 122" in line.subject for line in only.lines)


def test_user_group_and_permission_changes_are_recorded(db: None) -> None:
    model = get_user_model()
    user = model.objects.create_user(username="newdealer", password=None)
    group = Group.objects.create(name="Night count team")
    user.groups.add(group)
    user.is_staff = True
    user.save()
    group.permissions.add(Permission.objects.get(codename="add_dropcount"))
    user.groups.remove(group)
    actions = list(
        AuthChange.objects.filter(subject_repr__in=["newdealer", "Night count team"])
        .order_by("pk")
        .values_list("action", "subject_repr", "detail")
    )
    assert actions == [
        (
            AuthChangeAction.USER_CREATED,
            "newdealer",
            {"username": "newdealer", "is_active": True, "is_staff": False, "is_superuser": False},
        ),
        (AuthChangeAction.GROUP_CREATED, "Night count team", {"name": "Night count team"}),
        (AuthChangeAction.GROUPS_ADDED, "newdealer", {"items": ["Night count team"]}),
        (AuthChangeAction.USER_CHANGED, "newdealer", {"is_staff": "False -> True"}),
        (AuthChangeAction.PERMISSIONS_ADDED, "Night count team", {"items": ["ledger.add_dropcount"]}),
        (AuthChangeAction.GROUPS_REMOVED, "newdealer", {"items": ["Night count team"]}),
    ]
    log = build_change_log(_today())
    access = [line for line in log.lines if line.source == "access" and "newdealer" in line.subject]
    assert {line.action for line in access} >= {"User created", "Added to groups", "User changed"}


def test_admin_log_entries_name_the_admin(staff: dict[str, Any]) -> None:
    admin_user = get_user_model().objects.create_superuser(
        username="boss", password=None, email="b@example.invalid"
    )
    LogEntry.objects.create(
        user=admin_user,
        content_type=ContentType.objects.get_for_model(get_user_model()),
        object_id=str(staff["dealer"].pk),
        object_repr="dealer",
        action_flag=CHANGE,
        change_message='[{"changed": {"fields": ["Groups"]}}]',
    )
    line = next(line for line in build_change_log(_today()).lines if line.source == "admin")
    assert (line.who, line.action, line.subject) == ("boss", "changed", "user dealer")
    assert "Groups" in line.what


def test_describe_change() -> None:
    assert describe_change({"a": 1, "b": 2}, {"a": 1, "b": 3}) == "b: 2 -> 3"
    assert describe_change(None, {"id": 1, "name": "x"}) == "created: name=x"
    assert describe_change({"a": 1}, None) == "deleted"


def test_records_are_never_deleted(db: None) -> None:
    change = AuthChange.objects.create(
        action="user_created", subject_type="user", subject_id=1, subject_repr="x"
    )
    with pytest.raises(TypeError):
        change.delete()
    with pytest.raises(TypeError):
        AuthChange.objects.all().delete()
    assert AuthChange.objects.filter(pk=change.pk).exists()
