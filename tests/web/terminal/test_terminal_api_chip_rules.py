"""The terminal's chip writes (``/api/terminal/tables/<n>/buy-in|rebuy|cash-out/``) go through the
money flow's rules, which the API can't skip: only the dealer clocked in at the table (or the
floor, or the cage) moves its chips; one table at a time unless ``elsewhere_reason``; "same
person?" of a walk-in unless ``new_player_confirmed``; the identification past the gaming day's
report threshold. Each refusal is the documented error body and posts nothing."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.models import User as AuthUser
from django.core.management import call_command
from rest_framework.test import APIClient

from handflow import services as hand_flow
from ledger import selectors as ledger_selectors
from tables import services
from tables.models import Player, Seating, Table
from tests.factories import chip_writes

_keys = (f"chip-rules-{n:08d}" for n in itertools.count())


def post(client: APIClient, url: str, body: dict[str, Any]) -> Any:
    return client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=next(_keys))


@pytest.fixture
def ben(two_tables: tuple[Table, Table], seat_players: Callable[..., list[Player]]) -> Player:
    """Ben: seated at table 2 seat 4 by the floor, not bought in yet."""
    (ben,) = seat_players(two_tables[1], [4])
    return ben


@pytest.fixture
def cage(cage_cashier: AbstractBaseUser) -> APIClient:
    client = APIClient()
    client.force_authenticate(cage_cashier)
    return client


def _clock_in(table: Table, dealer: AbstractBaseUser) -> None:
    assert isinstance(dealer, AuthUser)
    services.clock_in(table=table, dealer=dealer, by=dealer)


class TestWhoMovesChips:
    @pytest.mark.parametrize("clocked_in", ["nowhere", "at table 1"])
    def test_a_dealer_not_clocked_in_at_the_table_gets_403_and_nothing_is_posted(
        self,
        client_for: Callable[[str | None], APIClient],
        users: dict[str, AbstractBaseUser],
        two_tables: tuple[Table, Table],
        ana: Player,
        ben: Player,
        clocked_in: str,
    ) -> None:
        if clocked_in == "at table 1":
            _clock_in(two_tables[0], users["dealer"])
        dealer, before = client_for("dealer"), chip_writes()
        for path, body in (
            ("rebuy", {"player": ana.pk, "amount_cents": 2_000}),
            ("buy-in", {"player": ben.pk, "amount_cents": 2_000}),
        ):
            response = post(dealer, f"/api/terminal/tables/2/{path}/", body)
            assert response.status_code == 403, (path, response.json())
            assert response.json()["code"] == "not_clocked_in"
            assert "Only the dealer clocked in at table 2" in response.json()["detail"]
        assert chip_writes() == before
        assert ledger_selectors.player_chips(table=two_tables[1], player=ana) == 5_000

    def test_the_dealer_clocked_in_at_the_table_sells_chips(
        self,
        client_for: Callable[[str | None], APIClient],
        users: dict[str, AbstractBaseUser],
        two_tables: tuple[Table, Table],
        ana: Player,
        ben: Player,
    ) -> None:
        _clock_in(two_tables[1], users["dealer"])
        dealer = client_for("dealer")
        rebought = post(dealer, "/api/terminal/tables/2/rebuy/", {"player": ana.pk, "amount_cents": 2_000})
        assert rebought.status_code == 201
        bought = post(dealer, "/api/terminal/tables/2/buy-in/", {"player": ben.pk, "amount_cents": 2_000})
        assert (bought.status_code, bought.json()["created_by"]) == (201, "dealer")

    def test_the_cashier_sells_chips_and_cashes_out_at_any_table(
        self, cage: APIClient, two_tables: tuple[Table, Table], ana: Player, ben: Player
    ) -> None:
        # Nobody is clocked in at table 2: the cage is no table's dealer and works them all.
        bought = post(cage, "/api/terminal/tables/2/buy-in/", {"player": ben.pk, "amount_cents": 2_000})
        assert (bought.status_code, bought.json()["created_by"]) == (201, "teller")
        rebought = post(cage, "/api/terminal/tables/2/rebuy/", {"player": ana.pk, "amount_cents": 2_000})
        assert rebought.status_code == 201
        out = post(cage, "/api/terminal/tables/2/cash-out/", {"player": ana.pk})
        assert (out.status_code, out.json()["amount_cents"]) == (201, 7_000)

    def test_the_cashier_still_runs_no_hands(self, cage: APIClient, two_tables: tuple[Table, Table]) -> None:
        started = post(cage, "/api/terminal/tables/2/hands/", {"expected_fees": []})
        assert (started.status_code, started.json()["code"]) == (403, "permission_denied")


class TestOneTableAtATime:
    def test_a_buy_in_at_a_second_table_needs_the_floors_reason(
        self, client_for: Callable[[str | None], APIClient], two_tables: tuple[Table, Table], ana: Player
    ) -> None:
        floor, before = client_for("floor"), chip_writes()
        body = {"player": ana.pk, "amount_cents": 2_000, "seat_number": 3}
        refused = post(floor, "/api/terminal/tables/1/buy-in/", body)
        assert refused.status_code == 409
        assert (refused.json()["code"], refused.json()["field"]) == ("seated_elsewhere", "player")
        assert "already sits at table 2 seat 1" in refused.json()["detail"]
        assert chip_writes() == before
        done = post(floor, "/api/terminal/tables/1/buy-in/", body | {"elsewhere_reason": "racking up at 2"})
        assert (done.status_code, done.json()["seat_number"]) == (201, 3)
        seating = Seating.objects.active().get(table=two_tables[0], player=ana)
        assert seating.elsewhere_reason == "racking up at 2"
        listed = floor.get("/api/seatings/", {"table": 1, "active": True}).json()["results"]
        assert [s["elsewhere_reason"] for s in listed] == ["racking up at 2"]


class TestWalkIn:
    URL = "/api/terminal/tables/1/buy-in/"

    def test_a_walk_in_named_as_a_player_on_file_needs_confirming(
        self, client_for: Callable[[str | None], APIClient], two_tables: tuple[Table, Table], ana: Player
    ) -> None:
        floor, before = client_for("floor"), chip_writes()
        body = {"new_player_name": "Ruiz, Ana", "amount_cents": 2_000, "seat_number": 5}
        refused = post(floor, self.URL, body)
        assert refused.status_code == 409
        assert (refused.json()["code"], refused.json()["field"]) == ("possible_duplicate", "name")
        assert "Same person?" in refused.json()["detail"]
        assert chip_writes() == before
        done = post(floor, self.URL, body | {"new_player_confirmed": True})
        assert (done.status_code, done.json()["player_name"]) == (201, "Ruiz, Ana")
        assert Player.objects.count() == before[3] + 1

    def test_a_walk_in_with_a_new_name_needs_no_confirming(
        self, client_for: Callable[[str | None], APIClient], two_tables: tuple[Table, Table]
    ) -> None:
        body = {"new_player_name": "Kai Wong", "amount_cents": 2_000, "seat_number": 5}
        done = post(client_for("floor"), self.URL, body)
        assert (done.status_code, done.json()["player_name"]) == (201, "Kai Wong")

    @pytest.mark.parametrize(
        "body",
        [
            {"amount_cents": 2_000, "seat_number": 5},  # neither
            {"player": 1, "new_player_name": "Kai Wong", "amount_cents": 2_000, "seat_number": 5},  # both
        ],
    )
    def test_a_player_or_a_walk_in_exactly(
        self,
        client_for: Callable[[str | None], APIClient],
        two_tables: tuple[Table, Table],
        body: dict[str, Any],
    ) -> None:
        refused = post(client_for("floor"), self.URL, body)
        assert (refused.status_code, refused.json()["code"], refused.json()["field"]) == (
            400,
            "invalid",
            "player",
        )

    def test_only_the_floor_adds_a_walk_in(self, cage: APIClient, two_tables: tuple[Table, Table]) -> None:
        before = chip_writes()
        body = {"new_player_name": "Kai Wong", "amount_cents": 2_000}
        refused = post(cage, self.URL, body)
        assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
        assert chip_writes() == before


class TestIdentification:
    @pytest.fixture
    def big(self, make_table: Callable[..., Table]) -> Table:
        return make_table(number=7, game="holdem", stakes="nl-200-nomax", schedule="A")

    def test_over_the_report_threshold_without_identification_is_refused_and_nothing_posted(
        self, client_for: Callable[[str | None], APIClient], big: Table
    ) -> None:
        kai = services.create_player(name="Kai Wong")
        floor, before = client_for("floor"), chip_writes()
        body = {"player": kai.pk, "amount_cents": 1_050_000, "seat_number": 2}
        refused = post(floor, "/api/terminal/tables/7/buy-in/", body)
        assert refused.status_code == 409
        assert (refused.json()["code"], refused.json()["field"]) == ("identification_required", "player")
        assert "to $10,500, over $10,000" in refused.json()["detail"]
        new = {"new_player_name": "Lee Park", "amount_cents": 1_050_000, "seat_number": 3}
        walk_in = post(floor, "/api/terminal/tables/7/buy-in/", new)
        assert (walk_in.status_code, walk_in.json()["code"]) == (409, "identification_required")
        assert chip_writes() == before  # nobody seated, no walk-in created
        shown = {"player": kai.pk, "document": "passport", "number": "P9", "issued_by": "MX"}
        assert floor.post("/api/identifications/", shown, format="json").status_code == 201
        assert post(floor, "/api/terminal/tables/7/buy-in/", body).status_code == 201

    def test_a_rebuy_and_a_cash_out_over_it_are_refused_too(
        self, cage: APIClient, big: Table, cage_cashier: AbstractBaseUser
    ) -> None:
        kai = services.create_player(name="Kai Wong")
        hand_flow.buy_in(
            table=big, player=kai, amount_cents=600_000, seat_number=2, by=cage_cashier, idempotency_key="k"
        )
        before = chip_writes()
        refused = post(cage, "/api/terminal/tables/7/rebuy/", {"player": kai.pk, "amount_cents": 500_000})
        assert (refused.status_code, refused.json()["code"]) == (409, "identification_required")
        services.update_cash_day_settings(by=None, reason="test", report_threshold_cents=500_000)
        refused = post(cage, "/api/terminal/tables/7/cash-out/", {"player": kai.pk})
        assert (refused.status_code, refused.json()["code"]) == (409, "identification_required")
        assert chip_writes() == before
        assert ledger_selectors.player_chips(table=big, player=kai) == 600_000


def test_the_schema_documents_the_buy_ins_answers_and_refusals(db: None, tmp_path: Any) -> None:
    target = tmp_path / "schema.json"
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", "--file", str(target)
    )
    schema = json.loads(target.read_text())
    buy_in = schema["components"]["schemas"]["BuyIn"]
    assert {"player", "new_player_name", "new_player_confirmed", "elsewhere_reason"} <= set(
        buy_in["properties"]
    )
    assert buy_in["required"] == ["amount_cents"]
    for path in ("buy-in", "rebuy", "cash-out"):
        answers = schema["paths"][f"/api/terminal/tables/{{number}}/{path}/"]["post"]["responses"]
        assert "not_clocked_in" in answers["403"]["description"], path
        assert "identification_required" in answers["409"]["description"], path
