"""Random sequences of buy-ins, fees, payments, cash-outs, reversals and retries against an
in-memory model of the balances: after every step each balance equals the model's, and all the
ledger's accounts sum to zero."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from django.db.models import Sum
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from ledger import selectors, services
from ledger.errors import AlreadyReversed, InsufficientChips, InvalidPosting, NotReversible
from ledger.models import Account, JournalTransaction
from ledger.shifts import Shift, ShiftCode
from ledger.verification import verify_ledger

SHIFT = Shift(business_date=dt.date(2030, 1, 2), code=ShiftCode.GRAVE)
PLAYERS = 3

Leg = tuple[Any, int]  # ("cage" | "house" | player index, cents)

player_index = st.integers(min_value=0, max_value=PLAYERS - 1)
cents = st.integers(min_value=1, max_value=5_000)


class LedgerMachine(RuleBasedStateMachine):
    # The bare floor factories (tests/factories.py), given by the test from its fixtures.
    floor: ClassVar[dict[str, Callable[..., Any]]] = {}

    def __init__(self) -> None:
        super().__init__()
        self.table = self.floor["table"]()
        self.hand = self.floor["hand"](self.table)
        self.players = [self.floor["player"](f"p{i}") for i in range(PLAYERS)]
        self.model: dict[Any, int] = {"cage": 0, "house": 0} | {i: 0 for i in range(PLAYERS)}
        self.posted: list[tuple[JournalTransaction, list[Leg]]] = []
        self.reversed: set[int] = set()
        self.last_call: tuple[Any, dict[str, Any], int] | None = None
        self.account_ids: dict[Any, int] = {}
        self.keys = (f"sm-{self.table.pk}-{n}" for n in itertools.count())

    # --- the model --------------------------------------------------------------------------------

    def fits(self, legs: list[Leg]) -> bool:
        """Would the legs, applied in order, keep every player's chips >= 0?"""
        running = dict(self.model)
        for account, amount in legs:
            running[account] += amount
            if isinstance(account, int) and running[account] < 0:
                return False
        return True

    def expect(self, call: Any, kwargs: dict[str, Any], legs: list[Leg]) -> bool:
        """Make the call; it must post exactly ``legs`` when they fit (True), and be refused
        otherwise, posting nothing (False)."""
        kwargs = kwargs | {"user": None, "idempotency_key": next(self.keys)}
        if not self.fits(legs):
            count = JournalTransaction.objects.count()
            with pytest.raises(InsufficientChips):
                call(**kwargs)
            assert JournalTransaction.objects.count() == count
            return False
        posted = call(**kwargs)
        assert posted is not None
        assert not posted.replayed
        txn = posted.transaction
        for account, amount in legs:
            self.model[account] += amount
        self.posted.append((txn, legs))
        self.last_call = (call, kwargs, txn.pk)
        assert [(e.account_id, e.amount) for e in txn.entries.order_by("line")] == [
            (self.account_id(account), amount) for account, amount in legs
        ]
        return True

    def account_id(self, account: Any) -> int:
        if account not in self.account_ids:
            if account == "cage":
                found = services.cage_account(table=self.table)
            elif account == "house":
                found = services.house_account(table=self.table, shift=SHIFT)
            else:
                found = services.player_account(table=self.table, player=self.players[account])
            self.account_ids[account] = found.pk
        return self.account_ids[account]

    # --- rules ---------------------------------------------------------------------------------------

    @rule(player=player_index, amount=cents)
    def buy_in(self, player: int, amount: int) -> None:
        self.expect(
            services.buy_in,
            {"table": self.table, "player": self.players[player], "amount": amount},
            [("cage", -amount), (player, amount)],
        )

    @rule(
        fees=st.lists(
            st.tuples(player_index, st.integers(min_value=1, max_value=500)), min_size=1, max_size=3
        )
    )
    def collect_fees(self, fees: list[tuple[int, int]]) -> None:
        legs: list[Leg] = [(player, -amount) for player, amount in fees]
        legs.append(("house", sum(amount for _, amount in fees)))
        self.expect(
            services.collect_fees,
            {
                "table": self.table,
                "shift": SHIFT,
                "hand": self.hand,
                "fees": [(self.players[p], amount) for p, amount in fees],
            },
            legs,
        )

    @rule(
        payments=st.lists(
            st.tuples(player_index, player_index, st.integers(min_value=1, max_value=3_000)).filter(
                lambda payment: payment[0] != payment[1]
            ),
            min_size=1,
            max_size=4,
        )
    )
    def settle(self, payments: list[tuple[int, int, int]]) -> None:
        legs: list[Leg] = []
        for payer, payee, amount in payments:
            legs += [(payer, -amount), (payee, amount)]
        self.expect(
            services.post_payments,
            {
                "table": self.table,
                "hand": self.hand,
                "payments": [(self.players[a], self.players[b], amount) for a, b, amount in payments],
            },
            legs,
        )

    @rule(player=player_index, amount=st.none() | cents)
    def cash_out(self, player: int, amount: int | None) -> None:
        kwargs = {"table": self.table, "player": self.players[player], "amount": amount}
        if amount is None:
            if self.model[player] == 0:
                with pytest.raises(InvalidPosting):
                    services.cash_out(**kwargs, user=None, idempotency_key=next(self.keys))
                return
            amount = self.model[player]
        self.expect(services.cash_out, kwargs, [(player, -amount), ("cage", amount)])

    @precondition(lambda self: self.posted)
    @rule(data=st.data())
    def reverse(self, data: st.DataObject) -> None:
        txn, legs = data.draw(st.sampled_from(self.posted))
        key = next(self.keys)
        if txn.kind == JournalTransaction.Kind.REVERSAL:
            with pytest.raises(NotReversible):
                services.reverse(transaction=txn, user=None, reason="test", idempotency_key=key)
        elif txn.pk in self.reversed:
            with pytest.raises(AlreadyReversed):
                services.reverse(transaction=txn, user=None, reason="test", idempotency_key=key)
        else:
            negated = [(account, -amount) for account, amount in legs]
            if self.expect(services.reverse, {"transaction": txn, "reason": "test"}, negated):
                self.reversed.add(txn.pk)

    @precondition(lambda self: self.last_call is not None)
    @rule()
    def retry_last(self) -> None:
        """The same request under the same key again: the first transaction back, nothing posted."""
        assert self.last_call is not None
        call, kwargs, first_pk = self.last_call
        count = JournalTransaction.objects.count()
        again = call(**kwargs)
        assert again.transaction.pk == first_pk
        assert again.replayed
        assert JournalTransaction.objects.count() == count

    # --- invariants ---------------------------------------------------------------------------------

    @invariant()
    def balances_match_the_model(self) -> None:
        for index, player in enumerate(self.players):
            assert selectors.player_chips(table=self.table, player=player) == self.model[index]
        assert selectors.cage_position(table=self.table) == self.model["cage"]
        assert selectors.house_collected(table=self.table, shift=SHIFT) == self.model["house"]
        assert sum(self.model.values()) == 0

    @invariant()
    def the_whole_ledger_sums_to_zero(self) -> None:
        assert (Account.objects.aggregate(total=Sum("balance"))["total"] or 0) == 0


@pytest.mark.django_db
def test_random_sequences_keep_the_books_balanced(make_bare_table, make_bare_player, make_bare_hand) -> None:
    LedgerMachine.floor = {"table": make_bare_table, "player": make_bare_player, "hand": make_bare_hand}
    run_state_machine_as_test(
        LedgerMachine,
        settings=settings(
            max_examples=20,
            stateful_step_count=20,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
    report = verify_ledger()
    assert report.ok, report.problems
    assert report.transactions > 0
