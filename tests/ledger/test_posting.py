"""The posting service and the convenience services built on it: what they write, what they refuse."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ledger import selectors, services
from ledger.errors import InsufficientChips, InvalidPosting
from ledger.hashing import transaction_content, transaction_hash
from ledger.keys import chain_keys
from ledger.models import GENESIS_HASH, Account, AccountKind, ChainHead, Entry, JournalTransaction
from ledger.services import locks as ledger_locks
from ledger.shifts import Shift, ShiftCode
from tables.models import Hand, Player, Table

pytestmark = pytest.mark.django_db

SHIFT = Shift(business_date=dt.date(2030, 1, 2), code=ShiftCode.SWING)


def ledger_is_empty() -> bool:
    return not JournalTransaction.objects.exists() and not Entry.objects.exists()


def entries_of(txn: JournalTransaction) -> list[tuple[int, int]]:
    return list(txn.entries.order_by("line").values_list("account_id", "amount"))


# --- buy-in, rebuy, cash-out --------------------------------------------------------------------


def test_buy_in_moves_chips_from_the_cage_to_the_player(table: Table, alice: Player, cashier, keys) -> None:
    posted = services.buy_in(
        table=table, player=alice, amount=20_000, user=cashier, idempotency_key=next(keys)
    )
    txn = posted.transaction

    chips = services.player_account(table=table, player=alice)
    cage = services.cage_account(table=table)
    assert txn.kind == JournalTransaction.Kind.BUY_IN
    assert txn.created_by == cashier
    assert txn.table == table
    assert entries_of(txn) == [(cage.pk, -20_000), (chips.pk, 20_000)]
    assert selectors.player_chips(table=table, player=alice) == 20_000
    assert selectors.cage_position(table=table) == -20_000
    assert not posted.replayed


def test_rebuy_is_booked_as_a_rebuy(table: Table, alice: Player, cashier, keys) -> None:
    services.buy_in(table=table, player=alice, amount=2_000, user=cashier, idempotency_key=next(keys))
    txn = services.rebuy(
        table=table, player=alice, amount=1_000, user=cashier, idempotency_key=next(keys)
    ).transaction
    assert txn.kind == JournalTransaction.Kind.REBUY
    assert selectors.player_chips(table=table, player=alice) == 3_000


def test_partial_and_whole_cash_out(table: Table, alice: Player, cashier, keys) -> None:
    services.buy_in(table=table, player=alice, amount=10_000, user=cashier, idempotency_key=next(keys))

    services.cash_out(table=table, player=alice, amount=2_500, user=cashier, idempotency_key=next(keys))
    assert selectors.player_chips(table=table, player=alice) == 7_500

    whole = services.cash_out(table=table, player=alice, user=cashier, idempotency_key=next(keys)).transaction
    assert entries_of(whole)[0][1] == -7_500
    assert selectors.player_chips(table=table, player=alice) == 0
    assert selectors.cage_position(table=table) == 0


def test_cash_out_of_more_than_the_balance_is_refused_and_writes_nothing(
    table: Table, alice: Player, cashier, keys
) -> None:
    services.buy_in(table=table, player=alice, amount=1_000, user=cashier, idempotency_key=next(keys))
    before = JournalTransaction.objects.count()

    with pytest.raises(InsufficientChips) as refused:
        services.cash_out(table=table, player=alice, amount=1_001, user=cashier, idempotency_key="too-much")

    assert refused.value.balance == 1_000
    assert refused.value.needed == 1_001
    assert refused.value.player_id == alice.pk
    assert JournalTransaction.objects.count() == before
    assert not JournalTransaction.objects.filter(idempotency_key="too-much").exists()
    assert selectors.player_chips(table=table, player=alice) == 1_000


def test_whole_cash_out_of_an_empty_stack_is_refused(table: Table, alice: Player, cashier, keys) -> None:
    with pytest.raises(InvalidPosting, match="no chips"):
        services.cash_out(table=table, player=alice, user=cashier, idempotency_key=next(keys))
    assert ledger_is_empty()


@pytest.mark.parametrize("amount", [0, -5, 1.5, 100.0, True, "100", None])
def test_buy_in_amount_must_be_a_positive_int(table: Table, alice: Player, cashier, amount: object) -> None:
    with pytest.raises(InvalidPosting):
        services.buy_in(table=table, player=alice, amount=amount, user=cashier, idempotency_key="k")  # type: ignore[arg-type]
    assert ledger_is_empty()


def test_table_change_moves_chips_on_the_room_chain(
    table: Table, other_table: Table, alice: Player, cashier, keys
) -> None:
    services.buy_in(table=table, player=alice, amount=5_000, user=cashier, idempotency_key=next(keys))
    txn = services.transfer_chips(
        player=alice,
        from_table=table,
        to_table=other_table,
        amount=3_000,
        user=cashier,
        idempotency_key=next(keys),
    ).transaction
    assert txn.table is None
    assert txn.chain == "room"
    assert selectors.player_chips(table=table, player=alice) == 2_000
    assert selectors.player_chips(table=other_table, player=alice) == 3_000
    with pytest.raises(InsufficientChips):
        services.transfer_chips(
            player=alice,
            from_table=table,
            to_table=other_table,
            amount=2_001,
            user=cashier,
            idempotency_key="x",
        )


# --- the generic posting: what it refuses ------------------------------------------------------------


@pytest.fixture
def funded(table: Table, alice: Player, bob: Player, cashier, keys: Iterator[str]) -> dict[str, Account]:
    services.buy_in(table=table, player=alice, amount=1_000, user=cashier, idempotency_key=next(keys))
    services.buy_in(table=table, player=bob, amount=1_000, user=cashier, idempotency_key=next(keys))
    return {
        "alice": services.player_account(table=table, player=alice),
        "bob": services.player_account(table=table, player=bob),
        "cage": services.cage_account(table=table),
    }


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([("alice", -100)], "at least two entries"),
        ([], "at least two entries"),
        ([("alice", -100), ("bob", 99)], "sum to -1"),
        ([("alice", 0), ("bob", 0)], "zero amount"),
        ([("alice", -100), ("bob", 100.0)], "integer number of cents"),
        ([("alice", -1), ("bob", True)], "integer number of cents"),
        ([("alice", -100), ("alice", 100)], "at least two accounts"),
        ([("alice", -(10**16)), ("bob", 10**16)], "largest amount"),
    ],
)
def test_post_refuses_malformed_entries(
    funded: dict[str, Account], table: Table, lines: list[tuple[str, object]], message: str
) -> None:
    before = list(Account.objects.order_by("pk").values_list("balance", flat=True))
    count = JournalTransaction.objects.count()
    with pytest.raises(InvalidPosting, match=message):
        services.post(
            kind="settlement_payment",
            entries=[(funded[name], amount) for name, amount in lines],  # type: ignore[misc]
            idempotency_key="bad",
            table=table,
        )
    assert JournalTransaction.objects.count() == count
    assert list(Account.objects.order_by("pk").values_list("balance", flat=True)) == before


def test_post_refuses_unknown_kinds_and_direct_reversals(funded: dict[str, Account], table: Table) -> None:
    entries = [(funded["alice"], -1), (funded["bob"], 1)]
    with pytest.raises(InvalidPosting, match="not a transaction kind"):
        services.post(kind="gift", entries=entries, idempotency_key="k1", table=table)
    with pytest.raises(InvalidPosting, match="reverse"):
        services.post(kind="reversal", entries=entries, idempotency_key="k2", table=table)


def test_post_refuses_an_empty_idempotency_key(funded: dict[str, Account], table: Table) -> None:
    with pytest.raises(InvalidPosting, match="idempotency key"):
        services.post(
            kind="settlement_payment",
            entries=[(funded["alice"], -1), (funded["bob"], 1)],
            idempotency_key="  ",
            table=table,
        )


def test_post_refuses_accounts_of_another_table(
    funded: dict[str, Account], table: Table, other_table: Table, alice: Player
) -> None:
    elsewhere = services.player_account(table=other_table, player=alice)
    with pytest.raises(InvalidPosting, match="not an account of table"):
        services.post(
            kind="settlement_payment",
            entries=[(funded["alice"], -1), (elsewhere, 1)],
            idempotency_key="k",
            table=table,
        )


def test_post_refuses_a_hand_of_another_table(
    funded: dict[str, Account], other_table: Table, table: Table, make_bare_hand
) -> None:
    foreign_hand = make_bare_hand(other_table)
    with pytest.raises(InvalidPosting, match="not a hand of table"):
        services.post(
            kind="settlement_payment",
            entries=[(funded["alice"], -1), (funded["bob"], 1)],
            idempotency_key="k",
            table=table,
            hand=foreign_hand,
        )


def test_a_player_never_goes_below_zero_even_in_the_middle_of_a_posting(
    funded: dict[str, Account], table: Table, hand: Hand
) -> None:
    # Alice (1,000) pays 1,500 and gets 600 back afterwards: the net (-900) would fit, the order doesn't.
    with pytest.raises(InsufficientChips) as refused:
        services.post(
            kind="settlement_payment",
            entries=[
                (funded["alice"], -1_500),
                (funded["bob"], 1_500),
                (funded["bob"], -600),
                (funded["alice"], 600),
            ],
            idempotency_key="k",
            table=table,
            hand=hand,
        )
    assert refused.value.account_id == funded["alice"].pk
    assert selectors.player_chips(table=table, player=funded["alice"].player) == 1_000


# --- fees ------------------------------------------------------------------------------------------


def test_fees_of_a_hand_are_one_transaction_into_the_shift_house_account(
    funded: dict[str, Account], table: Table, hand: Hand, alice: Player, bob: Player, cashier
) -> None:
    posted = services.collect_fees(
        table=table,
        shift=SHIFT,
        hand=hand,
        fees=[(alice, 200), (bob, 100)],
        user=cashier,
        idempotency_key=f"hand:{hand.pk}:fees",
    )
    assert posted is not None
    txn = posted.transaction
    house = services.house_account(table=table, shift=SHIFT)
    assert txn.kind == JournalTransaction.Kind.FEE
    assert txn.hand == hand
    assert entries_of(txn) == [(funded["alice"].pk, -200), (funded["bob"].pk, -100), (house.pk, 300)]
    assert selectors.house_collected(table=table, shift=SHIFT) == 300
    assert selectors.shift_collected(shift=SHIFT) == 300
    assert selectors.player_chips(table=table, player=alice) == 800


def test_house_accounts_are_per_table_and_shift(
    funded: dict[str, Account], table: Table, alice: Player, bob: Player, cashier, keys
) -> None:
    later = Shift(business_date=SHIFT.business_date, code=ShiftCode.GRAVE)
    for player, fee, shift in ((alice, 100, SHIFT), (bob, 300, later)):
        services.collect_fees(
            table=table, fees=[(player, fee)], shift=shift, user=cashier, idempotency_key=next(keys)
        )
    assert selectors.house_collected(table=table, shift=SHIFT) == 100
    assert selectors.house_collected(table=table, shift=later) == 300
    assert Account.objects.filter(kind=AccountKind.HOUSE_COLLECTION).count() == 2


def test_a_fee_nobody_can_pay_collects_nothing_from_anyone(
    funded: dict[str, Account], table: Table, alice: Player, bob: Player, carol: Player, cashier
) -> None:
    with pytest.raises(InsufficientChips) as refused:
        services.collect_fees(
            table=table, shift=SHIFT, fees=[(alice, 100), (carol, 100)], user=cashier, idempotency_key="f"
        )
    assert refused.value.player_id == carol.pk
    assert selectors.player_chips(table=table, player=alice) == 1_000
    assert selectors.house_collected(table=table, shift=SHIFT) == 0


def test_zero_fees_post_nothing(funded: dict[str, Account], table: Table, alice: Player, cashier) -> None:
    before = JournalTransaction.objects.count()
    assert (
        services.collect_fees(table=table, shift=SHIFT, fees=[(alice, 0)], user=cashier, idempotency_key="z")
        is None
    )
    assert JournalTransaction.objects.count() == before
    with pytest.raises(InvalidPosting):
        services.collect_fees(table=table, shift=SHIFT, fees=[(alice, -1)], user=cashier, idempotency_key="z")


def test_fee_needs_a_shift_key(funded: dict[str, Account], table: Table, alice: Player, cashier) -> None:
    with pytest.raises(InvalidPosting, match="Shift"):
        services.collect_fees(
            table=table,
            fees=[(alice, 1)],
            shift="2030-01-02/day",  # type: ignore[arg-type]
            user=cashier,
            idempotency_key="s",
        )


# --- settlement payments and pots ----------------------------------------------------------------------


def test_payments_are_posted_in_order_as_one_transaction(
    funded: dict[str, Account], table: Table, hand: Hand, alice: Player, bob: Player, carol: Player, cashier
) -> None:
    # Carol starts with nothing: she can pay Bob only after Alice has paid her.
    posted = services.post_payments(
        table=table,
        hand=hand,
        payments=[(alice, carol, 400), (carol, bob, 300), (bob, alice, 0)],
        user=cashier,
        idempotency_key=f"hand:{hand.pk}:settle",
    )
    assert posted is not None
    txn = posted.transaction
    carol_chips = services.player_account(table=table, player=carol)
    assert txn.kind == JournalTransaction.Kind.SETTLEMENT_PAYMENT
    assert entries_of(txn) == [
        (funded["alice"].pk, -400),
        (carol_chips.pk, 400),
        (carol_chips.pk, -300),
        (funded["bob"].pk, 300),
    ]
    assert selectors.table_chips(table=table) == {alice.pk: 600, bob.pk: 1_300, carol.pk: 100}


@pytest.mark.postgres
def test_a_postings_floor_rows_are_locked_table_first_in_as_few_round_trips_as_the_driver_allows(
    funded: dict[str, Account], table: Table, hand: Hand, alice: Player, bob: Player, cashier
) -> None:
    """The table, the hand and the players, each FOR KEY SHARE by the kernel's statement, in that
    order: one execute() where psycopg binds client side (DATABASE_PREPARED_STATEMENTS=0), one each
    with server-side binding (the default, which can't carry several statements)."""
    with CaptureQueriesContext(connection) as queries:
        services.post_payments(
            table=table, hand=hand, payments=[(alice, bob, 100)], user=cashier, idempotency_key="one-trip"
        )
    locking = [query["sql"] for query in queries.captured_queries if "FOR KEY SHARE" in query["sql"]]
    assert len(locking) == (1 if ledger_locks._client_side_binding() else 3)
    sent = "\n".join(locking)
    assert sent.count("FOR KEY SHARE") == 3
    quote = connection.ops.quote_name
    order = [sent.index(f"FROM {quote(model._meta.db_table)}") for model in (Table, Hand, Player)]
    assert order == sorted(order)


def test_payments_out_of_order_are_refused_whole(
    funded: dict[str, Account], table: Table, hand: Hand, alice: Player, bob: Player, carol: Player, cashier
) -> None:
    with pytest.raises(InsufficientChips):
        services.post_payments(
            table=table,
            hand=hand,
            payments=[(alice, bob, 100), (carol, bob, 300), (alice, carol, 400)],
            user=cashier,
            idempotency_key="settle",
        )
    assert selectors.table_chips(table=table) == {alice.pk: 1_000, bob.pk: 1_000}  # rolled back, Carol too


def test_payments_refuse_self_payment_and_negative_amounts(
    funded: dict[str, Account], table: Table, hand: Hand, alice: Player, bob: Player, cashier
) -> None:
    with pytest.raises(InvalidPosting, match="themself"):
        services.post_payments(
            table=table, hand=hand, payments=[(alice, alice, 1)], user=cashier, idempotency_key="a"
        )
    with pytest.raises(InvalidPosting, match="negative"):
        services.post_payments(
            table=table, hand=hand, payments=[(alice, bob, -1)], user=cashier, idempotency_key="b"
        )
    assert (
        services.post_payments(table=table, hand=hand, payments=[], user=cashier, idempotency_key="c") is None
    )


def test_pot_award_clears_the_hand_pot(
    funded: dict[str, Account], table: Table, hand: Hand, alice: Player, bob: Player, cashier
) -> None:
    posted = services.award_pot(
        table=table,
        hand=hand,
        put_ins=[(alice, 300), (bob, 500)],
        awards=[(alice, 600), (bob, 200)],  # Bob's 200 nobody matched goes back to him
        user=cashier,
        idempotency_key=f"hand:{hand.pk}:settle",
    )
    assert posted is not None
    txn = posted.transaction
    assert txn.kind == JournalTransaction.Kind.POT_AWARD
    assert selectors.hand_pot(hand=hand) == 0
    assert selectors.table_chips(table=table) == {alice.pk: 1_300, bob.pk: 700}
    pot = services.pot_account(hand=hand)
    assert [amount for account_id, amount in entries_of(txn) if account_id == pot.pk] == [
        300,
        500,
        -600,
        -200,
    ]


def test_a_pot_that_does_not_clear_is_refused(
    funded: dict[str, Account], table: Table, hand: Hand, alice: Player, bob: Player, cashier
) -> None:
    with pytest.raises(InvalidPosting, match="pot must end at zero"):
        services.award_pot(
            table=table,
            hand=hand,
            put_ins=[(alice, 300)],
            awards=[(bob, 200)],
            user=cashier,
            idempotency_key="p",
        )
    pot = services.pot_account(hand=hand)
    with pytest.raises(InvalidPosting, match="pot must be cleared"):
        services.post(
            kind="pot_award",
            entries=[(funded["alice"], -5), (pot, 5)],
            idempotency_key="q",
            table=table,
            hand=hand,
        )
    with pytest.raises(InvalidPosting, match="posting of its hand"):
        services.post(
            kind="pot_award",
            entries=[(funded["alice"], -5), (pot, 5), (pot, -5), (funded["bob"], 5)],
            idempotency_key="r",
            table=table,
        )


# --- the chain -------------------------------------------------------------------------------------------


def test_each_table_has_its_own_hash_chain(
    table: Table, other_table: Table, alice: Player, bob: Player, cashier, keys
) -> None:
    first = services.buy_in(
        table=table, player=alice, amount=100, user=cashier, idempotency_key=next(keys)
    ).transaction
    elsewhere = services.buy_in(
        table=other_table, player=bob, amount=100, user=cashier, idempotency_key=next(keys)
    ).transaction
    second = services.buy_in(
        table=table, player=bob, amount=100, user=cashier, idempotency_key=next(keys)
    ).transaction

    assert (first.chain, first.sequence, first.prev_hash) == (f"table:{table.pk}", 1, GENESIS_HASH)
    assert (elsewhere.chain, elsewhere.sequence, elsewhere.prev_hash) == (
        f"table:{other_table.pk}",
        1,
        GENESIS_HASH,
    )
    assert (second.sequence, second.prev_hash) == (2, first.hash)
    head = ChainHead.objects.get(chain=f"table:{table.pk}")
    assert (head.sequence, head.hash) == (2, second.hash)


def test_the_hash_covers_the_entries(table: Table, alice: Player, cashier) -> None:
    txn = services.buy_in(
        table=table, player=alice, amount=100, user=cashier, idempotency_key="h"
    ).transaction
    stored = JournalTransaction.objects.get(pk=txn.pk)
    lines = [(e.line, e.account_id, e.amount) for e in stored.entries.all()]

    def content(entries: list[tuple[int, int, int]]) -> dict[str, object]:
        return transaction_content(
            chain=stored.chain,
            sequence=stored.sequence,
            prev_hash=stored.prev_hash,
            kind=stored.kind,
            table_id=stored.table_id,
            hand_id=stored.hand_id,
            created_by_id=stored.created_by_id,
            created_at=stored.created_at,
            memo=stored.memo,
            idempotency_key=stored.idempotency_key,
            request_digest=stored.request_digest,
            reverses_id=stored.reverses_id,
            key_id=stored.key_id,
            entries=entries,
        )

    key = chain_keys().keys[stored.key_id]
    assert stored.key_id == chain_keys().current_id
    assert transaction_hash(content(lines), key) == stored.hash
    altered = [(line, account, amount * 2) for line, account, amount in lines]
    assert transaction_hash(content(altered), key) != stored.hash


def test_selectors_never_create_accounts(table: Table, alice: Player, hand: Hand) -> None:
    assert selectors.player_chips(table=table, player=alice) == 0
    assert selectors.house_collected(table=table, shift=SHIFT) == 0
    assert selectors.hand_pot(hand=hand) == 0
    assert selectors.cage_position() == 0
    assert not Account.objects.exists()
