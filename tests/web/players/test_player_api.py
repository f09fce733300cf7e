"""The API of all the floor runs the room with: tables with a kill and a choice game, players (search,
"same person?", merge, overview), a second table's reason, identifications, cash per gaming day. Each
refusal has the API's documented error body and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

from handflow import services as hand_flow
from tables import services
from tables.models import CashDaySettings, Player, PlayerIdentification, PlayerMerge, Seating, Table

Clients = Callable[[str | None], APIClient]


def error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content)
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert isinstance(body["detail"], str)
    return body


def test_tables_are_created_and_configured_with_a_kill(client_for: Clients, house: None) -> None:
    floor = client_for("floor")
    created = floor.post(
        "/api/tables/",
        {
            "number": 51,
            "game": "stud-choice",
            "stakes": "limit-4-8",
            "collection_schedule": "A",
            "kill": "full",
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    assert (created.json()["game"], created.json()["stakes"]) == ("stud-choice", "limit-4-8-full")
    changed = floor.post(
        "/api/tables/51/configure/", {"kill": "none", "reason": "no kill today"}, format="json"
    )
    assert changed.json()["stakes"] == "limit-4-8"
    error(
        floor.post(
            "/api/tables/51/configure/",
            {"stakes": "nl-100-500", "kill": "half", "reason": "r"},
            format="json",
        ),
        400,
        "invalid_stakes",
    )
    game = floor.get("/api/games/stud-choice/").json()
    assert game["choice_of"] == ["stud", "stud-hi-lo", "razz"]


def test_players_search_similar_and_same_person(client_for: Clients, db: None) -> None:
    floor = client_for("floor")
    ana = services.create_player(name="Ana Ruiz", member_number="M-5", phone="530 555 0142")
    assert [p["id"] for p in floor.get("/api/players/search/", {"q": "5550142"}).json()] == [ana.pk]
    assert [p["id"] for p in floor.get("/api/players/similar/", {"name": "ruiz, ana"}).json()] == [ana.pk]
    body = error(floor.post("/api/players/", {"name": "Ana Ruiz"}, format="json"), 409, "possible_duplicate")
    assert "Same person?" in body["detail"]
    assert Player.objects.count() == 1
    created = floor.post("/api/players/", {"name": "Ana Ruiz", "confirmed_new_person": True}, format="json")
    assert created.status_code == 201
    assert created.json()["merged_into"] is None
    assert "confirmed_new_person" not in created.json()
    changed = floor.patch(f"/api/players/{ana.pk}/", {"phone": "(530) 555-0199"}, format="json")
    assert changed.json()["phone"] == "(530) 555-0199"
    error(floor.patch(f"/api/players/{ana.pk}/", {"phone": "call me"}, format="json"), 400, "invalid")


def test_merge_and_overview(client_for: Clients, make_table: Callable[..., Table]) -> None:
    floor = client_for("floor")
    table = make_table(number=52, game="holdem", stakes="nl-100-500", schedule="A")
    ana = services.create_player(name="Ana Ruiz", member_number="M-6")
    dup = services.create_player(name="Ana Ruiz")
    hand_flow.buy_in(
        table=table, player=dup, amount_cents=20_300, seat_number=4, by=None, idempotency_key="m"
    )
    error(
        client_for("dealer").post(f"/api/players/{ana.pk}/merge/", {"merged": dup.pk, "reason": "r"}),
        403,
        "permission_denied",
    )
    error(
        floor.post(f"/api/players/{ana.pk}/merge/", {"merged": 999_999, "reason": "r"}, format="json"),
        404,
        "player_not_found",
    )
    merged = floor.post(
        f"/api/players/{ana.pk}/merge/", {"merged": dup.pk, "reason": "same card"}, format="json"
    )
    assert merged.status_code == 201, merged.content
    assert (merged.json()["survivor"], merged.json()["merged"]) == (ana.pk, dup.pk)
    error(
        floor.post(f"/api/players/{ana.pk}/merge/", {"merged": dup.pk, "reason": "again"}, format="json"),
        409,
        "player_merged",
    )
    overview = floor.get(f"/api/players/{dup.pk}/overview/").json()  # a merged record: its survivor
    assert overview["player"]["id"] == ana.pk
    assert [r["id"] for r in overview["records"]] == [ana.pk, dup.pk]
    assert overview["chips"] == [
        {"table_number": 52, "player_id": dup.pk, "seat_number": 4, "chips_cents": 20_300}
    ]
    assert (overview["in_cents"], overview["out_cents"]) == (20_300, 0)
    assert [m["kind"] for m in overview["movements"]] == ["buy_in"]
    assert overview["sessions"][0]["table"] == 52
    assert overview["merges"][0]["reason"] == "same card"
    assert PlayerMerge.objects.count() == 1


def test_seating_at_a_second_table_needs_a_reason(
    client_for: Clients, make_table: Callable[..., Table]
) -> None:
    floor = client_for("floor")
    one, two = make_table(number=53), make_table(number=54)
    ana = services.create_player(name="Ana")
    services.seat_player(table=one, seat_number=1, player=ana, by=None)
    body = error(
        floor.post("/api/seatings/", {"table": 54, "seat_number": 2, "player": ana.pk}, format="json"),
        409,
        "seated_elsewhere",
    )
    assert body["field"] == "player"
    seated = floor.post(
        "/api/seatings/",
        {"table": 54, "seat_number": 2, "player": ana.pk, "elsewhere_reason": "tournament break"},
        format="json",
    )
    assert seated.status_code == 201
    assert seated.json()["elsewhere_reason"] == "tournament break"
    assert Seating.objects.active().filter(player=ana).count() == 2
    assert two.seatings.count() == 1


def test_cash_day_settings_check_identification_and_report(
    client_for: Clients, make_table: Callable[..., Table]
) -> None:
    floor = client_for("floor")
    table = make_table(number=55, game="holdem", stakes="nl-200-nomax", schedule="A")
    ana = services.create_player(name="Ana Ruiz")
    hand_flow.buy_in(
        table=table, player=ana, amount_cents=800_000, seat_number=1, by=None, idempotency_key="c"
    )
    assert floor.get("/api/cash-day/settings/").json()["report_threshold_cents"] == 1_000_000
    error(
        client_for("dealer").post("/api/cash-day/settings/", {"reason": "r", "gaming_day_start_hour": 4}),
        403,
        "permission_denied",
    )
    error(floor.post("/api/cash-day/settings/", {"gaming_day_start_hour": 4}, format="json"), 400, "invalid")
    changed = floor.post(
        "/api/cash-day/settings/", {"gaming_day_start_hour": 4, "reason": "new hours"}, format="json"
    )
    assert changed.json()["gaming_day_start_hour"] == 4
    assert CashDaySettings.current().gaming_day_start_hour == 4
    check = floor.get(
        "/api/cash-day/check/", {"player": ana.pk, "kind": "rebuy", "amount_cents": 300_000}
    ).json()
    assert (check["total_after_cents"], check["needs_identification"], check["logged"]) == (
        1_100_000,
        True,
        False,
    )
    assert "over $10,000" in check["warning"]
    error(
        floor.get("/api/cash-day/check/", {"player": ana.pk, "kind": "tip", "amount_cents": 1}),
        400,
        "invalid",
    )
    recorded = client_for("floor").post(
        "/api/identifications/",
        {"player": ana.pk, "document": "drivers_license", "number": "D77", "issued_by": "California"},
        format="json",
    )
    assert recorded.status_code == 201, recorded.content
    assert recorded.json()["document"] == "drivers_license"
    error(client_for("dealer").post("/api/identifications/", {"player": ana.pk}), 403, "permission_denied")
    check = floor.get(
        "/api/cash-day/check/", {"player": ana.pk, "kind": "rebuy", "amount_cents": 300_000}
    ).json()
    assert check["needs_identification"] is False
    report = floor.get("/api/cash-day/report/").json()
    assert [(p["name"], p["in_cents"]) for p in report["players"]] == [("Ana Ruiz", 800_000)]
    assert [line["amount_cents"] for line in report["log"]] == [800_000]
    assert report["reports"] == []
    error(floor.get("/api/cash-day/report/", {"day": "yesterday"}), 400, "invalid")
    assert PlayerIdentification.objects.count() == 1
