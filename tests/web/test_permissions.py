"""The permission matrix: role x endpoint x method.

Dealers view the floor and run hands but change no configuration; floor managers run the floor
and configure it; auditors view everything and change nothing; anonymous users get nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tables.models import Hand, Player, Seating, Table

ROLES = ("dealer", "floor", "auditor", "nobody", "admin")
ALLOWED = {403, 401}


@pytest.fixture
def floor_state(
    make_table: Callable[..., Table],
    make_player: Callable[..., Player],
    buy_in_players: Callable[..., list[Player]],
    deal_hand: Callable[..., Hand],
) -> dict[str, Any]:
    table = make_table(number=1)
    closed = make_table(number=2, open=False)
    buy_in_players(table, [1, 2])
    hand = deal_hand(table)
    seating = Seating.objects.active().get(seat__table=table, seat__number=1)
    return {
        "table": table,
        "closed": closed,
        "free_player": make_player("P2"),
        "hand": hand,
        "seating": seating,
    }


# (name, method, url, body, roles allowed). URLs/bodies use the floor_state fixture's objects.
def requests(state: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any], set[str]]]:
    everyone = {"dealer", "floor", "auditor", "admin"}
    hand = state["hand"]
    return [
        ("list tables", "get", "/api/tables/", {}, everyone),
        ("read table", "get", "/api/tables/1/", {}, everyone),
        ("list seats", "get", "/api/seats/", {}, everyone),
        ("list players", "get", "/api/players/", {}, everyone),
        ("list hands", "get", "/api/hands/", {}, everyone),
        ("list games", "get", "/api/games/", {}, everyone),
        ("list stakes", "get", "/api/stakes/", {}, everyone),
        ("list schedules", "get", "/api/schedules/", {}, everyone),
        ("config history", "get", "/api/config-changes/", {}, {"floor", "auditor", "admin"}),
        ("open table", "post", "/api/tables/2/open/", {}, {"floor", "admin"}),
        (
            "configure table",
            "post",
            "/api/tables/1/configure/",
            {"stakes": "limit-6-12", "reason": "r"},
            {"floor", "admin"},
        ),
        (
            "create table",
            "post",
            "/api/tables/",
            {"number": 9, "game": "holdem", "stakes": "limit-4-8", "collection_schedule": "A"},
            {"floor", "admin"},
        ),
        (
            "create stakes",
            "post",
            "/api/stakes/",
            {"code": "limit-7-14", "structure": "limit", "small_bet_cents": 700, "big_bet_cents": 1400},
            {"floor", "admin"},
        ),
        (
            "revise schedule",
            "post",
            "/api/schedules/CP3/revise/",
            {
                "reason": "r",
                "rates": [
                    {
                        "structure": "points",
                        "point_min_cents": 100,
                        "point_max_cents": 10000,
                        "players_min": 1,
                        "players_max": 10,
                        "payer": "each_player",
                        "fee_cents": 1,
                    }
                ],
            },
            {"floor", "admin"},
        ),
        ("create player", "post", "/api/players/", {"name": "New"}, {"floor", "admin"}),
        (
            "rename player",
            "patch",
            f"/api/players/{state['free_player'].pk}/",
            {"name": "X"},
            {"floor", "admin"},
        ),
        ("delete player", "delete", f"/api/players/{state['free_player'].pk}/", {}, {"floor", "admin"}),
        (
            "seat player",
            "post",
            "/api/seatings/",
            {"table": 1, "seat_number": 5, "player": state["free_player"].pk},
            {"floor", "admin"},
        ),
        (
            "move player",
            "post",
            f"/api/seatings/{state['seating'].pk}/move/",
            {"to_seat_number": 7},
            {"floor", "admin"},
        ),
        (
            "void hand",
            "post",
            f"/api/hands/{hand.pk}/void/",
            {"reason": "misdeal"},
            {"dealer", "floor", "admin"},
        ),
    ]


REQUEST_NAMES = [
    r[0] for r in requests({"hand": Hand(pk=0), "free_player": Player(pk=0), "seating": Seating(pk=0)})
]


@pytest.mark.parametrize("role", [*ROLES, None])
@pytest.mark.parametrize("name", REQUEST_NAMES)
def test_api_matrix(
    client_for: Callable[[str | None], APIClient], floor_state: dict[str, Any], role: str | None, name: str
) -> None:
    _, method, url, body, allowed = next(r for r in requests(floor_state) if r[0] == name)
    response = getattr(client_for(role), method)(url, body, format="json")
    if role in allowed:
        # Allowed: the request is served (the move of a player in a hand is refused by the rules).
        assert response.status_code not in ALLOWED, (role, name, response.status_code)
        assert response.status_code < 500
    else:
        assert response.status_code in ALLOWED, (role, name, response.status_code)


@pytest.mark.parametrize("role", ["dealer", "auditor", "nobody"])
def test_refused_changes_change_nothing(
    client_for: Callable[[str | None], APIClient], floor_state: dict[str, Any], role: str
) -> None:
    client = client_for(role)
    client.post("/api/tables/2/open/", {}, format="json")
    client.post("/api/tables/1/configure/", {"stakes": "limit-6-12", "reason": "r"}, format="json")
    client.post(
        "/api/seatings/",
        {"table": 1, "seat_number": 5, "player": floor_state["free_player"].pk},
        format="json",
    )
    assert Table.objects.get(number=2).status == "closed"
    assert Table.objects.get(number=1).stakes.code == "limit-4-8-half"
    assert Seating.objects.active().count() == 2


def test_auditor_hand_actions_refused(
    client_for: Callable[[str | None], APIClient], floor_state: dict[str, Any]
) -> None:
    hand = floor_state["hand"]
    response = client_for("auditor").post(f"/api/hands/{hand.pk}/void/", {"reason": "no"}, format="json")
    assert response.status_code == 403
    hand.refresh_from_db()
    assert hand.status == "dealt"


@pytest.mark.parametrize("role", [*ROLES, None])
def test_no_role_deals_through_the_floor_api(
    client_for: Callable[[str | None], APIClient], floor_state: dict[str, Any], role: str | None
) -> None:
    # The floor's fee-less start and status routes are gone for everyone: a hand is dealt only by
    # the terminals' deal, which takes the fees first (tests/tables/test_floor_deal_paths.py).
    client = client_for(role)
    hand = floor_state["hand"]
    for url, body in (
        ("/api/hands/start/", {"table": 1}),
        (f"/api/hands/{hand.pk}/status/", {"status": "dealt"}),
    ):
        response = client.post(url, body, format="json")
        assert response.status_code in {401, 403, 404, 405}, (role, url, response.status_code)
        if role is not None and role != "nobody":
            assert response.status_code in {404, 405}, (role, url, response.status_code)
    assert Hand.objects.count() == 1


@pytest.mark.parametrize("url", ["/", "/api/docs/", "/api/schema/"])
def test_anonymous_is_sent_to_login_or_refused(db: None, url: str) -> None:
    response = Client().get(url)
    if url.startswith("/api/"):  # DRF views (the docs too) answer 403 instead of redirecting
        assert response.status_code in ALLOWED
    else:
        assert response.status_code == 302
        assert response.url.startswith("/accounts/login/")


@pytest.mark.parametrize(
    ("role", "status"), [("dealer", 200), ("floor", 200), ("auditor", 200), ("admin", 200), ("nobody", 403)]
)
def test_home_page_by_role(users: dict[str, Any], role: str, status: int) -> None:
    client = Client()
    client.force_login(users[role])
    assert client.get("/").status_code == status


@pytest.mark.parametrize(
    ("role", "perm", "has"),
    [
        ("dealer", "tables.run_hand", True),
        ("dealer", "tables.change_table", False),
        ("dealer", "tables.manage_floor", False),
        ("dealer", "tables.add_collectionschedule", False),
        ("dealer", "tables.add_stakes", False),
        ("floor", "tables.manage_floor", True),
        ("floor", "tables.change_collectionschedule", True),
        ("floor", "tables.add_stakes", True),
        # docs/reports.md: floor managers record drop counts and sign off variances.
        ("floor", "ledger.view_reports", True),
        ("floor", "ledger.add_dropcount", True),
        ("floor", "ledger.sign_off_variance", True),
        ("dealer", "ledger.add_dropcount", False),
        ("dealer", "ledger.sign_off_variance", False),
        ("auditor", "ledger.sign_off_variance", False),
        ("auditor", "tables.view_configchange", True),
        ("auditor", "tables.view_hand", True),
    ],
)
def test_role_permissions(users: dict[str, Any], role: str, perm: str, has: bool) -> None:
    assert users[role].has_perm(perm) is has


def test_auditor_has_only_view_permissions(users: dict[str, Any]) -> None:
    perms = users["auditor"].get_all_permissions()
    assert perms
    assert all(p.split(".", 1)[1].startswith("view_") for p in perms)
