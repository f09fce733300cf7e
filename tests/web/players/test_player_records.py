"""The player API and the floor's player pages leave their trace in the change log, as the services
write it: who created, changed, merged or deleted a player, and when, in words (numbers hidden). A
player with history is not deleted (409 ``in_use``) and nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from rest_framework.test import APIClient

from backoffice.reports.changes import describe_change
from handflow import services as hand_flow
from tables import services
from tables.models import ConfigChange, Player, Table

Clients = Callable[[str | None], APIClient]
pytestmark = pytest.mark.django_db


def log_of(player_id: int) -> list[tuple[str, str, list[str]]]:
    """The player's change-log rows, oldest first: (action, who, in words)."""
    rows = ConfigChange.objects.filter(
        content_type=ContentType.objects.get_for_model(Player), object_id=str(player_id)
    ).order_by("at", "pk")
    return [(row.action, row.by_username, describe_change(row.before, row.after)) for row in rows]


def test_the_api_creates_changes_merges_and_deletes_with_a_trace(client_for: Clients) -> None:
    floor = client_for("floor")
    created = floor.post(
        "/api/players/",
        {"name": "Ana Ruiz", "member_number": "M-7731", "phone": "530 892 2282"},
        format="json",
    )
    assert created.status_code == 201, created.content
    ana = created.json()["id"]
    changed = floor.patch(f"/api/players/{ana}/", {"name": "Ana Soto", "phone": ""}, format="json")
    assert changed.status_code == 200, changed.content
    dup = floor.post("/api/players/", {"name": "Ann Soto", "confirmed_new_person": True}, format="json")
    dup_id = dup.json()["id"]
    merged = floor.post(
        f"/api/players/{ana}/merge/", {"merged": dup_id, "reason": "same card"}, format="json"
    )
    assert merged.status_code == 201, merged.content
    typo = floor.post("/api/players/", {"name": "Zed Typo"}, format="json").json()["id"]
    assert floor.delete(f"/api/players/{typo}/").status_code == 204
    assert log_of(ana) == [
        ("create", "floor", ["Name Ana Ruiz", "Member number ending 31", "Phone ending 82"]),
        ("update", "floor", ["Name: Ana Ruiz -> Ana Soto", "Phone: ending 82 -> none"]),
        ("update", "floor", [f"Took in the record of Ann Soto (player {dup_id})"]),
    ]
    assert log_of(dup_id)[-1] == ("update", "floor", [f"Merged into Ana Soto (player {ana})"])
    assert log_of(typo) == [("create", "floor", ["Name Zed Typo"]), ("delete", "floor", ["Deleted"])]


def test_the_api_refuses_to_delete_a_player_with_ledger_rows(
    client_for: Clients, make_table: Callable[..., Table]
) -> None:
    table = make_table(stakes="nl-20-100")
    ben = services.create_player(name="Ben")
    hand_flow.buy_in(
        table=table, player=ben, amount_cents=10_000, seat_number=1, by=None, idempotency_key="ben-in"
    )
    refused = client_for("floor").delete(f"/api/players/{ben.pk}/")
    assert refused.status_code == 409
    assert refused.json()["code"] == "in_use"
    assert Player.objects.filter(pk=ben.pk).exists()
    assert [action for action, _, _ in log_of(ben.pk)] == ["create"]
    assert client_for("floor").delete("/api/players/999999/").status_code == 404


def test_the_floor_pages_add_change_and_buy_in_a_walk_in_with_a_trace(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    client = Client()
    client.force_login(users["floor"])
    added = client.post("/floor/players/new/", {"name": "Ana Ruiz", "member_number": "", "phone": ""})
    assert added.status_code == 302
    ana = Player.objects.get(name="Ana Ruiz")
    changed = client.post(
        f"/floor/players/{ana.pk}/",
        {"action": "update", "name": "Ana Soto", "member_number": "1001", "phone": ""},
    )
    assert changed.status_code == 302
    assert log_of(ana.pk) == [
        ("create", "floor", ["Name Ana Ruiz"]),
        ("update", "floor", ["Name: Ana Ruiz -> Ana Soto", "Member number: none -> ending 01"]),
    ]
    table = make_table(number=31, stakes="nl-20-100")
    form = {"action": "buy_in", "token": "w1", "player": "", "player_name": "Kai Wong", "seat_number": "5",
            "amount": "100", "confirm": "1"}  # fmt: skip
    bought = client.post(f"/floor/tables/{table.number}/", form)
    assert bought.status_code == 302, bought.content
    kai = Player.objects.get(name="Kai Wong")
    assert log_of(kai.pk) == [("create", "floor", ["Name Kai Wong"])]
