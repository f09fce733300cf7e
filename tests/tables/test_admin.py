"""The floor's admin (tables/admin.py): its forms go through the services and refuse bad input
with form errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.test import Client

from tables import services
from tables.models import CollectionSchedule, ConfigChange, Game, Player, Seating, Stakes, Table


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def admin_post(client: Client, url: str, data: dict[str, Any]) -> tuple[int, str]:
    response = client.post(url, data)
    return response.status_code, response.content.decode()


def table_form(**overrides: Any) -> dict[str, Any]:
    data = {
        "number": 20,
        "game": Game.objects.get(slug="holdem").pk,
        "stakes": Stakes.objects.get(code="limit-4-8").pk,
        "seat_count": 10,
        "chip_unit_cents": 100,
        "collection_schedule": CollectionSchedule.objects.get(code="A").pk,
        "change_reason": "",
        "seats-TOTAL_FORMS": 0,
        "seats-INITIAL_FORMS": 0,
    }
    return data | overrides


def test_admin_creates_a_table_through_the_service(users: dict[str, Any], house: None) -> None:
    status, _ = admin_post(logged_in(users["admin"]), "/admin/tables/table/add/", table_form())
    assert status == 302
    table = Table.objects.get(number=20)
    assert table.seats.count() == 10
    assert ConfigChange.objects.filter(object_repr="Table 20", by_username="admin").exists()


def test_admin_table_mismatch_is_a_form_error(users: dict[str, Any], house: None) -> None:
    data = table_form(stakes=Stakes.objects.get(code="points-5").pk)
    status, page = admin_post(logged_in(users["admin"]), "/admin/tables/table/add/", data)
    assert status == 200
    assert "is a points stakes" in page
    assert not Table.objects.filter(number=20).exists()


def test_admin_change_needs_a_reason(users: dict[str, Any], make_table: Callable[..., Table]) -> None:
    table = make_table(number=21, open=False)
    url = f"/admin/tables/table/{table.pk}/change/"
    data = table_form(stakes=Stakes.objects.get(code="limit-6-12").pk)
    del data["number"]
    status, page = admin_post(logged_in(users["admin"]), url, data)
    assert status == 200
    assert "Say why you are changing it" in page
    data["change_reason"] = "bigger game"
    status, _ = admin_post(logged_in(users["admin"]), url, data)
    assert status == 302
    table.refresh_from_db()
    assert table.stakes.code == "limit-6-12"
    assert ConfigChange.objects.filter(reason="bigger game").count() == 1


def test_admin_seating_errors(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    table, ana, ben = make_table(number=22), make_player("Ana"), make_player("Ben")
    services.seat_player(table=table, seat_number=1, player=ana, by=None)
    client = logged_in(users["admin"])
    for seat_number, player, message in (
        (1, ben, "taken by Ana"),
        (12, ben, "no seat 12"),
        (3, ana, "already sits in seat 1"),
    ):
        status, page = admin_post(
            client,
            "/admin/tables/seating/add/",
            {"table": table.pk, "seat_number": seat_number, "player": player.pk},
        )
        assert status == 200, message
        assert message in page, message
    assert Seating.objects.count() == 1
    status, _ = admin_post(
        client, "/admin/tables/seating/add/", {"table": table.pk, "seat_number": 2, "player": ben.pk}
    )
    assert status == 302
    assert Seating.objects.active().filter(seat__number=2, player=ben).exists()


def test_admin_pages_render(users: dict[str, Any], make_table: Callable[..., Table]) -> None:
    make_table(number=23)
    client = logged_in(users["admin"])
    for model in (
        "game",
        "stakes",
        "collectionschedule",
        "collectionscheduleversion",
        "collectionrate",
        "table",
        "seat",
        "player",
        "seating",
        "buttonstate",
        "hand",
        "configchange",
    ):
        assert client.get(f"/admin/tables/{model}/").status_code == 200, model
    assert client.get("/admin/tables/collectionscheduleversion/add/").status_code == 200


def version_form(schedule: CollectionSchedule, when: str, rates: list[dict[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schedule": schedule.pk,
        "effective_from_0": when.split(" ")[0],
        "effective_from_1": when.split(" ")[1],
        "reason": "new fees",
        "rates-TOTAL_FORMS": len(rates),
        "rates-INITIAL_FORMS": 0,
    }
    for i, rate in enumerate(rates):
        for key, value in rate.items():
            data[f"rates-{i}-{key}"] = value
    return data


CP_RATE = {
    "structure": "points",
    "point_min_cents": 100,
    "point_max_cents": 10000,
    "players_min": 1,
    "players_max": 10,
    "payer": "each_player",
    "fee_cents": 175,
    "others_fee_cents": "",
}


def test_admin_adds_a_schedule_version(users: dict[str, Any], house: None) -> None:
    schedule = CollectionSchedule.objects.get(code="CP1")
    client = logged_in(users["admin"])
    status, page = admin_post(
        client,
        "/admin/tables/collectionscheduleversion/add/",
        version_form(schedule, "2001-01-01 00:00:00", [CP_RATE]),
    )
    assert status == 200
    assert "never rewrites the past" in page
    assert schedule.versions.count() == 1
    status, _ = admin_post(
        client,
        "/admin/tables/collectionscheduleversion/add/",
        version_form(schedule, "2099-01-01 00:00:00", [CP_RATE]),
    )
    assert status == 302
    latest = schedule.versions.order_by("-number").first()
    assert latest is not None
    assert latest.number == 2
    assert [r.fee_cents for r in latest.rates.all()] == [175]
    assert ConfigChange.objects.filter(action="new_version", reason="new fees").count() == 1


def test_admin_version_with_six_rates_for_a_table_is_refused(
    users: dict[str, Any], make_table: Callable[..., Table]
) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
    six = [{**CP_RATE, "players_min": n, "players_max": n} for n in range(1, 7)]
    status, page = admin_post(
        logged_in(users["admin"]),
        "/admin/tables/collectionscheduleversion/add/",
        version_form(table.collection_schedule, "2099-01-01 00:00:00", six),
    )
    assert status == 200
    assert "at most 5" in page
    assert table.collection_schedule.versions.count() == 1


def test_admin_stakes_kill_at_no_limit_is_a_form_error(users: dict[str, Any], db: None) -> None:
    data = {
        "code": "nl-kill",
        "structure": "no_limit",
        "buy_in_min_cents": 2000,
        "kill": "half",
        "is_active": "on",
    }
    status, page = admin_post(logged_in(users["admin"]), "/admin/tables/stakes/add/", data)
    assert status == 200
    assert "No kill at no limit" in page
    assert not Stakes.objects.filter(code="nl-kill").exists()


def test_admin_seating_at_a_closed_table_is_a_form_error(
    users: dict[str, Any], make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    table = make_table(open=False)
    status, page = admin_post(
        logged_in(users["admin"]),
        "/admin/tables/seating/add/",
        {"table": table.pk, "seat_number": 1, "player": make_player().pk},
    )
    assert status == 200
    assert "is closed" in page
    assert not Seating.objects.exists()
