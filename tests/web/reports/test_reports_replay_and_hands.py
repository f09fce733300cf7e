"""The auditor's way from any report to a hand's record (cards, reading, ledger postings), and a
failed replay audit shown on the floor overview and the reports with the hands named."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from handflow import audit
from ledger.models import CheckSource, JournalTransaction
from ledger.shifts import room_zone
from tables.models import Hand, HandResult, Player, Table

pytestmark = pytest.mark.django_db


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def settled(
    table_with_players: Callable[..., tuple[Table, list[Player]]],
    deal_hand: Callable[..., Hand],
    settle_hand: Callable[..., Hand],
) -> Hand:
    table, _ = table_with_players(3, stakes="limit-4-8")
    return settle_hand(deal_hand(table), winners=(1, 2))


def test_a_hands_page_shows_its_cards_reading_and_ledger_postings(
    settled: Hand, users: dict[str, Any]
) -> None:
    client = logged_in(users["auditor"])
    response = client.get(reverse("reports:hand", args=[settled.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    result = HandResult.objects.get(hand=settled)
    settlement = JournalTransaction.objects.get(pk=result.settlement_id)
    assert f"Table {settled.table.number} hand {settled.number}" in page
    assert "Ah Kh Qh Jh Th" in page  # the board as entered
    assert "Royal flush (Ah Kh Qh Jh Th)" in page  # the reading: the name and the five cards
    assert settlement.hash in page  # the settlement's ledger transaction
    assert result.digest in page  # the stored input's digest
    # Money in dollars: the pot as the engine built it, never its raw cents.
    pot = result.engine_result["pots"][0]["amount"]
    assert f"Main pot ${pot // 100}:" in page
    assert f"Main pot {pot}:" not in page
    # The journal and the player statement lead to it.
    day = timezone.localtime(settled.created_at, room_zone()).date().isoformat()
    link = f'href="{reverse("reports:hand", args=[settled.pk])}"'
    assert link in client.get(reverse("reports:journal"), {"date_from": day}).content.decode()
    player = settled.players.order_by("position").first()
    assert player is not None
    statement = client.get(reverse("reports:statement", args=[player.player_id]), {"date_from": day})
    assert link in statement.content.decode()
    assert link in client.get(reverse("reports:hands"), {"date_from": day}).content.decode()
    # The same entry through the API, and an unknown hand is a 404 with no report.
    api = client.get("/api/ledger/reports/hands/", {"date_from": day, "hand": settled.pk}).json()
    assert [h["hand_id"] for h in api["hands"]] == [settled.pk]
    assert client.get(reverse("reports:hand", args=[999_999])).status_code == 404


def test_a_failed_replay_audit_names_its_hands_on_the_floor_and_in_the_reports(
    settled: Hand, users: dict[str, Any]
) -> None:
    cast = "::jsonb" if connection.vendor == "postgresql" else ""
    engine_input = HandResult.objects.get(hand=settled).engine_input
    engine_input["board"] = ["2h", "7d", "9s", "Jc", "Qd"]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE tables_handresult SET engine_input = %s{cast} WHERE hand_id = %s",
            [json.dumps(engine_input), settled.pk],
        )
    day = timezone.localtime(timezone.now(), room_zone()).date()
    check = audit.record_replay_check(
        outcome=audit.replay_audit(date_from=day, date_to=day), source=CheckSource.NIGHTLY
    )
    assert not check.ok
    hand_link = f'href="{reverse("reports:hand", args=[settled.pk])}"'
    named = f"table {settled.table.number} hand {settled.number}"
    floor = logged_in(users["floor"]).get("/").content.decode()
    assert "Replay audit failed" in floor
    assert named in floor
    assert hand_link in floor
    for url in (reverse("reports:index"), reverse("reports:integrity")):
        page = logged_in(users["auditor"]).get(url)
        shown = page.content.decode()
        assert 'id="replay-check"' in shown, url
        assert "FAILED" in shown
        assert hand_link in shown
        assert "replay_input_digest" in shown
    index = logged_in(users["auditor"]).get(reverse("reports:index")).content.decode()
    assert 'id="replay-check"' in index
    # A dealer sees the banner and the hands, without links to reports they may not read.
    dealer_view = logged_in(users["dealer"]).get("/").content.decode()
    assert named in dealer_view
    assert hand_link not in dealer_view
