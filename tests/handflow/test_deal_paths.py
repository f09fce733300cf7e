"""One way to deal a hand: the fee-taking deal (:func:`handflow.deal.start_hand`).

A $200 pot was settled with its $2 fee never collected: the floor API started an ``open`` hand
with no fees (``POST /api/hands/start/``, ``tables.services.start_hand``) and moved it to
``dealt`` (``POST /api/hands/{id}/status/``, ``tables.services.set_hand_status``). Those paths are
gone; these tests keep them gone: no route, no public service, no admin action, and no call in the
code that moves a hand to ``dealt`` but the deal's own, after its fees.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

import tables
from handflow import services as hand_flow
from ledger.models import JournalTransaction
from tables import services
from tables.choices import HandStatus
from tables.models import Hand, Player, Table

ROOT = Path(tables.__file__).parent.parent
PACKAGES = ("casino", "tables", "ledger", "handflow", "backoffice", "web")


@pytest.fixture
def dealt_hand(
    table_with_players: Callable[..., tuple[Table, list[Player]]], deal_hand: Callable[..., Hand]
) -> Hand:
    table, _players = table_with_players(3, stakes="limit-4-8")
    return deal_hand(table)


def test_the_floor_services_have_no_fee_less_deal() -> None:
    # The public start (an open hand with no fees) and the status setter (which reached dealt) are
    # gone; what remains of the floor's part of a hand is private to the deal and the misdeal.
    assert not hasattr(services, "start_hand")
    assert not hasattr(services, "set_hand_status")
    assert callable(hand_flow.start_hand)


@pytest.mark.parametrize("role", ["dealer", "floor", "admin"])
def test_the_floor_start_route_is_gone(
    client_for: Callable[[str | None], APIClient],
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    role: str,
) -> None:
    table = make_table()
    buy_in_players(table, [1, 2])
    response = client_for(role).post("/api/hands/start/", {"table": table.number}, format="json")
    # "start" is now just an id that doesn't exist: no POST there (405), or nothing at all (404).
    assert response.status_code in (404, 405), response.status_code
    assert not Hand.objects.exists()


@pytest.mark.parametrize("status", ["dealt", "showdown", "settled", "void", "open"])
def test_the_floor_status_route_is_gone(
    client_for: Callable[[str | None], APIClient], dealt_hand: Hand, status: str
) -> None:
    transactions = JournalTransaction.objects.count()
    response = client_for("floor").post(
        f"/api/hands/{dealt_hand.pk}/status/", {"status": status, "reason": "r"}, format="json"
    )
    assert response.status_code == 404
    dealt_hand.refresh_from_db()
    assert dealt_hand.status == HandStatus.DEALT
    assert JournalTransaction.objects.count() == transactions


def test_the_floor_void_still_returns_the_fees(
    client_for: Callable[[str | None], APIClient], dealt_hand: Hand
) -> None:
    # The floor keeps its void, through the misdeal of the money flow (fees returned).
    response = client_for("floor").post(
        f"/api/hands/{dealt_hand.pk}/void/", {"reason_code": "two_boxed"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["status"] == "void"
    assert JournalTransaction.objects.filter(idempotency_key=hand_flow.fees_return_key(dealt_hand)).exists()


def _functions_calling(name: str) -> list[tuple[str, str, ast.Call]]:
    """(file, enclosing function, call) of every call of ``name`` (``x.name(...)`` or ``name(...)``)
    in the project's packages (file relative to the repository)."""
    found = []
    for path in sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call):
                    callee = node.func
                    called = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", None)
                    if called == name:
                        found.append((path.relative_to(ROOT).as_posix(), function.name, node))
    return found


def test_only_the_deal_moves_a_hand_to_dealt() -> None:
    # Every move of a hand goes through services.move_hand. Each call must name the status it
    # moves to (no status passed in from outside, as set_hand_status did), and ``dealt`` only in
    # the deal, after it has collected the fees.
    moves = [(f, fn, call) for f, fn, call in _functions_calling("move_hand") if fn != "move_hand"]
    assert moves, "the hand flow moves hands through services.move_hand"
    targets = []
    for file, function, call in moves:
        status = call.args[1] if len(call.args) > 1 else None
        where = f"{file}:{function} moves a hand to a status it doesn't name: {ast.unparse(call)}"
        assert isinstance(status, ast.Attribute), where
        assert getattr(status.value, "id", None) == "HandStatus", where
        targets.append((file, function, status.attr))
    dealing = [(file, function) for file, function, status in targets if status == "DEALT"]
    assert dealing == [("handflow/deal.py", "start_hand")]


def test_the_deal_collects_the_fees_before_the_hand_is_dealt(dealt_hand: Hand) -> None:
    # The hand the one remaining path deals has its fee transaction (schedule A, $4-$8, 3 players:
    # the button pays $1).
    fees = JournalTransaction.objects.get(idempotency_key=hand_flow.fees_key(dealt_hand))
    assert fees.hand_id == dealt_hand.pk
    assert [hp.fee_cents for hp in dealt_hand.players.order_by("position")] == [100, 0, 0]
    assert dealt_hand.status == HandStatus.DEALT


def test_hands_are_read_only_in_the_admin(users: dict[str, Any], dealt_hand: Hand) -> None:
    # A regression guard (the admin had no such action before either): no action at all on hands,
    # and no change form that could set a status.
    request = RequestFactory().get("/admin/tables/hand/")
    request.user = users["admin"]
    hand_admin = admin.site._registry[Hand]
    assert hand_admin.get_actions(request) == {}
    assert not hand_admin.has_change_permission(request, dealt_hand)
    client = Client()
    client.force_login(users["admin"])
    url = f"/admin/tables/hand/{dealt_hand.pk}/change/"
    response = client.post(url, {"status": "settled", "action": "delete_selected"})
    assert response.status_code == 403
    changelist = client.post(
        "/admin/tables/hand/", {"action": "delete_selected", "_selected_action": [dealt_hand.pk]}
    )
    assert changelist.status_code in (200, 302, 403)
    dealt_hand.refresh_from_db()
    assert dealt_hand.status == HandStatus.DEALT
    assert Hand.objects.filter(pk=dealt_hand.pk).exists()
