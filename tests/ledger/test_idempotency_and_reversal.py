"""Exactly-once postings (idempotency keys) and reversals."""

from __future__ import annotations

import datetime as dt

import pytest

from ledger import selectors, services
from ledger.errors import (
    AlreadyReversed,
    IdempotencyConflict,
    InsufficientChips,
    InvalidPosting,
    NotReversible,
)
from ledger.models import Entry, JournalTransaction
from ledger.shifts import Shift, ShiftCode
from tables.models import Hand, Player, Table

pytestmark = pytest.mark.django_db

SHIFT = Shift(business_date=dt.date(2030, 1, 2), code=ShiftCode.DAY)


def counts() -> tuple[int, int]:
    return JournalTransaction.objects.count(), Entry.objects.count()


# --- idempotency ------------------------------------------------------------------------------------


def test_a_retry_returns_the_first_transaction_and_posts_nothing(
    table: Table, alice: Player, cashier
) -> None:
    first = services.buy_in(table=table, player=alice, amount=5_000, user=cashier, idempotency_key="req-1")
    before = counts()

    retry = services.buy_in(table=table, player=alice, amount=5_000, user=cashier, idempotency_key="req-1")

    assert not first.replayed
    assert retry.transaction.pk == first.transaction.pk
    assert retry.replayed
    assert counts() == before
    assert selectors.player_chips(table=table, player=alice) == 5_000


def test_a_retry_by_another_user_is_still_a_retry(table: Table, alice: Player, cashier) -> None:
    first = services.buy_in(
        table=table, player=alice, amount=5_000, user=cashier, idempotency_key="req-1"
    ).transaction
    retry = services.buy_in(
        table=table, player=alice, amount=5_000, user=None, idempotency_key="req-1"
    ).transaction
    assert retry.pk == first.pk
    assert retry.created_by == cashier


@pytest.mark.parametrize(
    "change",
    [
        {"amount": 5_001},
        {"memo": "another memo"},
        {"player": "bob"},
    ],
)
def test_the_same_key_for_a_different_request_is_a_conflict(
    table: Table, alice: Player, bob: Player, cashier, change: dict[str, object]
) -> None:
    first = services.buy_in(
        table=table, player=alice, amount=5_000, user=cashier, idempotency_key="req-1"
    ).transaction
    before = counts()
    request: dict[str, object] = {"player": alice, "amount": 5_000, "memo": ""} | change
    if request["player"] == "bob":
        request["player"] = bob

    with pytest.raises(IdempotencyConflict) as refused:
        services.buy_in(table=table, user=cashier, idempotency_key="req-1", **request)  # type: ignore[arg-type]

    assert refused.value.existing.pk == first.pk
    assert refused.value.code == "idempotency_conflict"
    assert counts() == before


def test_a_key_used_for_another_kind_is_a_conflict(table: Table, alice: Player, cashier) -> None:
    services.buy_in(table=table, player=alice, amount=5_000, user=cashier, idempotency_key="req-1")
    with pytest.raises(IdempotencyConflict):
        services.rebuy(table=table, player=alice, amount=5_000, user=cashier, idempotency_key="req-1")


def test_a_whole_cash_out_retried_after_it_emptied_the_stack_returns_the_first(
    table: Table, alice: Player, cashier
) -> None:
    services.buy_in(table=table, player=alice, amount=5_000, user=cashier, idempotency_key="in")
    first = services.cash_out(table=table, player=alice, user=cashier, idempotency_key="out")
    retry = services.cash_out(table=table, player=alice, user=cashier, idempotency_key="out")
    assert retry.transaction.pk == first.transaction.pk
    assert retry.replayed
    with pytest.raises(IdempotencyConflict):
        services.cash_out(table=table, player=alice, amount=5_000, user=cashier, idempotency_key="out")


def test_a_retried_settlement_posts_once(
    table: Table, hand: Hand, alice: Player, bob: Player, cashier
) -> None:
    services.buy_in(table=table, player=alice, amount=1_000, user=cashier, idempotency_key="a")
    payments = [(alice, bob, 700)]
    key = f"hand:{hand.pk}:settle"
    first = services.post_payments(
        table=table, hand=hand, payments=payments, user=cashier, idempotency_key=key
    )
    # The retry would not even be payable any more (Alice has 300): it must return the first, not fail.
    retry = services.post_payments(
        table=table, hand=hand, payments=payments, user=cashier, idempotency_key=key
    )
    assert first is not None
    assert retry is not None
    assert (retry.transaction.pk, retry.replayed) == (first.transaction.pk, True)
    assert selectors.player_chips(table=table, player=alice) == 300
    with pytest.raises(IdempotencyConflict):
        services.post_payments(
            table=table, hand=hand, payments=[(alice, bob, 100)], user=cashier, idempotency_key=key
        )


def test_a_refused_posting_does_not_use_up_its_key(table: Table, alice: Player, cashier) -> None:
    with pytest.raises(InsufficientChips):
        services.cash_out(table=table, player=alice, amount=100, user=cashier, idempotency_key="k")
    services.buy_in(table=table, player=alice, amount=100, user=cashier, idempotency_key="in")
    posted = services.cash_out(table=table, player=alice, amount=100, user=cashier, idempotency_key="k")
    assert not posted.replayed


# --- reversal ------------------------------------------------------------------------------------------


@pytest.fixture
def fees(table: Table, hand: Hand, alice: Player, bob: Player, cashier) -> JournalTransaction:
    services.buy_in(table=table, player=alice, amount=1_000, user=cashier, idempotency_key="a")
    services.buy_in(table=table, player=bob, amount=1_000, user=cashier, idempotency_key="b")
    posted = services.collect_fees(
        table=table,
        shift=SHIFT,
        hand=hand,
        fees=[(alice, 200), (bob, 100)],
        user=cashier,
        idempotency_key=f"hand:{hand.pk}:fees",
    )
    assert posted is not None
    return posted.transaction


def test_a_misdeal_returns_the_fees_by_a_reversal(
    fees: JournalTransaction, table: Table, hand: Hand, alice: Player, bob: Player, cashier
) -> None:
    reversal = services.reverse(
        transaction=fees, user=cashier, reason="misdeal", idempotency_key=f"hand:{hand.pk}:fees:return"
    ).transaction

    assert reversal.kind == JournalTransaction.Kind.REVERSAL
    assert reversal.reverses == fees
    assert reversal.memo == "misdeal"
    assert (reversal.table_id, reversal.hand_id) == (fees.table_id, fees.hand_id)
    original = list(fees.entries.order_by("line").values_list("account_id", "amount"))
    negated = list(reversal.entries.order_by("line").values_list("account_id", "amount"))
    assert negated == [(account, -amount) for account, amount in original]
    assert selectors.house_collected(table=table, shift=SHIFT) == 0
    assert selectors.table_chips(table=table) == {alice.pk: 1_000, bob.pk: 1_000}
    fees.refresh_from_db()
    assert fees.reversed_by == reversal


def test_a_transaction_is_reversed_once(fees: JournalTransaction, cashier) -> None:
    first = services.reverse(transaction=fees, user=cashier, reason="misdeal", idempotency_key="r1")
    before = counts()

    again = services.reverse(transaction=fees, user=cashier, reason="misdeal", idempotency_key="r1")
    assert not first.replayed
    assert again.transaction.pk == first.transaction.pk
    assert again.replayed

    with pytest.raises(AlreadyReversed) as refused:
        services.reverse(transaction=fees, user=cashier, reason="misdeal", idempotency_key="r2")
    assert refused.value.reversal.pk == first.transaction.pk
    with pytest.raises(IdempotencyConflict):
        services.reverse(transaction=fees, user=cashier, reason="another reason", idempotency_key="r1")
    assert counts() == before


def test_a_reversal_is_not_reversed(fees: JournalTransaction, cashier) -> None:
    reversal = services.reverse(
        transaction=fees, user=cashier, reason="misdeal", idempotency_key="r1"
    ).transaction
    with pytest.raises(NotReversible):
        services.reverse(transaction=reversal, user=cashier, reason="undo", idempotency_key="r2")


def test_a_reversal_needs_a_reason(fees: JournalTransaction, cashier) -> None:
    with pytest.raises(InvalidPosting, match="reason"):
        services.reverse(transaction=fees, user=cashier, reason=" ", idempotency_key="r1")


def test_a_reversal_cannot_take_back_chips_already_gone(table: Table, alice: Player, cashier) -> None:
    buy = services.buy_in(
        table=table, player=alice, amount=1_000, user=cashier, idempotency_key="in"
    ).transaction
    services.cash_out(table=table, player=alice, amount=600, user=cashier, idempotency_key="out")
    before = counts()
    with pytest.raises(InsufficientChips):
        services.reverse(transaction=buy, user=cashier, reason="wrong amount", idempotency_key="r")
    assert counts() == before
    assert selectors.player_chips(table=table, player=alice) == 400
