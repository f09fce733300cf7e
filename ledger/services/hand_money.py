"""A hand's money: the fees collected before the deal, and the settlement (a draw game's payments
or a pot game's pot), each one transaction of the hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from casino.core.db import service_atomic
from ledger.errors import InvalidPosting
from ledger.models import TransactionKind
from ledger.services.accounts import house_account, player_accounts, pot_account
from ledger.services.posting import Posted, post, post_bound
from ledger.services.validation import EntryLine, not_negative_cents, validate_input_digest
from ledger.shifts import Shift

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from tables.models import Hand, Player, Table


def collect_fees(
    *,
    table: Table,
    shift: Shift,
    fees: Sequence[tuple[Player, int]],
    hand: Hand | None = None,
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
) -> Posted | None:
    """Collect several players' fees (e.g. a hand's collection before the deal, key
    ``hand:<id>:fees``) as ONE FEE transaction: each player's chips are debited in the order given,
    and the house account of ``table`` for ``shift`` is credited with the total.

    Zero fees are skipped; when every fee is zero nothing is posted and ``None`` is returned.
    ``shift`` is explicit (not "now") so that a retry after a shift change is the same request.
    Raises ``InsufficientChips`` (nothing collected from anyone), ``InvalidPosting``,
    ``IdempotencyConflict``.
    """
    charged = [(player, not_negative_cents(amount, what="fee")) for player, amount in fees]
    charged = [(player, amount) for player, amount in charged if amount]
    if not charged:
        return None
    with service_atomic():
        house = house_account(table=table, shift=shift)
        accounts = player_accounts(table=table, players=[p for p, _ in charged])
        entries: list[EntryLine] = [(accounts[p.pk], -amount) for p, amount in charged]
        entries.append((house, sum(amount for _, amount in charged)))
        return post(
            kind=TransactionKind.FEE,
            entries=entries,
            idempotency_key=idempotency_key,
            table=table,
            hand=hand,
            user=user,
            memo=memo,
        )


def post_payments(
    *,
    table: Table,
    hand: Hand,
    payments: Sequence[tuple[Player, Player, int]],
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
    input_digest: str = "",
) -> Posted | None:
    """Post a settlement's payments ``(from_player, to_player, amount)`` in the order given, as ONE
    SETTLEMENT_PAYMENT transaction of ``hand`` (key ``hand:<id>:settle``): all or none.
    ``input_digest``: the sha256 of the showdown input the payments were read from
    (``HandResult.digest``); it is part of the request digest, so the chained row covers it.

    Each payment is two entries (payer -amount, payee +amount) and is made from the chips the payer
    has at that point of the order. Zero payments (capped away) are skipped; when nothing moves,
    nothing is posted and ``None`` is returned. Raises ``InsufficientChips`` (the caps were not
    applied), ``InvalidPosting`` (negative amount, a player paying themself), ``IdempotencyConflict``.
    """
    input_digest = validate_input_digest(input_digest)
    moved: list[tuple[Player, Player, int]] = []
    for number, (payer, payee, amount) in enumerate(payments, start=1):
        cents = not_negative_cents(amount, what=f"payment {number}")
        if payer.pk == payee.pk:
            raise InvalidPosting(f"payment {number}: player {payer.pk} cannot pay themself")
        if cents:
            moved.append((payer, payee, cents))
    if not moved:
        return None
    with service_atomic():
        accounts = player_accounts(
            table=table, players=[p for payer, payee, _ in moved for p in (payer, payee)]
        )
        entries: list[EntryLine] = []
        for payer, payee, cents in moved:
            entries += [(accounts[payer.pk], -cents), (accounts[payee.pk], cents)]
        return post_bound(
            kind=TransactionKind.SETTLEMENT_PAYMENT,
            entries=entries,
            idempotency_key=idempotency_key,
            table=table,
            hand=hand,
            user=user,
            memo=memo,
            input_digest=input_digest,
        )


def award_pot(
    *,
    table: Table,
    hand: Hand,
    put_ins: Sequence[tuple[Player, int]],
    awards: Sequence[tuple[Player, int]],
    user: AbstractBaseUser | None,
    idempotency_key: str,
    memo: str = "",
    input_digest: str = "",
) -> Posted | None:
    """Settle a pot game's hand as ONE POT_AWARD transaction: every put-in moves from the player's
    chips into the hand's pot, then every award (including uncalled chips going back) moves from the
    pot to the player, in the order given. The pot must end at zero: ``sum(put_ins) == sum(awards)``.
    ``input_digest`` as for :func:`post_payments`.

    Zero lines are skipped; when nothing moves, ``None`` is returned. Raises ``InvalidPosting``
    (the pot doesn't clear, negative amounts), ``InsufficientChips``, ``IdempotencyConflict``.
    """
    input_digest = validate_input_digest(input_digest)
    ins = [(p, not_negative_cents(a, what="put-in")) for p, a in put_ins]
    outs = [(p, not_negative_cents(a, what="award")) for p, a in awards]
    ins = [(p, a) for p, a in ins if a]
    outs = [(p, a) for p, a in outs if a]
    total_in, total_out = sum(a for _, a in ins), sum(a for _, a in outs)
    if total_in != total_out:
        raise InvalidPosting(
            f"put-ins total {total_in} but awards total {total_out}; the pot must end at zero"
        )
    if not ins:
        return None
    with service_atomic():
        pot = pot_account(hand=hand)
        accounts = player_accounts(table=table, players=[p for p, _ in ins + outs])
        entries: list[EntryLine] = []
        for player, amount in ins:
            entries += [(accounts[player.pk], -amount), (pot, amount)]
        for player, amount in outs:
            entries += [(pot, -amount), (accounts[player.pk], amount)]
        return post_bound(
            kind=TransactionKind.POT_AWARD,
            entries=entries,
            idempotency_key=idempotency_key,
            table=table,
            hand=hand,
            user=user,
            memo=memo,
            input_digest=input_digest,
        )
