"""A player's chips and the cage: buy-in, rebuy, cash-out, and a table change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from casino.core.db import service_atomic
from ledger.errors import InvalidPosting
from ledger.models import TransactionKind
from ledger.services.accounts import cage_account, player_account
from ledger.services.locks import lock_for_posting
from ledger.services.posting import Posted, post, post_by_ids, replay
from ledger.services.validation import positive_cents, request_digest_of, user_id_of, validate_key

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from tables.models import Player, Table


def buy_in(
    *,
    table: Table,
    player: Player,
    amount: int,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
) -> Posted:
    """The cage sells ``amount`` cents of chips to ``player`` at ``table`` (BUY_IN).
    Raises ``InvalidPosting`` for a non-positive or non-int amount, ``IdempotencyConflict``."""
    return _chips_from_cage(
        kind=TransactionKind.BUY_IN,
        table=table,
        player=player,
        amount=amount,
        user=user,
        idempotency_key=idempotency_key,
        memo=memo,
    )


def rebuy(
    *,
    table: Table,
    player: Player,
    amount: int,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
) -> Posted:
    """As ``buy_in`` but booked as a REBUY (whether a rebuy is allowed is the flow's rule)."""
    return _chips_from_cage(
        kind=TransactionKind.REBUY,
        table=table,
        player=player,
        amount=amount,
        user=user,
        idempotency_key=idempotency_key,
        memo=memo,
    )


def _chips_from_cage(
    *,
    kind: TransactionKind,
    table: Table,
    player: Player,
    amount: int,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str,
) -> Posted:
    amount = positive_cents(amount, what="amount")
    with service_atomic():
        chips = player_account(table=table, player=player)
        cage = cage_account(table=table)
        return post(
            kind=kind,
            entries=[(cage, -amount), (chips, amount)],
            idempotency_key=idempotency_key,
            table=table,
            user=user,
            memo=memo,
        )


def cash_out(
    *,
    table: Table,
    player: Player,
    amount: int | None = None,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
) -> Posted:
    """The cage buys back ``amount`` cents of ``player``'s chips at ``table`` (CASH_OUT); with
    ``amount=None``, all of them (a retry of a whole cash-out returns the first one, whatever the
    balance is by then).

    Raises ``InsufficientChips`` for more than the player has, ``InvalidPosting`` for a bad amount or
    a whole cash-out of an empty stack, ``IdempotencyConflict``.
    """
    if amount is not None:
        amount = positive_cents(amount, what="amount")
    idempotency_key = validate_key(idempotency_key)
    with service_atomic():
        chips = player_account(table=table, player=player)
        cage = cage_account(table=table)
        if amount is not None:
            return post(
                kind=TransactionKind.CASH_OUT,
                entries=[(chips, -amount), (cage, amount)],
                idempotency_key=idempotency_key,
                table=table,
                user=user,
                memo=memo,
            )
        # "Everything": the request (not the amount it comes to) is what a retry must match.
        request = {"cash_out": "all", "player": player.pk}
        digest = request_digest_of(
            kind=TransactionKind.CASH_OUT,
            table_id=table.pk,
            hand_id=None,
            reverses_id=None,
            memo=memo,
            lines=None,
            request=request,
        )
        if (done := replay(idempotency_key, digest)) is not None:
            return done
        # Lock (both accounts, in the usual order) before reading the balance, so that a concurrent
        # posting can't change it under us.
        balance = lock_for_posting({chips.pk, cage.pk}, table_id=table.pk, hand_id=None)[chips.pk].balance
        if balance <= 0:
            raise InvalidPosting(f"player {player.pk} has no chips to cash out at table {table.pk}")
        return post_by_ids(
            kind=TransactionKind.CASH_OUT,
            entries=[(chips, -balance), (cage, balance)],
            idempotency_key=idempotency_key,
            table_id=table.pk,
            hand_id=None,
            user_id=user_id_of(user),
            memo=memo,
            reverses_id=None,
            request=request,
        )


def transfer_chips(
    *,
    player: Player,
    from_table: Table,
    to_table: Table,
    amount: int,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
) -> Posted:
    """Move ``amount`` cents of ``player``'s chips from one table to another (a table change), as
    one TABLE_TRANSFER on the room chain. Raises ``InsufficientChips``, ``InvalidPosting``."""
    amount = positive_cents(amount, what="amount")
    if from_table.pk == to_table.pk:
        raise InvalidPosting("a table change needs two different tables")
    with service_atomic():
        source = player_account(table=from_table, player=player)
        target = player_account(table=to_table, player=player)
        return post(
            kind=TransactionKind.TABLE_TRANSFER,
            entries=[(source, -amount), (target, amount)],
            idempotency_key=idempotency_key,
            user=user,
            memo=memo,
        )
