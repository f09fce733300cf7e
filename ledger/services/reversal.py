"""Reversing a posting: its negation, linked to it, at most once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from casino.core.db import service_atomic
from ledger.errors import AlreadyReversed, InvalidPosting, NotReversible
from ledger.models import JournalTransaction, TransactionKind
from ledger.services.locks import hold_floor_rows
from ledger.services.posting import Posted, post_by_ids, replay
from ledger.services.validation import request_digest_of, user_id_of, validate_key

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser


def reverse(
    *, transaction: JournalTransaction, user: AbstractBaseUser | None, reason: str, idempotency_key: str
) -> Posted:
    """Post the negation of ``transaction`` (same accounts, lines in the same order, amounts negated)
    as a REVERSAL linked to it by ``reverses``; ``reason`` becomes its memo.

    A transaction is reversed at most once (also enforced by a unique column): a second reversal
    under another key raises ``AlreadyReversed``; under the same key and reason it returns the first
    (``replayed``).
    Reversing a reversal raises ``NotReversible``. A reversal that would take a player's chips below
    zero (they were already played or cashed out) raises ``InsufficientChips``.
    """
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidPosting("a reversal needs a reason")
    idempotency_key = validate_key(idempotency_key)
    user_id = user_id_of(user)
    with service_atomic():
        found = JournalTransaction.objects.filter(pk=transaction.pk).first()
        if found is None:
            raise InvalidPosting(f"transaction {transaction.pk} does not exist")
        # The floor rows come before everything else in the lock order (see hold_floor_rows).
        hold_floor_rows(
            set(found.entries.values_list("account_id", flat=True)),
            table_id=found.table_id,
            hand_id=found.hand_id,
        )
        # Then the original: two reversals of one transaction queue here rather than both passing
        # the "already reversed?" check. (A row lock is not an UPDATE: no trigger fires.)
        original = JournalTransaction.objects.select_for_update().get(pk=found.pk)
        digest = request_digest_of(
            kind=TransactionKind.REVERSAL,
            table_id=original.table_id,
            hand_id=original.hand_id,
            reverses_id=original.pk,
            memo=reason,
            lines=None,
            request={"reverses": original.pk},
        )
        if (done := replay(idempotency_key, digest)) is not None:
            return done
        if original.kind == TransactionKind.REVERSAL:
            raise NotReversible(f"transaction {original.pk} is a reversal; reversals are not reversed")
        if (reversal := JournalTransaction.objects.filter(reverses=original).first()) is not None:
            raise AlreadyReversed(transaction_id=original.pk, reversal=reversal)
        negated = [
            (entry.account, -entry.amount)
            for entry in original.entries.select_related("account").order_by("line")
        ]
        return post_by_ids(
            kind=TransactionKind.REVERSAL,
            entries=negated,
            idempotency_key=idempotency_key,
            table_id=original.table_id,
            hand_id=original.hand_id,
            user_id=user_id,
            memo=reason,
            reverses_id=original.pk,
            request={"reverses": original.pk},
        )
