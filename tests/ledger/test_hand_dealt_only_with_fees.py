"""A hand becomes dealt only with its fees, and the database refuses any other way in (ledger
migration 0006; RULINGS §6). Runs on SQLite and PostgreSQL: both have the triggers."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from ledger import services
from ledger.shifts import Shift
from tables.choices import HandStatus
from tables.models import Hand, Player, Table
from tests.factories import create_bare_hand


def refused(**changes: object) -> str:
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        Hand.objects.filter(pk=changes.pop("pk")).update(**changes)
    return str(error.value)


def test_an_open_hand_can_not_be_moved_to_dealt_without_its_fees(table: Table) -> None:
    """The $200 pot of the issue: a hand moved to dealt with its $2 fee never collected."""
    hand = create_bare_hand(table, status=HandStatus.OPEN)
    for status in (HandStatus.DEALT, HandStatus.SHOWDOWN, HandStatus.SETTLED):
        assert "dealt only with its fees" in refused(pk=hand.pk, status=status)
    assert Hand.objects.get(pk=hand.pk).status == HandStatus.OPEN


def test_a_hand_can_not_be_inserted_dealt_without_a_reason(table: Table) -> None:
    hand = create_bare_hand(table, status=HandStatus.OPEN)
    with pytest.raises(IntegrityError, match="dealt only with its fees"), transaction.atomic():
        Hand.objects.create(
            table=table,
            number=hand.number + 1,
            game=table.game,
            stakes=table.stakes,
            collection_schedule=table.collection_schedule,
            button_seat=hand.button_seat,
            status=HandStatus.SETTLED,
        )


def test_a_hand_with_its_fee_transaction_is_dealt(table: Table, alice: Player, bob: Player, cashier) -> None:
    for player in (alice, bob):
        services.buy_in(
            table=table, player=player, amount=1_000, user=cashier, idempotency_key=f"in:{player}"
        )
    hand = create_bare_hand(table, status=HandStatus.OPEN)
    services.collect_fees(
        table=table,
        shift=Shift.at(hand.created_at),
        fees=[(alice, 100), (bob, 0)],
        hand=hand,
        user=cashier,
        idempotency_key=f"hand:{hand.pk}:fees",
    )
    Hand.objects.filter(pk=hand.pk).update(status=HandStatus.DEALT)
    assert Hand.objects.get(pk=hand.pk).status == HandStatus.DEALT


def test_a_hand_whose_band_charges_nothing_records_why(table: Table) -> None:
    hand = create_bare_hand(table, status=HandStatus.OPEN)
    Hand.objects.filter(pk=hand.pk).update(status=HandStatus.DEALT, no_fee_reason="$0 band: no fee due")
    assert Hand.objects.get(pk=hand.pk).status == HandStatus.DEALT


def test_settled_and_void_are_final(table: Table) -> None:
    settled = create_bare_hand(table)
    for status in (HandStatus.OPEN, HandStatus.DEALT, HandStatus.VOID):
        assert "final" in refused(pk=settled.pk, status=status)
    assert Hand.objects.get(pk=settled.pk).status == HandStatus.SETTLED
    void = create_bare_hand(table, status=HandStatus.OPEN)
    Hand.objects.filter(pk=void.pk).update(
        status=HandStatus.VOID, voided_at=void.created_at, void_reason="misdeal"
    )
    # A void hand's fees went back: it can't be dealt again with them (a redeal is a new hand).
    assert "final" in refused(pk=void.pk, status=HandStatus.DEALT, no_fee_reason="sneaked in")
