"""The waiting lists in the Django admin (tables/lists/admin.py): the lists, their places, their
record, the room's list settings and the must-move tables are there for the floor and auditors to
read, search and filter; nothing is added, changed or deleted from the admin (the lists change
only through tables.lists.services, and their record is append-only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from tables.lists import services
from tables.models import (
    EntrySource,
    Game,
    MustMove,
    Player,
    Stakes,
    Table,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
    WaitingListSettings,
)

pytestmark = pytest.mark.django_db

MODELS = ("waitinglist", "waitinglistentry", "waitinglistevent", "waitinglistsettings", "mustmove")


@pytest.fixture
def lists_on_record(
    users: dict[str, AbstractBaseUser], table_with_players: Callable[..., tuple[Table, list[Player]]]
) -> dict[str, Any]:
    """A hold'em list with a call-in and a player called to the must-move table's open seat, the
    room's settings saved, and a must-move table: one row of each model, made by the services."""
    floor = users["floor"]
    holdem = services.create_list(
        game=Game.objects.get(slug="holdem"), stakes=Stakes.objects.get(code="limit-4-8-half"), by=floor
    )
    table, _ = table_with_players(2, seat_count=3)
    must_move = services.set_must_move(table=table, waiting_list=holdem, by=floor)
    [first] = services.add_player(waiting_lists=[holdem], new_player_name="Ann Marie Smith", by=floor)
    services.add_player(
        waiting_lists=[holdem], new_player_name="Cal Phone", added_via=EntrySource.PHONE, by=floor
    )
    services.call_player(entry=first, table=table, by=floor)
    settings = services.update_list_settings(by=floor, reason="house rule", call_minutes=4)
    return {
        "waitinglist": holdem,
        "waitinglistentry": first,
        "waitinglistevent": WaitingListEvent.objects.filter(player=first.player).last(),
        "waitinglistsettings": settings,
        "mustmove": must_move,
    }


def admin_client(user: AbstractBaseUser) -> Client:
    # The floor and auditors reach the admin as staff (load_demo_floor makes them so).
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("role", ["admin", "floor", "auditor"])
def test_each_list_model_has_a_list_page_and_a_read_only_row_page(
    role: str, users: dict[str, AbstractBaseUser], lists_on_record: dict[str, Any]
) -> None:
    client = admin_client(users[role])
    for model in MODELS:
        listing = client.get(f"/admin/tables/{model}/")
        assert listing.status_code == 200, (role, model)
        row = lists_on_record[model]
        page = client.get(f"/admin/tables/{model}/{row.pk}/change/")
        assert page.status_code == 200, (role, model)
        content = page.content.decode()
        # A view, not a form: no save button, no delete link.
        assert 'name="_save"' not in content, (role, model)
        assert f"/admin/tables/{model}/{row.pk}/delete/" not in content, (role, model)
        assert f'href="/admin/tables/{model}/add/"' not in listing.content.decode(), (role, model)


def test_the_list_pages_search_and_filter(
    users: dict[str, AbstractBaseUser], lists_on_record: dict[str, Any]
) -> None:
    client = admin_client(users["floor"])
    found = client.get("/admin/tables/waitinglistentry/", {"q": "Ann Marie"}).content.decode()
    assert "Ann Marie Smith" in found
    assert "Cal Phone" not in found
    call_ins = client.get("/admin/tables/waitinglistentry/", {"added_via__exact": "phone"}).content.decode()
    assert "Cal Phone" in call_ins
    assert "Ann Marie Smith" not in call_ins
    called = client.get("/admin/tables/waitinglistevent/", {"event__exact": "called"}).content.decode()
    assert "Ann Marie Smith" in called
    assert "Cal Phone" not in called
    # The list's count of players on it, as recorded.
    lists_page = client.get("/admin/tables/waitinglist/").content.decode()
    assert '<td class="field-on_list">2</td>' in lists_page
    assert client.get("/admin/tables/mustmove/", {"q": "1"}).status_code == 200


@pytest.mark.parametrize("role", ["admin", "floor"])
def test_nothing_is_added_changed_or_deleted_from_the_list_admin(
    role: str, users: dict[str, AbstractBaseUser], lists_on_record: dict[str, Any]
) -> None:
    client = admin_client(users[role])
    entry: WaitingListEntry = lists_on_record["waitinglistentry"]
    before = {
        "lists": list(WaitingList.objects.values()),
        "entries": list(WaitingListEntry.objects.values()),
        "events": list(WaitingListEvent.objects.values()),
        "settings": list(WaitingListSettings.objects.values()),
        "must_moves": list(MustMove.objects.values()),
    }
    for model in MODELS:
        row = lists_on_record[model]
        assert client.get(f"/admin/tables/{model}/add/").status_code == 403, (role, model)
        assert client.post(f"/admin/tables/{model}/add/", {}).status_code == 403, (role, model)
        assert client.get(f"/admin/tables/{model}/{row.pk}/delete/").status_code == 403, (role, model)
        assert client.post(f"/admin/tables/{model}/{row.pk}/delete/", {"post": "yes"}).status_code == 403
        # A change posted to the row's page is not saved (the page is a view; the answer is 403).
        changed = client.post(f"/admin/tables/{model}/{row.pk}/change/", {"position": 9, "reason": "x"})
        assert changed.status_code == 403, (role, model)
        # No bulk action either (not even "delete selected"): the list page offers none, and a
        # bulk delete posted anyway deletes nothing (checked below).
        assert 'name="action"' not in client.get(f"/admin/tables/{model}/").content.decode(), (role, model)
        client.post(
            f"/admin/tables/{model}/",
            {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
        )
    assert WaitingListEntry.objects.get(pk=entry.pk).position == entry.position
    after = {
        "lists": list(WaitingList.objects.values()),
        "entries": list(WaitingListEntry.objects.values()),
        "events": list(WaitingListEvent.objects.values()),
        "settings": list(WaitingListSettings.objects.values()),
        "must_moves": list(MustMove.objects.values()),
    }
    assert after == before
