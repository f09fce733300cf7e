"""The terminal API's dealer endpoints: clock in and out at a table (the floor assigns), and a
clean sweep declared before the showdown; every refusal in the documented error body."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

from handflow import services as hand_flow
from tables.models import DealerShift, Hand, HandPlayer, Table

ClientFor = Callable[[str | None], APIClient]


def test_a_dealer_clocks_in_runs_the_table_and_clocks_out(
    client_for: ClientFor, users: dict[str, Any], make_table: Callable[..., Table], buy_in_players: Any
) -> None:
    table = make_table()
    buy_in_players(table, [1, 2])
    dealer, floor = client_for("dealer"), client_for("floor")
    url = f"/api/terminal/tables/{table.number}/"
    first = dealer.post(url + "clock-in/", {}, format="json")
    assert first.status_code == 201
    assert (first.json()["dealer"], first.json()["table"], first.json()["replayed"]) == (
        "dealer",
        table.number,
        False,
    )
    again = dealer.post(url + "clock-in/", {}, format="json")
    assert (again.status_code, again.json()["id"], again.json()["replayed"]) == (
        200,
        first.json()["id"],
        True,
    )
    # A dealer assigns nobody else; the floor does.
    other = dealer.post(url + "clock-in/", {"dealer": users["floor"].pk}, format="json")
    assert (other.status_code, other.json()["code"]) == (403, "not_clocked_in")
    missing = floor.post(url + "clock-in/", {"dealer": 10**12}, format="json")
    assert (missing.status_code, missing.json()["code"], missing.json()["field"]) == (
        404,
        "dealer_not_found",
        "dealer",
    )
    auditor = floor.post(url + "clock-in/", {"dealer": users["auditor"].pk}, format="json")
    assert (auditor.status_code, auditor.json()["code"]) == (400, "not_a_dealer")
    hand = hand_flow.start_hand(table=table, by=users["dealer"]).hand
    assert Hand.objects.get(pk=hand.pk).dealer == users["dealer"]
    busy = dealer.post(url + "clock-out/", {}, format="json")
    assert (busy.status_code, busy.json()["code"]) == (409, "hand_in_progress")
    hand_flow.misdeal(hand=hand, reason_code="two_boxed", by=users["dealer"])
    out = dealer.post(url + "clock-out/", {}, format="json")
    assert out.status_code == 200
    assert out.json()["clocked_out_at"] is not None
    assert dealer.post(url + "clock-out/", {}, format="json").status_code == 204
    assert not DealerShift.objects.filter(table=table, clocked_out_at__isnull=True).exists()
    # The auditor views; clocking in is running hands.
    assert client_for("auditor").post(url + "clock-in/", {}, format="json").status_code == 403


def test_a_sweep_is_declared_through_the_api(
    client_for: ClientFor,
    users: dict[str, Any],
    make_table: Callable[..., Table],
    buy_in_players: Any,
    on_duty: Any,
) -> None:
    table = make_table(game="chinese-poker", stakes="points-5", schedule="CP1")
    buy_in_players(table, [1, 2], amount_cents=10_000)
    on_duty(table)
    hand = hand_flow.start_hand(table=table, by=users["dealer"]).hand
    dealer = client_for("dealer")
    url = f"/api/terminal/hands/{hand.pk}/declare-sweep/"
    bad = dealer.post(url, {"seat_number": 1, "sweep": "royal"}, format="json")
    assert (bad.status_code, bad.json()["field"]) == (400, "sweep")
    shown = dealer.post(url, {"seat_number": 2, "sweep": "six-pairs"}, format="json")
    assert shown.status_code == 200
    seat_2 = next(p for p in shown.json()["players"] if p["seat_number"] == 2)
    assert seat_2["sweep_declared"] == "six-pairs"
    assert seat_2["sweep_declared_at"] is not None
    assert HandPlayer.objects.get(hand=hand, seat__number=2).sweep_declared == "six-pairs"
    assert (
        client_for("auditor").post(url, {"seat_number": 1, "sweep": "dragon"}, format="json").status_code
        == 403
    )


def test_the_hand_says_its_dealer_boards_and_misdeal(
    client_for: ClientFor,
    users: dict[str, Any],
    make_table: Callable[..., Table],
    buy_in_players: Any,
    on_duty: Any,
) -> None:
    table = make_table(game="taiwanese-poker", stakes="points-5", schedule="CP1")
    buy_in_players(table, [1, 2], amount_cents=10_000)
    on_duty(table)
    dealer = client_for("dealer")
    fees = [
        {"seat_number": s, "fee_cents": f}
        for s, f in hand_flow.fees_as_shown(hand_flow.preview_fees(table=table)).items()
    ]
    started = dealer.post(
        f"/api/terminal/tables/{table.number}/hands/",
        {"expected_fees": fees, "boards": 2},
        format="json",
        HTTP_IDEMPOTENCY_KEY="boards-1",
    )
    assert started.status_code == 201, started.json()
    assert (started.json()["boards"], started.json()["dealer"]) == (2, "dealer")
    voided = dealer.post(
        f"/api/terminal/hands/{started.json()['id']}/misdeal/",
        {"reason_code": "other", "reason": "seat 2 had 8 cards"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="boards-2",
    )
    assert (voided.json()["misdeal_reason"], voided.json()["void_reason"]) == (
        "other",
        "seat 2 had 8 cards",
    )
    read = client_for("auditor").get(f"/api/hands/{started.json()['id']}/").json()
    assert (read["dealer"], read["boards"], read["misdeal_reason"]) == ("dealer", 2, "other")
