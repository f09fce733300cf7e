"""The transaction kind of a settlement is said once (``ledger.models.SETTLEMENT_KINDS``): what the
ledger's settlement services post for each kind of postings, and what both readers of a settled hand
(the replay audit, the books) read its settlement against, through the one comparison
(``ledger.settlement_check``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from backoffice import books
from ledger import services, settlement_check
from ledger.models import SETTLEMENT_KINDS, JournalTransaction, TransactionKind
from poker.postings import PostingsKind
from tables.models import Hand, Player, Table


def test_every_kind_of_postings_has_its_settlement_kind() -> None:
    assert set(SETTLEMENT_KINDS) == set(PostingsKind)
    assert SETTLEMENT_KINDS[PostingsKind.POT] == TransactionKind.POT_AWARD
    assert SETTLEMENT_KINDS[PostingsKind.PAYMENTS] == TransactionKind.SETTLEMENT_PAYMENT
    with pytest.raises(TypeError):  # one map for every reader: nobody edits it in place
        SETTLEMENT_KINDS[PostingsKind.POT] = TransactionKind.FEE  # type: ignore[index]


def test_both_audits_read_the_one_map() -> None:
    # Neither reader keeps a copy of its own (a copy is how the two would drift apart): the replay
    # audit reads it through the one comparison, the books as well and for the transactions they read.
    assert settlement_check.SETTLEMENT_KINDS is SETTLEMENT_KINDS
    assert books.SETTLEMENT_KINDS is SETTLEMENT_KINDS
    assert not hasattr(books, "_SETTLEMENT_KINDS")


@pytest.mark.django_db
def test_the_settlement_services_post_the_mapped_kinds(
    table: Table, hand: Hand, alice: Player, bob: Player, cashier, keys: Iterator[str]
) -> None:
    services.buy_in(table=table, player=alice, amount=1_000, user=cashier, idempotency_key=next(keys))
    services.buy_in(table=table, player=bob, amount=1_000, user=cashier, idempotency_key=next(keys))
    pot = services.award_pot(
        table=table,
        hand=hand,
        put_ins=[(alice, 100), (bob, 100)],
        awards=[(alice, 200)],
        user=cashier,
        idempotency_key=next(keys),
    )
    payments = services.post_payments(
        table=table, hand=hand, payments=[(alice, bob, 50)], user=cashier, idempotency_key=next(keys)
    )
    assert pot is not None
    assert payments is not None
    kinds = dict(JournalTransaction.objects.filter(hand=hand).values_list("pk", "kind"))
    assert kinds[pot.transaction.pk] == SETTLEMENT_KINDS[PostingsKind.POT]
    assert kinds[payments.transaction.pk] == SETTLEMENT_KINDS[PostingsKind.PAYMENTS]
