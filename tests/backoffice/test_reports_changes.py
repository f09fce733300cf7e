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

from backoffice.reports.changes import Names, build_change_log, describe_change, rate_changes
from backoffice.reports.common import ReportFilters
from ledger.models import AuthChange, AuthChangeAction
from ledger.shifts import room_zone
from tables import services as floor_services
from tables.history import snapshot
from tables.models import CollectionRate, Game, Stakes
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
    assert closed.subject == "Table 121"
    assert closed.items == ["Status: open -> closed"]
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
    assert (line.who, line.action, line.subject) == ("boss", "changed", "User dealer")
    assert "Groups" in line.what


def test_describe_change_in_words(db: None) -> None:
    names = Names()
    assert describe_change({"a": 1, "b": 2}, {"a": 1, "b": 3}, names=names) == ["B: 2 -> 3"]
    # Ids and times are not shown; ids are named, cents are dollars, choices are their labels.
    holdem, omaha = Game.objects.get(slug="holdem"), Game.objects.get(slug="omaha")
    four, six = Stakes.objects.get(code="limit-4-8"), Stakes.objects.get(code="limit-6-12")
    before = {"id": 7, "game_id": holdem.pk, "stakes_id": four.pk, "chip_unit_cents": 100, "created_at": "x"}
    after = {"id": 7, "game_id": omaha.pk, "stakes_id": six.pk, "chip_unit_cents": 50, "created_at": "y"}
    assert describe_change(before, after, names=names) == [
        f"Game: {holdem.name} -> {omaha.name}",
        "Stakes: $4-$8 limit -> $6-$12 limit",
        "Chip: $1 -> $0.50",
    ]
    assert describe_change(None, {"id": 1, "name": "x", "is_active": True}, names=names) == [
        "Name x",
        "Active yes",
    ]
    assert describe_change({"a": 1}, None, names=names) == ["Deleted"]


def test_a_schedule_revision_shows_only_the_fees_that_changed(
    room: ReportRoom, staff: dict[str, Any]
) -> None:
    schedule = room.limit_schedule("RPT-REV")
    rates = [
        {k: v for k, v in snapshot(rate).items() if k not in {"id", "version_id"}}
        for rate in schedule.versions.get().rates.order_by("pk")
    ]
    rates[0]["fee_cents"] = 200  # 1-4 players: $1 -> $2; the others stay
    rates.append({**rates[2], "small_bet_cents": 600, "big_bet_cents": 1200, "fee_cents": 400})
    floor_services.revise_schedule(schedule=schedule, rates=rates, by=staff["floor"], reason="new year")
    line = next(line for line in build_change_log(_today()).lines if line.action == "New schedule version")
    assert (line.who, line.reason, line.subject) == (
        "floor",
        "new year",
        "Collection schedule RPT-REV: Report tests",
    )
    head, *changes = line.items
    assert head.startswith("Version 2 in force from ")
    assert head.endswith("(follows version 1)")
    assert changes == [
        "Fee $4-$8, 1-4 players: $1 from the button -> $2 from the button",
        "Rate added: $6-$12, 7-10 players: $4 from the button",
    ]
    # No raw dump: no ids, no Python values, no list of every rate.
    for raw in ("_id", "None", "rates:", "'structure'"):
        assert raw not in line.what


def test_rate_changes_lists_changed_added_and_removed_rows(db: None) -> None:
    def rate(small: int, low: int, high: int, fee: int) -> CollectionRate:
        return CollectionRate(
            structure="limit",
            small_bet_cents=small,
            big_bet_cents=2 * small,
            players_min=low,
            players_max=high,
            payer="button",
            fee_cents=fee,
        )

    old = [rate(400, 1, 4, 100), rate(400, 5, 10, 200), rate(300, 1, 10, 100)]
    new = [rate(400, 1, 4, 100), rate(400, 5, 10, 250), rate(600, 1, 10, 300)]
    assert [(c.kind, c.limits, c.players, c.old, c.new) for c in rate_changes(old, new)] == [
        ("changed", "$4-$8", "5-10", "$2 from the button", "$2.50 from the button"),
        ("added", "$6-$12", "1-10", "", "$3 from the button"),
        ("removed", "$3-$6", "1-10", "$1 from the button", ""),
    ]


def test_records_are_never_deleted(db: None) -> None:
    change = AuthChange.objects.create(
        action="user_created", subject_type="user", subject_id=1, subject_repr="x"
    )
    with pytest.raises(TypeError):
        change.delete()
    with pytest.raises(TypeError):
        AuthChange.objects.all().delete()
    assert AuthChange.objects.filter(pk=change.pk).exists()
