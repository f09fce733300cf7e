"""The waiting lists' API (docs/waiting-lists.md): every operation answers with its documented body,
refusals with the one error body (web/errors.py), roles as tables/roles.py says; the floor runs a
seat from a call-in to a seating through it alone."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from handflow import services as hand_flow
from tables import services
from tables.lists import services as lists
from tables.models import (
    EntryState,
    ListEvent,
    Player,
    Table,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
)

pytestmark = pytest.mark.django_db

OPERATIONS = {
    ("get", "/api/waiting-lists/"),
    ("post", "/api/waiting-lists/"),
    ("get", "/api/waiting-lists/{id}/"),
    ("post", "/api/waiting-lists/{id}/close/"),
    ("post", "/api/waiting-lists/{id}/open-table/"),
    ("get", "/api/waiting-lists/calls/"),
    ("post", "/api/waiting-lists/move-in/"),
    ("get", "/api/waiting-list-entries/"),
    ("post", "/api/waiting-list-entries/"),
    ("get", "/api/waiting-list-entries/{id}/"),
    ("post", "/api/waiting-list-entries/{id}/arrive/"),
    ("post", "/api/waiting-list-entries/{id}/call/"),
    ("post", "/api/waiting-list-entries/{id}/seat/"),
    ("post", "/api/waiting-list-entries/{id}/pass/"),
    ("post", "/api/waiting-list-entries/{id}/remove/"),
    ("post", "/api/waiting-list-entries/{id}/move/"),
    ("get", "/api/waiting-list-events/"),
    ("get", "/api/waiting-list-events/{id}/"),
    ("get", "/api/waiting-list-settings/"),
    ("post", "/api/waiting-list-settings/"),
    ("get", "/api/must-moves/"),
    ("post", "/api/must-moves/"),
    ("get", "/api/must-moves/{id}/"),
    ("post", "/api/must-moves/{id}/end/"),
}


@pytest.fixture
def floor_api(client_for: Callable[[str | None], APIClient]) -> APIClient:
    return client_for("floor")


def post(client: APIClient, url: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(url, body or {}, format="json")


def test_every_operation_is_in_the_schema_with_its_error_body() -> None:
    from io import StringIO

    out = StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", stdout=out)
    schema = json.loads(out.getvalue())
    found = {
        (method, path)
        for path, item in schema["paths"].items()
        for method in item
        if method in ("get", "post")
    }
    assert found >= OPERATIONS
    for method, path in OPERATIONS:
        responses = schema["paths"][path][method]["responses"]
        assert {"401", "403"} <= set(responses)
        if method == "post":
            assert responses["400"]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"
            }


def test_a_call_in_is_called_and_seated_through_the_api(
    holdem_list: WaitingList,
    floor_api: APIClient,
    table_with_players: Callable[..., tuple[Table, list[Player]]],
) -> None:
    table, players = table_with_players(3, seat_count=3)
    added = post(
        floor_api,
        "/api/waiting-list-entries/",
        {
            "waiting_lists": [holdem_list.pk],
            "new_player_name": "Dee Phone",
            "added_via": "phone",
            "board_alias": "DP",
        },
    )
    assert added.status_code == 201, added.json()
    (entry,) = added.json()
    assert (entry["state"], entry["position"], entry["board_name"], entry["added_via"]) == (
        "waiting",
        1,
        "DP",
        "phone",
    )
    # Not here yet: calling is refused with the documented body.
    hand_flow.cash_out(
        table=table, player=players[2], by=None, idempotency_key="api-test-leaves"
    )  # seat 3 opens
    refused = post(floor_api, f"/api/waiting-list-entries/{entry['id']}/call/", {"table": table.number})
    assert refused.status_code == 409
    assert refused.json() == {
        "code": "cannot_call",
        "detail": f"Dee Phone can't be called to table {table.number}: call-in, not arrived yet.",
    }
    arrived = post(floor_api, f"/api/waiting-list-entries/{entry['id']}/arrive/")
    assert arrived.status_code == 200
    assert arrived.json()[0]["arrived_at"] is not None
    calls = floor_api.get("/api/waiting-lists/calls/").json()
    (offer,) = [t for t in calls["tables"] if t["table"] == table.number]
    assert offer["open_seats"] == 1
    assert offer["candidates"][0]["entry"] == entry["id"]
    called = post(floor_api, f"/api/waiting-list-entries/{entry['id']}/call/", {"table": table.number})
    assert called.status_code == 200, called.json()
    assert (called.json()["state"], called.json()["called_to"]) == ("called", table.number)
    seated = post(floor_api, f"/api/waiting-list-entries/{entry['id']}/seat/", {"seat_number": 3})
    assert seated.status_code == 201, seated.json()
    assert (seated.json()["table"], seated.json()["seat_number"], seated.json()["player_name"]) == (
        table.number,
        3,
        "Dee Phone",
    )
    listed = floor_api.get(f"/api/waiting-lists/{holdem_list.pk}/").json()
    assert listed["entries"] == []
    assert listed["tables"] == [table.number]
    record = floor_api.get("/api/waiting-list-events/", {"player": entry["player"]}).json()["results"]
    assert [e["event"] for e in record] == ["added", "arrived", "called", "seated"]
    assert record[-1]["by_username"] == "floor"


def test_refusals_have_the_documented_body(holdem_list: WaitingList, floor_api: APIClient) -> None:
    (entry,) = post(
        floor_api,
        "/api/waiting-list-entries/",
        {"waiting_lists": [holdem_list.pk], "new_player_name": "Al A"},
    ).json()
    again = post(
        floor_api,
        "/api/waiting-list-entries/",
        {"waiting_lists": [holdem_list.pk], "player": entry["player"]},
    )
    assert again.status_code == 409
    assert again.json()["code"] == "already_on_list"
    unknown = post(
        floor_api, "/api/waiting-list-entries/", {"waiting_lists": [999999], "new_player_name": "X"}
    )
    assert unknown.status_code == 404
    assert unknown.json()["code"] == "list_not_found"
    both = post(floor_api, "/api/waiting-list-entries/", {"waiting_lists": [holdem_list.pk]})
    assert both.status_code == 400
    assert both.json()["field"] == "player"
    no_reason = post(floor_api, f"/api/waiting-list-entries/{entry['id']}/move/", {"position": 1})
    assert no_reason.status_code == 400
    assert no_reason.json()["field"] == "reason"
    removed = post(floor_api, f"/api/waiting-list-entries/{entry['id']}/remove/", {"reason": "went home"})
    assert removed.status_code == 200
    assert removed.json()["state"] == "removed"
    gone = post(floor_api, f"/api/waiting-list-entries/{entry['id']}/pass/")
    assert gone.status_code == 409
    assert gone.json()["code"] == "not_on_list"
    bad_setting = post(floor_api, "/api/waiting-list-settings/", {"call_minutes": 0})
    assert bad_setting.status_code == 400
    assert bad_setting.json()["field"] == "call_minutes"


def test_settings_lists_and_must_moves(
    holdem_list: WaitingList, floor_api: APIClient, make_table: Callable[..., Table]
) -> None:
    assert floor_api.get("/api/waiting-list-settings/").json()["call_in_minutes"] == 60
    changed = post(
        floor_api,
        "/api/waiting-list-settings/",
        {"call_minutes": 4, "interest_by_game": {"stud": 3}, "reason": "tonight"},
    )
    assert changed.status_code == 200, changed.json()
    assert (changed.json()["call_minutes"], changed.json()["interest_by_game"]) == (4, {"stud": 3})
    created = post(floor_api, "/api/waiting-lists/", {"game": "stud", "stakes": "limit-4-8"})
    assert created.status_code == 201
    assert created.json()["players_to_open"] == 3
    duplicate = post(floor_api, "/api/waiting-lists/", {"game": "stud", "stakes": "limit-4-8"})
    assert duplicate.status_code == 409
    assert duplicate.json()["code"] == "duplicate_list"
    wrong = post(floor_api, "/api/waiting-lists/", {"game": "chinese-poker", "stakes": "limit-4-8"})
    assert wrong.status_code == 400
    assert wrong.json()["field"] == "stakes"
    table = make_table()
    must = post(floor_api, "/api/must-moves/", {"table": table.number, "waiting_list": holdem_list.pk})
    assert must.status_code == 201
    assert must.json()["table"] == table.number
    assert floor_api.get("/api/must-moves/").json()["results"][0]["id"] == must.json()["id"]
    ended = post(floor_api, f"/api/must-moves/{must.json()['id']}/end/", {"reason": "main game broke"})
    assert ended.status_code == 204
    closed = post(floor_api, f"/api/waiting-lists/{created.json()['id']}/close/")
    assert closed.status_code == 200
    assert closed.json()["is_active"] is False


@pytest.mark.parametrize(
    ("role", "method", "url", "allowed"),
    [
        ("auditor", "get", "/api/waiting-lists/", True),
        ("auditor", "get", "/api/waiting-list-events/", True),
        ("auditor", "post", "/api/waiting-list-entries/", False),
        ("dealer", "get", "/api/waiting-lists/", False),
        ("dealer", "post", "/api/waiting-list-settings/", False),
        ("floor", "get", "/api/waiting-list-events/", True),
        ("nobody", "get", "/api/waiting-lists/calls/", False),
    ],
)
def test_roles(
    holdem_list: WaitingList,
    client_for: Callable[[str | None], APIClient],
    role: str,
    method: str,
    url: str,
    allowed: bool,
) -> None:
    client = client_for(role)
    response = (
        client.get(url)
        if method == "get"
        else post(client, url, {"waiting_lists": [holdem_list.pk], "new_player_name": "Z"})
    )
    if allowed:
        assert response.status_code == 200
    else:
        assert response.status_code == 403
        assert response.json()["code"] == "permission_denied"
    assert client_for(None).get(url).status_code in (401, 403)


def test_the_record_of_a_day_through_the_api(holdem_list: WaitingList, floor_api: APIClient) -> None:
    post(
        floor_api,
        "/api/waiting-list-entries/",
        {"waiting_lists": [holdem_list.pk], "new_player_name": "Bo B"},
    )
    (event,) = WaitingListEvent.objects.all()
    today = timezone.localtime(event.at).date()  # the room's clock
    found = floor_api.get(
        "/api/waiting-list-events/", {"day": today.isoformat(), "event": ListEvent.ADDED}
    ).json()
    assert [e["id"] for e in found["results"]] == [event.pk]
    other_day = (today - dt.timedelta(days=1)).isoformat()
    assert floor_api.get("/api/waiting-list-events/", {"day": other_day}).json()["count"] == 0
    bad = floor_api.get("/api/waiting-list-events/", {"day": "yesterday"})
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid"
    assert WaitingListEntry.objects.get().state == EntryState.WAITING


@pytest.mark.slow
def test_the_lists_operations_fuzzed_on_a_room_with_lists(
    holdem_list: WaitingList,
    users: dict[str, Any],
    table_with_players: Callable[..., tuple[Table, list[Player]]],
) -> None:
    """The fuzz test (tests/web/test_api_fuzz.py) on a floor with lists, places, a call out and a
    must-move table, so that the answers' bodies are checked against the schema with rows in them."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    from tests.web.test_api_fuzz import fuzz_paths, session_headers

    floor = users["floor"]
    table_with_players(3, seat_count=4)  # the main game, one seat free
    must, _ = table_with_players(2, seat_count=3)
    lists.set_must_move(table=must, waiting_list=holdem_list, by=floor)
    for index, name in enumerate(("Al One", "Bo Two", "Cy Three")):
        lists.add_player(
            waiting_lists=[holdem_list],
            new_player_name=name,
            added_via="phone" if index == 2 else "in_person",
            by=floor,
        )
    first = WaitingListEntry.objects.order_by("position").first()
    assert first is not None
    lists.call_player(entry=first, table=must, by=floor)
    headers = session_headers(floor) | {"Idempotency-Key": "fuzz-lists-0001"}
    failures: list[str] = []
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        fuzz_paths(headers, failures, paths=("/api/waiting-list", "/api/must-moves"))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    assert not failures, "\n".join(sorted(set(failures)))


def test_the_record_names_each_player_as_they_were_at_the_event(
    holdem_list: WaitingList, floor_api: APIClient, users: dict[str, Any]
) -> None:
    """A rename rewrites nothing in the record: the list and one event, each at the event's name,
    the page's names in one query whatever its events."""
    ann = Player.objects.create(name="Ann Lee")
    (entry,) = post(
        floor_api, "/api/waiting-list-entries/", {"waiting_lists": [holdem_list.pk], "player": ann.pk}
    ).json()
    services.update_player(player=ann, name="Ann Soto", by=users["floor"])
    post(floor_api, f"/api/waiting-list-entries/{entry['id']}/remove/", {"reason": "left the room"})
    record = floor_api.get("/api/waiting-list-events/", {"player": ann.pk}).json()["results"]
    assert [(e["event"], e["player_name"]) for e in record] == [
        (ListEvent.ADDED, "Ann Lee"),
        (ListEvent.REMOVED, "Ann Soto"),
    ]
    added = floor_api.get(f"/api/waiting-list-events/{record[0]['id']}/").json()
    assert added["player_name"] == "Ann Lee"

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert floor_api.get("/api/waiting-list-events/").status_code == 200
        return len(captured)

    few = queries()
    for n in range(5):
        player = Player.objects.create(name=f"Player {n}")
        post(
            floor_api, "/api/waiting-list-entries/", {"waiting_lists": [holdem_list.pk], "player": player.pk}
        )
        services.update_player(player=player, name=f"Player {n} renamed", by=users["floor"])
    assert queries() == few
