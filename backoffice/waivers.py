"""Fee waivers: a fee due under the schedule that was not collected must carry a reason.

``waive_fee`` records one (append-only ``FeeWaiver``); the collection report subtracts waivers from
the shortfall it flags, and lists every waiver with its reason (docs/reports.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import Sum

from ledger.errors import InvalidRecord, RecordConflict, RecordNotAllowed
from ledger.models import AccountKind, Entry, FeeWaiver, TransactionKind
from tables.models import Hand, HandPlayer
from tables.selectors import rate_for_hand

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

    from tables.models import Player


def fee_outstanding(*, hand: Hand, player: Player) -> int:
    """What ``player`` owed for ``hand`` under the rate in force at its start, less the fees the
    ledger collected from them for it and waivers already recorded. A fee returned on a misdeal is
    not outstanding (the misdeal explains it), so returns are not subtracted."""
    hand_player = HandPlayer.objects.filter(hand=hand, player=player).first()
    if hand_player is None:
        return 0
    rate = rate_for_hand(hand)
    if rate is None:
        return 0
    dealt = hand.players.count()
    due = rate.fees_by_position(dealt)
    owed = due[hand_player.position - 1] if hand_player.position <= len(due) else 0
    paid = -int(
        Entry.objects.filter(
            transaction__hand=hand,
            transaction__kind=TransactionKind.FEE,
            account__kind=AccountKind.PLAYER_CHIPS,
            account__player=player,
        ).aggregate(total=Sum("amount"))["total"]
        or 0
    )
    waived = int(
        FeeWaiver.objects.filter(hand=hand, player=player).aggregate(t=Sum("amount_cents"))["t"] or 0
    )
    return max(owed - paid - waived, 0)


@transaction.atomic
def waive_fee(
    *, hand: Hand, player: Player, amount_cents: int, reason: str, by: User | AnonymousUser | None
) -> FeeWaiver:
    """Record that ``amount_cents`` of ``player``'s fee for ``hand`` was not collected, and why.

    The player must have been dealt in, the amount positive and at most what is outstanding
    (``fee_outstanding``). Raises ``InvalidRecord`` (``not_dealt_in``, ``invalid_amount``,
    ``reason_required``, ``more_than_outstanding``), ``RecordConflict`` (``already_waived``: one
    waiver per player and hand), ``RecordNotAllowed`` (no user)."""
    if by is None or not by.is_authenticated:
        raise RecordNotAllowed("a waiver needs a signed-in user", code="user_required")
    if isinstance(amount_cents, bool) or not isinstance(amount_cents, int) or amount_cents <= 0:
        raise InvalidRecord(
            f"the amount must be a positive number of cents, not {amount_cents!r}",
            code="invalid_amount",
            field="amount_cents",
        )
    reason = str(reason or "").strip()
    if not reason:
        raise InvalidRecord("a fee not collected needs a reason", code="reason_required", field="reason")
    hand = Hand.objects.select_for_update().get(pk=hand.pk)
    if not HandPlayer.objects.filter(hand=hand, player=player).exists():
        raise InvalidRecord(
            f"{player} was not dealt into hand {hand.number} at table {hand.table.number}",
            code="not_dealt_in",
            field="player",
        )
    if FeeWaiver.objects.filter(hand=hand, player=player).exists():
        raise RecordConflict(f"{player}'s fee for this hand was already waived", code="already_waived")
    outstanding = fee_outstanding(hand=hand, player=player)
    if amount_cents > outstanding:
        raise InvalidRecord(
            f"only {outstanding} cents of {player}'s fee are outstanding",
            code="more_than_outstanding",
            field="amount_cents",
        )
    try:
        with transaction.atomic():
            return FeeWaiver.objects.create(
                hand=hand, player=player, amount_cents=amount_cents, reason=reason, created_by=by
            )
    except IntegrityError:
        raise RecordConflict(
            f"{player}'s fee for this hand was already waived", code="already_waived"
        ) from None
