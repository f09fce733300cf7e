"""A misdeal's reason is checked against the hand's game before anything else: a reason the game
doesn't have (docs/misdeals.md, ``tables.games.misdeal_reasons_for``) is refused with a 400 before
a row is locked or the ledger is read, so nothing is written, not even in a transaction rolled back
later (it used to lock the table and the hand, reverse the fees, then refuse in the floor's void)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from handflow import services as hand_flow
from ledger.models import JournalTransaction
from tables.choices import HandStatus
from tables.errors import FloorValidationError
from tables.models import Hand, Player, Table

ClientFor = Callable[[str | None], Any]
LEDGER_TABLES = ("ledger_",)


def dealt_holdem(
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    deal_hand: Callable[..., Hand],
) -> Hand:
    table = make_table(game="holdem", stakes="limit-4-8", schedule="A")
    buy_in_players(table, [1, 2, 3], 8_000)
    hand = deal_hand(table)
    assert hand.players.exclude(fee_cents=None).exists()  # fees collected: a misdeal gives them back
    return hand


def test_a_reason_the_game_lacks_is_refused_before_the_ledger_or_a_lock(
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    deal_hand: Callable[..., Hand],
) -> None:
    hand = dealt_holdem(make_table, buy_in_players, deal_hand)
    hand = Hand.objects.select_related("table", "game").get(pk=hand.pk)  # as the screen's view reads it
    journal = JournalTransaction.objects.count()
    with CaptureQueriesContext(connection) as queries, pytest.raises(FloorValidationError) as refused:
        hand_flow.misdeal(hand=hand, reason_code="wrong_count", by=None)  # 004 Chinese poker 7b
    assert (refused.value.status, refused.value.field) == (400, "reason_code")
    assert "is not a misdeal of Texas Hold'em" in refused.value.message
    statements = [q["sql"] for q in queries.captured_queries]
    touched = [sql for sql in statements if any(name in sql for name in LEDGER_TABLES)]
    assert touched == [], touched  # the ledger not even read
    writes = [sql for sql in statements if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]
    assert writes == [], writes
    assert not any("tables_table" in sql for sql in statements)  # the table not locked (nor read)
    assert JournalTransaction.objects.count() == journal
    hand.refresh_from_db()
    assert (hand.status, hand.misdeal_reason, hand.void_reason) == (HandStatus.DEALT, "", "")


def test_the_api_answers_400_and_writes_nothing(
    make_table: Callable[..., Table],
    buy_in_players: Callable[..., list[Player]],
    deal_hand: Callable[..., Hand],
    on_duty: Callable[..., Any],
    client_for: ClientFor,
) -> None:
    hand = dealt_holdem(make_table, buy_in_players, deal_hand)
    on_duty(hand.table)
    journal = JournalTransaction.objects.count()
    url = f"/api/terminal/hands/{hand.pk}/misdeal/"
    with CaptureQueriesContext(connection) as queries:
        refused = client_for("dealer").post(
            url, {"reason_code": "six_cards"}, format="json", HTTP_IDEMPOTENCY_KEY="misdeal-unknown-1"
        )  # 004 lowball 13: not hold'em's
    assert refused.status_code == 400, refused.json()
    assert (refused.json()["field"], refused.json()["code"]) == ("reason_code", "invalid")
    assert "is not a misdeal of Texas Hold'em" in refused.json()["detail"]
    assert not [q["sql"] for q in queries.captured_queries if "ledger_journal" in q["sql"]]
    assert JournalTransaction.objects.count() == journal
    hand.refresh_from_db()
    assert (hand.status, hand.misdeal_reason) == (HandStatus.DEALT, "")
    # The game's own reason goes through, fees back.
    voided = client_for("dealer").post(
        url, {"reason_code": "two_boxed"}, format="json", HTTP_IDEMPOTENCY_KEY="misdeal-unknown-2"
    )
    assert voided.status_code == 200, voided.json()
    hand.refresh_from_db()
    assert (hand.status, hand.misdeal_reason) == (HandStatus.VOID, "two_boxed")
    assert JournalTransaction.objects.count() == journal + 1
