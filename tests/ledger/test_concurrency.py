"""Concurrency: real threads, each with its own PostgreSQL connection, racing on the same rows.

These run against committed data (``transaction=True``), so the races are the ones production has.
SQLite serialises writers (BEGIN IMMEDIATE), so only the failure-in-the-middle test runs there too.
"""

from __future__ import annotations

import datetime as dt
import random
import threading
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction

from ledger import selectors, services
from ledger.errors import AlreadyReversed, IdempotencyConflict, InsufficientChips, InvalidPosting
from ledger.models import Entry, JournalTransaction
from ledger.services import posting
from ledger.shifts import Shift, ShiftCode
from ledger.verification import verify_ledger
from tables.models import Hand, Player, Table
from tests.races import race, race_threads, raised, returned

SHIFT = Shift(business_date=dt.date(2030, 1, 2), code=ShiftCode.DAY)


def open_accounts(table: Table, player: Player) -> None:
    """Create the accounts up front: otherwise the first thread's account INSERT makes the others
    wait for its commit, and they never race inside the posting itself."""
    services.player_account(table=table, player=player)
    services.cage_account(table=table)


@pytest.mark.parametrize("round_", range(5))
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_posting_from_several_threads_posts_once(table: Table, alice: Player, round_: int) -> None:
    open_accounts(table, alice)
    outcomes = race_threads(
        lambda _: services.buy_in(table=table, player=alice, amount=700, user=None, idempotency_key="same"), 4
    )
    assert raised(outcomes) == []
    assert len({posted.transaction.pk for posted in returned(outcomes)}) == 1
    assert sum(not posted.replayed for posted in returned(outcomes)) == 1
    assert JournalTransaction.objects.filter(idempotency_key="same").count() == 1
    assert selectors.player_chips(table=table, player=alice) == 700
    assert verify_ledger().ok


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_key_for_different_requests_at_once_posts_one_of_them(table: Table, alice: Player) -> None:
    open_accounts(table, alice)
    outcomes = race_threads(
        lambda i: (
            services.buy_in(
                table=table, player=alice, amount=100 * (i + 1), user=None, idempotency_key="k"
            ).transaction
        ),
        4,
    )
    assert len(returned(outcomes)) == 1
    assert all(isinstance(error, IdempotencyConflict) for error in raised(outcomes))
    assert (
        selectors.player_chips(table=table, player=alice) == returned(outcomes)[0].entries.get(line=2).amount
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_key_at_two_tables_at_once_posts_one_of_them(
    table: Table, other_table: Table, alice: Player
) -> None:
    """No account in common, so nothing serialises the two before the INSERT: the unique key does
    (the loser's INSERT waits for the winner's commit, fails, and is read back as a conflict)."""
    tables = [table, other_table]
    for each in tables:
        open_accounts(each, alice)
    outcomes = race_threads(
        lambda i: (
            services.buy_in(
                table=tables[i % 2], player=alice, amount=100, user=None, idempotency_key="k"
            ).transaction
        ),
        2,
    )
    assert len(returned(outcomes)) == 1
    assert [type(error) for error in raised(outcomes)] == [IdempotencyConflict]
    assert JournalTransaction.objects.count() == 1
    assert verify_ledger().ok


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_reversal_twice_succeeds_once(table: Table, alice: Player) -> None:
    buy = services.buy_in(
        table=table, player=alice, amount=1_000, user=None, idempotency_key="in"
    ).transaction

    outcomes = race_threads(
        lambda i: (
            services.reverse(
                transaction=buy, user=None, reason="mistake", idempotency_key=f"undo-{i}"
            ).transaction
        ),
        4,
    )

    assert len(returned(outcomes)) == 1
    assert len(raised(outcomes)) == 3
    assert all(isinstance(error, AlreadyReversed) for error in raised(outcomes))
    assert JournalTransaction.objects.filter(reverses=buy).count() == 1
    assert selectors.player_chips(table=table, player=alice) == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_reversal_under_one_key_returns_one_transaction(table: Table, alice: Player) -> None:
    buy = services.buy_in(
        table=table, player=alice, amount=1_000, user=None, idempotency_key="in"
    ).transaction
    outcomes = race_threads(
        lambda _: (
            services.reverse(transaction=buy, user=None, reason="mistake", idempotency_key="undo").transaction
        ),
        4,
    )
    assert raised(outcomes) == []
    assert len({txn.pk for txn in returned(outcomes)}) == 1
    assert JournalTransaction.objects.count() == 2


@pytest.mark.parametrize("round_", range(3))
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_cash_outs_racing_for_the_same_chips_never_go_below_zero(
    table: Table, alice: Player, round_: int
) -> None:
    services.buy_in(table=table, player=alice, amount=500, user=None, idempotency_key="in")

    outcomes = race_threads(
        lambda i: (
            services.cash_out(
                table=table, player=alice, amount=300, user=None, idempotency_key=f"out-{i}"
            ).transaction
        ),
        4,
    )

    assert len(returned(outcomes)) == 1
    assert all(isinstance(error, InsufficientChips) for error in raised(outcomes))
    assert selectors.player_chips(table=table, player=alice) == 200
    assert verify_ledger().ok


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_whole_cash_outs_racing_pay_out_once(table: Table, alice: Player) -> None:
    services.buy_in(table=table, player=alice, amount=500, user=None, idempotency_key="in")
    outcomes = race_threads(
        lambda i: (
            services.cash_out(table=table, player=alice, user=None, idempotency_key=f"out-{i}").transaction
        ),
        4,
    )
    assert len(returned(outcomes)) == 1
    assert all(isinstance(error, InvalidPosting) for error in raised(outcomes))
    assert selectors.player_chips(table=table, player=alice) == 0
    assert selectors.cage_position(table=table) == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_crossing_settlements_do_not_deadlock(table: Table, make_bare_player, make_bare_hand) -> None:
    """Threads post payments between the same players in opposite orders; locking accounts in
    primary-key order means no thread ever waits on another in a cycle (PostgreSQL would raise
    DeadlockDetected)."""
    players = [make_bare_player(f"p{i}") for i in range(4)]
    for number, player in enumerate(players):
        services.buy_in(table=table, player=player, amount=5_000, user=None, idempotency_key=f"in-{number}")
    hands = [make_bare_hand(table) for _ in range(4)]

    def settle(worker: int) -> int:
        rng = random.Random(worker)
        posted = 0
        for step in range(12):
            payer, payee = rng.sample(players, 2)
            order = [(payer, payee, rng.randint(1, 400)), (payee, payer, rng.randint(1, 400))]
            try:
                services.post_payments(
                    table=table,
                    hand=hands[worker],
                    payments=order if worker % 2 else order[::-1],
                    user=None,
                    idempotency_key=f"settle-{worker}-{step}",
                )
                posted += 1
            except InsufficientChips:
                pass
        return posted

    outcomes = race_threads(settle, 4)

    assert raised(outcomes) == []
    assert sum(selectors.table_chips(table=table).values()) == 20_000
    assert JournalTransaction.objects.filter(kind="settlement_payment").count() == sum(returned(outcomes))
    assert verify_ledger().ok


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_connection_dropped_mid_posting_leaves_nothing_half_posted(
    table: Table, alice: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    services.buy_in(table=table, player=alice, amount=1_000, user=None, idempotency_key="in")
    seen: dict[str, int] = {}

    def drop_connection(lines: Any) -> None:
        # The transaction row and its entries are in; the balances are not yet updated. Kill the link.
        seen["entries"] = Entry.objects.filter(transaction__idempotency_key="dropped").count()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    monkeypatch.setattr(posting, "_apply_balances", drop_connection)
    outcomes = race_threads(
        lambda _: (
            services.cash_out(
                table=table, player=alice, amount=400, user=None, idempotency_key="dropped"
            ).transaction
        ),
        1,
    )
    monkeypatch.undo()

    assert seen["entries"] == 2
    assert len(raised(outcomes)) == 1
    assert isinstance(raised(outcomes)[0], DatabaseError)
    assert not JournalTransaction.objects.filter(idempotency_key="dropped").exists()
    assert Entry.objects.count() == 2  # the buy-in's
    assert selectors.player_chips(table=table, player=alice) == 1_000
    assert verify_ledger().ok
    # The client retries with the same key once the link is back: it posts, once.
    retried = services.cash_out(table=table, player=alice, amount=400, user=None, idempotency_key="dropped")
    assert not retried.replayed
    assert selectors.player_chips(table=table, player=alice) == 600


@pytest.mark.django_db
def test_a_failure_after_the_entries_are_written_leaves_nothing_half_posted(
    table: Table, hand: Hand, alice: Player, bob: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    services.buy_in(table=table, player=alice, amount=1_000, user=None, idempotency_key="in")

    def fail(lines: Any) -> None:
        assert Entry.objects.filter(transaction__idempotency_key="boom").count() == 2
        raise RuntimeError("power cut")

    monkeypatch.setattr(posting, "_apply_balances", fail)
    with pytest.raises(RuntimeError, match="power cut"):
        services.post_payments(
            table=table, hand=hand, payments=[(alice, bob, 300)], user=None, idempotency_key="boom"
        )
    monkeypatch.undo()

    assert not JournalTransaction.objects.filter(idempotency_key="boom").exists()
    assert Entry.objects.count() == 2
    assert selectors.table_chips(table=table) == {alice.pk: 1_000}
    assert verify_ledger().ok


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_floor_service_holding_its_table_and_a_cash_out_do_not_deadlock(
    table: Table, alice: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The floor locks its table FOR UPDATE and then posts a fee; a cash-out at the same table is
    under way. Were the cash-out to hold Alice's account while the floor takes the table, its COMMIT
    (deferred foreign-key check: FOR KEY SHARE on the table) would wait for the floor, and the floor
    for the account: a deadlock. The ledger takes the floor rows first, so one simply waits."""
    services.buy_in(table=table, player=alice, amount=1_000, user=None, idempotency_key="in")
    services.house_account(table=table, shift=SHIFT)
    cash_out_has_accounts = threading.Event()
    floor_has_table = threading.Event()
    apply_balances = posting._apply_balances
    cash_out_thread: list[int] = []  # the cash-out's thread's id: the one slowed down

    def slow_apply(lines: Any) -> None:
        if threading.get_ident() in cash_out_thread:
            cash_out_has_accounts.set()
            # Give the floor its chance to take the table (it can't while we hold KEY SHARE on it).
            floor_has_table.wait(timeout=1.5)
        apply_balances(lines)

    monkeypatch.setattr(posting, "_apply_balances", slow_apply)

    def cash_out() -> JournalTransaction:
        cash_out_thread.append(threading.get_ident())
        return services.cash_out(
            table=table, player=alice, amount=300, user=None, idempotency_key="out"
        ).transaction

    def floor() -> JournalTransaction:
        cash_out_has_accounts.wait(timeout=10)
        with transaction.atomic():
            locked = Table.objects.select_for_update().get(pk=table.pk)
            floor_has_table.set()
            return services.collect_fees(
                table=locked, fees=[(alice, 100)], shift=SHIFT, user=None, idempotency_key="fee"
            ).transaction

    cashed_out, collected = race(cash_out, floor)

    assert isinstance(cashed_out, JournalTransaction), cashed_out
    assert isinstance(collected, JournalTransaction), collected
    assert selectors.player_chips(table=table, player=alice) == 600
    assert verify_ledger().ok
