"""The players' admin (tables/player_admin.py) goes through the players' services: adding, changing
and deleting a player there leaves the same change-log rows as the floor's pages and the API; what
the services refuse is a form error, or a protected player on the deletion pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.test import Client

from handflow import services as hand_flow
from tables import services
from tables.models import ConfigChange, Player, Table

pytestmark = pytest.mark.django_db


def admin_client(users: dict[str, Any]) -> Client:
    client = Client()
    client.force_login(users["admin"])
    return client


def log_of(player_id: int) -> list[ConfigChange]:
    return list(
        ConfigChange.objects.filter(
            content_type=ContentType.objects.get_for_model(Player), object_id=str(player_id)
        ).order_by("at", "pk")
    )


def form(**fields: str) -> dict[str, str]:
    return {"name": "", "member_number": "", "phone": "", "board_alias": "", "change_reason": ""} | fields


def test_the_admin_adds_and_changes_a_player_through_the_services(users: dict[str, Any]) -> None:
    client = admin_client(users)
    added = client.post("/admin/tables/player/add/", form(name="Ana Ruiz", member_number="M-7731"))
    assert added.status_code == 302
    ana = Player.objects.get(name="Ana Ruiz")
    url = f"/admin/tables/player/{ana.pk}/change/"
    changed = client.post(
        url, form(name="Ana Soto", member_number="M-7731", phone="555 0142", change_reason="married")
    )
    assert changed.status_code == 302
    created, renamed = log_of(ana.pk)
    assert (created.action, created.by_username, created.after["member_number"]) == (
        "create",
        "admin",
        "ending 31",
    )
    assert (renamed.action, renamed.by_username, renamed.reason) == ("update", "admin", "married")
    assert (renamed.before, renamed.after) == (
        {"name": "Ana Ruiz", "phone": ""},
        {"name": "Ana Soto", "phone": "ending 42"},
    )


def test_what_the_service_refuses_is_a_form_error_and_changes_nothing(users: dict[str, Any]) -> None:
    client = admin_client(users)
    ana = services.create_player(name="Ana Ruiz")
    refused = client.post(f"/admin/tables/player/{ana.pk}/change/", form(name="Ana\x07Ruiz"))
    assert refused.status_code == 200
    assert "control characters" in refused.content.decode()
    survivor = services.create_player(name="Ana R.")
    services.merge_players(survivor=survivor, merged=ana, by=None, reason="same person")
    refused = client.post(f"/admin/tables/player/{ana.pk}/change/", form(name="Ana Soto"))
    assert refused.status_code == 200
    assert "was merged into" in refused.content.decode()
    ana.refresh_from_db()
    assert ana.name == "Ana Ruiz"
    assert [c.action for c in log_of(ana.pk)] == ["create", "update"]  # created, merged: no rename


def test_the_admin_deletes_a_player_with_no_history_through_the_service(users: dict[str, Any]) -> None:
    typo = services.create_player(name="Ana Ruizz")
    pk = typo.pk
    response = admin_client(users).post(f"/admin/tables/player/{pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Player.objects.filter(pk=pk).exists()
    assert [(c.action, c.by_username) for c in log_of(pk)] == [("create", ""), ("delete", "admin")]


def test_a_player_with_history_is_protected_on_the_admins_deletion_pages(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(stakes="nl-20-100")
    ben = services.create_player(name="Ben")
    hand_flow.buy_in(
        table=table, player=ben, amount_cents=10_000, seat_number=1, by=None, idempotency_key="ben-in"
    )
    typo = services.create_player(name="Bne")
    client = admin_client(users)
    page = client.post(f"/admin/tables/player/{ben.pk}/delete/", {"post": "yes"})
    assert page.status_code == 200
    assert "Cannot delete player" in page.content.decode()
    assert "has seatings or hands on record" in page.content.decode()
    # The changelist's bulk deletion: one with history, one without: nothing is deleted.
    bulk = {"action": "delete_selected", "_selected_action": [str(ben.pk), str(typo.pk)], "post": "yes"}
    page = client.post("/admin/tables/player/", bulk)
    assert page.status_code == 200
    assert "has seatings or hands on record" in page.content.decode()
    assert Player.objects.filter(pk__in=[ben.pk, typo.pk]).count() == 2
    assert [c.action for c in log_of(ben.pk) + log_of(typo.pk)] == ["create", "create"]


def test_the_changelists_bulk_deletion_goes_through_the_service(users: dict[str, Any]) -> None:
    one, two = services.create_player(name="Typo One"), services.create_player(name="Typo Two")
    bulk = {"action": "delete_selected", "_selected_action": [str(one.pk), str(two.pk)], "post": "yes"}
    response = admin_client(users).post("/admin/tables/player/", bulk)
    assert response.status_code == 302
    assert not Player.objects.filter(pk__in=[one.pk, two.pk]).exists()
    assert [c.action for c in log_of(one.pk) + log_of(two.pk)] == ["create", "delete", "create", "delete"]
