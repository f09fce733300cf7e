"""The REST API: shapes, actions, and clear 400/404/409 errors that change nothing."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tables import services
from tables.choices import HandStatus
from tables.models import CollectionSchedule, ConfigChange, Hand, Player, Seating, Table

Client = Callable[[str | None], APIClient]


@pytest.fixture
def floor(client_for: Client) -> APIClient:
    return client_for("floor")


@pytest.fixture
def dealer(client_for: Client) -> APIClient:
    return client_for("dealer")


def test_games_and_stakes(floor: APIClient, house: None) -> None:
    games = floor.get("/api/games/").json()["results"]
    assert {g["slug"] for g in games} >= {"holdem", "chinese-poker"}
    chinese = floor.get("/api/games/chinese-poker/").json()
    assert (chinese["seat_count"], chinese["max_hands"], chinese["kind"]) == (5, 4, "player_dealer")
    stakes = floor.get("/api/stakes/limit-2-4-2-8-half/").json()
    assert stakes["small_bet_cents"] == 200
    assert stakes["alt_big_bet_cents"] == 800
    assert (stakes["kill"], stakes["kill_multiplier_pct"]) == ("half", 150)
    limits = floor.get("/api/stakes/", {"structure": "no_limit", "limit": 100}).json()
    assert limits["count"] == 9


def test_create_stakes(floor: APIClient, house: None) -> None:
    response = floor.post(
        "/api/stakes/",
        {
            "code": "limit-15-30",
            "structure": "limit",
            "small_bet_cents": 1500,
            "big_bet_cents": 3000,
            "kill": "full",
            "reason": "new game",
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["label"] == "$15-$30 limit, full kill"
    bad = floor.post(
        "/api/stakes/",
        {"code": "nl-kill", "structure": "no_limit", "buy_in_min_cents": 2000, "kill": "half"},
        format="json",
    )
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid_stakes"
    assert bad.json()["field"] == "kill"
    duplicate = floor.post(
        "/api/stakes/",
        {"code": "limit-15-30", "structure": "limit", "small_bet_cents": 1500, "big_bet_cents": 3000},
        format="json",
    )
    assert duplicate.status_code == 409


def test_table_lifecycle(floor: APIClient, house: None) -> None:
    created = floor.post(
        "/api/tables/",
        {
            "number": 7,
            "game": "holdem",
            "stakes": "nl-100-500",
            "collection_schedule": "B",
            "reason": "new table",
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    body = created.json()
    assert (body["status"], body["seat_count"], len(body["seats"])) == ("closed", 10, 10)
    assert floor.post("/api/tables/7/open/", {}, format="json").json()["status"] == "open"
    assert floor.post("/api/tables/7/open/", {}, format="json").status_code == 409
    configured = floor.post(
        "/api/tables/7/configure/", {"stakes": "nl-200-1000", "reason": "bigger game"}, format="json"
    )
    assert configured.status_code == 200
    assert configured.json()["stakes"] == "nl-200-1000"
    assert floor.post("/api/tables/7/configure/", {"stakes": "nl-200-1000"}, format="json").status_code == 400
    assert floor.post("/api/tables/7/close/", {"reason": "quiet"}, format="json").json()["status"] == "closed"
    assert floor.get("/api/tables/", {"status": "closed"}).json()["count"] == 1
    assert floor.get("/api/tables/99/").status_code == 404


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"game": "holdem", "stakes": "points-5", "collection_schedule": "CP1"}, "stakes"),
        ({"game": "chinese-poker", "stakes": "limit-4-8", "collection_schedule": "A"}, "stakes"),
        ({"game": "stud", "stakes": "limit-4-8", "collection_schedule": "A", "seat_count": 10}, "seat_count"),
        ({"game": "holdem", "stakes": "limit-1-3-1-6", "collection_schedule": "A"}, "collection_schedule"),
    ],
)
def test_table_config_mismatch_is_400(
    floor: APIClient, house: None, payload: dict[str, Any], field: str
) -> None:
    response = floor.post("/api/tables/", {"number": 8, **payload}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "config_mismatch"
    assert response.json()["field"] == field
    assert not Table.objects.filter(number=8).exists()


def test_unknown_reference_is_400(floor: APIClient, house: None) -> None:
    response = floor.post(
        "/api/tables/",
        {"number": 8, "game": "canasta", "stakes": "limit-4-8", "collection_schedule": "A"},
        format="json",
    )
    assert response.status_code == 400
    body = response.json()  # the documented error body: {code, detail, field, errors}
    assert (body["code"], body["field"]) == ("invalid", "game")
    assert body["detail"].startswith("game: ")
    assert set(body["errors"]) == {"game"}


class TestSeatings:
    def test_seat_move_unseat(
        self, floor: APIClient, make_table: Callable[..., Table], make_player: Callable[..., Player]
    ) -> None:
        table, ana = make_table(), make_player("Ana")
        seated = floor.post(
            "/api/seatings/", {"table": table.number, "seat_number": 4, "player": ana.pk}, format="json"
        )
        assert seated.status_code == 201, seated.json()
        assert (seated.json()["seat_number"], seated.json()["player_name"], seated.json()["seated_by"]) == (
            4,
            "Ana",
            "floor",
        )
        moved = floor.post(f"/api/seatings/{seated.json()['id']}/move/", {"to_seat_number": 6}, format="json")
        assert moved.status_code == 201
        assert moved.json()["seat_number"] == 6
        seats = floor.get(f"/api/tables/{table.number}/").json()["seats"]
        assert seats[5]["occupant"]["player_name"] == "Ana"
        assert seats[3]["occupant"] is None
        left = floor.post(f"/api/seatings/{moved.json()['id']}/unseat/", format="json")
        assert left.status_code == 200
        assert left.json()["left_at"] is not None
        assert floor.get("/api/seatings/", {"table": table.number, "active": "true"}).json()["count"] == 0

    @pytest.mark.parametrize(
        ("case", "status", "code"),
        [
            ("no_such_seat", 404, "seat_not_found"),
            ("no_such_table", 404, "table_not_found"),
            ("no_such_player", 404, "player_not_found"),
            ("seat_taken", 409, "seat_taken"),
            ("seated_twice", 409, "player_already_seated"),
            ("closed_table", 409, "table_closed"),
        ],
    )
    def test_bad_seating_changes_nothing(
        self,
        floor: APIClient,
        make_table: Callable[..., Table],
        make_player: Callable[..., Player],
        case: str,
        status: int,
        code: str,
    ) -> None:
        table, ana, ben = make_table(), make_player("Ana"), make_player("Ben")
        services.seat_player(table=table, seat_number=1, player=ana, by=None)
        payload = {"table": table.number, "seat_number": 2, "player": ben.pk}
        if case == "no_such_seat":
            payload["seat_number"] = 11
        elif case == "no_such_table":
            payload["table"] = 999
        elif case == "no_such_player":
            payload["player"] = 999999
        elif case == "seat_taken":
            payload["seat_number"] = 1
        elif case == "seated_twice":
            payload["player"] = ana.pk
        elif case == "closed_table":
            payload["table"] = make_table(open=False).number
        before = list(Seating.objects.values_list("pk", "left_at"))
        response = floor.post("/api/seatings/", payload, format="json")
        assert response.status_code == status, response.json()
        assert response.json()["code"] == code
        assert response.json()["detail"]
        assert list(Seating.objects.values_list("pk", "left_at")) == before


class TestHands:
    """The floor reads hands and voids them; it starts none (the terminals' deal takes the fees)."""

    def test_read_and_void(
        self,
        dealer: APIClient,
        table_with_players: Callable[..., tuple[Table, list[Player]]],
        deal_hand: Callable[..., Hand],
        on_duty: Callable[..., Any],
    ) -> None:
        table, _players = table_with_players(seats=[3, 6, 8])
        dealt = deal_hand(table)
        hand = dealer.get(f"/api/hands/{dealt.pk}/").json()
        refused = dealer.post(f"/api/hands/{hand['id']}/void/", {"reason_code": "two_boxed"}, format="json")
        assert (refused.status_code, refused.json()["code"]) == (403, "not_clocked_in")
        on_duty(table)
        assert (hand["number"], hand["status"], hand["button_seat"], hand["game"]) == (
            1,
            "dealt",
            3,
            "holdem",
        )
        assert [(p["position"], p["seat_number"], p["is_button"]) for p in hand["players"]] == [
            (1, 3, True),
            (2, 6, False),
            (3, 8, False),
        ]
        assert dealer.post(f"/api/hands/{hand['id']}/void/", {}, format="json").status_code == 400
        other = dealer.post(f"/api/hands/{hand['id']}/void/", {"reason_code": "other"}, format="json")
        assert (other.status_code, other.json()["field"]) == (400, "reason")  # "other" needs words
        # Chinese poker's misdeal (004 7c) is not hold'em's: refused, the hand as it was.
        chinese = dealer.post(f"/api/hands/{hand['id']}/void/", {"reason_code": "boxed_cards"}, format="json")
        assert (chinese.status_code, chinese.json()["field"]) == (400, "reason_code")
        assert Hand.objects.get(pk=hand["id"]).status == HandStatus.DEALT
        voided = dealer.post(
            f"/api/hands/{hand['id']}/void/",
            {"reason_code": "two_boxed", "reason": "2 boxed"},
            format="json",
        )
        assert (voided.json()["status"], voided.json()["misdeal_reason"]) == ("void", "two_boxed")
        assert voided.json()["voided_by"] == "dealer"
        assert Hand.objects.get(pk=hand["id"]).status == HandStatus.VOID
        listed = dealer.get("/api/hands/", {"table": table.number, "status": "void"}).json()
        assert listed["count"] == 1

    def test_the_fee_less_start_and_status_routes_are_gone(
        self,
        dealer: APIClient,
        make_table: Callable[..., Table],
        buy_in_players: Callable[..., list[Player]],
        deal_hand: Callable[..., Hand],
    ) -> None:
        table = make_table()
        buy_in_players(table, [1, 2])
        started = dealer.post("/api/hands/start/", {"table": table.number}, format="json")
        assert started.status_code in (404, 405)
        assert not Hand.objects.exists()
        hand = deal_hand(table)
        for status in ("dealt", "showdown", "settled", "void", "open"):
            moved = dealer.post(f"/api/hands/{hand.pk}/status/", {"status": status}, format="json")
            assert moved.status_code == 404, status
        hand.refresh_from_db()
        assert hand.status == HandStatus.DEALT

    def test_dealers_choice_game(
        self,
        dealer: APIClient,
        make_table: Callable[..., Table],
        buy_in_players: Callable[..., list[Player]],
        deal_hand: Callable[..., Hand],
    ) -> None:
        table = make_table(game="dealers-choice", stakes="limit-4-8")
        buy_in_players(table, [1, 2])
        hand = deal_hand(table, game="stud-hi-lo")
        assert dealer.get(f"/api/hands/{hand.pk}/").json()["game"] == "stud-hi-lo"


class TestSchedules:
    def test_read_and_revise(self, floor: APIClient, house: None) -> None:
        schedule = floor.get("/api/schedules/A/").json()
        assert len(schedule["version_in_force"]["rates"]) == 60
        rate = schedule["version_in_force"]["rates"][0]
        assert rate["payer"] == "button"
        assert isinstance(rate["fee_cents"], int)
        when = (timezone.now() + datetime.timedelta(days=1)).isoformat()
        revised = floor.post(
            "/api/schedules/CP1/revise/",
            {
                "effective_from": when,
                "reason": "tomorrow's fee",
                "rates": [
                    {
                        "structure": "points",
                        "point_min_cents": 100,
                        "point_max_cents": 10000,
                        "players_min": 1,
                        "players_max": 10,
                        "payer": "each_player",
                        "fee_cents": 200,
                    }
                ],
            },
            format="json",
        )
        assert revised.status_code == 201, revised.json()
        assert revised.json()["number"] == 2
        now_rates = floor.get("/api/schedules/CP1/rates/").json()
        later = floor.get(
            "/api/schedules/CP1/rates/", {"at": (timezone.now() + datetime.timedelta(days=2)).isoformat()}
        )
        assert now_rates[0]["fee_cents"] == 100
        assert later.json()[0]["fee_cents"] == 200
        assert floor.get("/api/schedules/CP1/rates/", {"at": "yesterday"}).status_code == 400
        history = floor.get(
            "/api/config-changes/", {"model": "collectionschedule", "action": "new_version"}
        ).json()
        assert history["count"] == 1
        assert history["results"][0]["reason"] == "tomorrow's fee"
        assert history["results"][0]["by"] == "floor"

    def test_revise_in_the_past_is_400(self, floor: APIClient, house: None) -> None:
        response = floor.post(
            "/api/schedules/CP1/revise/",
            {
                "effective_from": "2001-01-01T00:00:00Z",
                "reason": "backdate",
                "rates": [
                    {
                        "structure": "points",
                        "point_min_cents": 100,
                        "point_max_cents": 10000,
                        "players_min": 1,
                        "players_max": 10,
                        "payer": "each_player",
                        "fee_cents": 200,
                    }
                ],
            },
            format="json",
        )
        assert response.status_code == 400
        assert response.json()["field"] == "effective_from"
        assert CollectionSchedule.objects.get(code="CP1").versions.count() == 1


def test_players_crud(floor: APIClient, db: None) -> None:
    created = floor.post("/api/players/", {"name": "Ana", "member_number": "M-7"}, format="json")
    assert created.status_code == 201
    pk = created.json()["id"]
    assert (
        floor.post("/api/players/", {"name": "Ben", "member_number": "M-7"}, format="json").status_code == 409
    )
    assert floor.patch(f"/api/players/{pk}/", {"name": "Ana R."}, format="json").json()["name"] == "Ana R."
    assert floor.get("/api/players/", {"name": "ana"}).json()["count"] == 1
    assert floor.delete(f"/api/players/{pk}/").status_code == 204
    assert not Player.objects.filter(pk=pk).exists()


def test_player_with_history_is_not_deleted(
    floor: APIClient, make_table: Callable[..., Table], make_player: Callable[..., Player]
) -> None:
    ana = make_player("Ana")
    services.seat_player(table=make_table(), seat_number=1, player=ana, by=None)
    response = floor.delete(f"/api/players/{ana.pk}/")
    assert response.status_code == 409
    assert response.json()["code"] == "in_use"


def test_config_history_is_read_only(floor: APIClient, client_for: Client, house: None) -> None:
    assert ConfigChange.objects.exists()
    response = client_for("admin").post("/api/config-changes/", {}, format="json")
    assert response.status_code == 405
