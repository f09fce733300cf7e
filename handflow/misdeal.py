"""The misdeal: the hand is void (004 rule 7, RULINGS §6), and its collection fees go back to the
players (``hand:<id>:fees:return``) unless the table keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass

from casino.core.db import service
from handflow import locks
from handflow.keys import fees_key, fees_return_key
from ledger import services as ledger
from ledger.models import JournalTransaction
from tables import services as floor
from tables.choices import HandStatus
from tables.errors import HandAlreadySettled
from tables.models import Hand, HandResult, ReadingStatus
from tables.services import User


@dataclass(frozen=True, slots=True)
class Voided:
    """A void hand (its table loaded), and ``replayed`` when it was void already (nothing done)."""

    hand: Hand
    replayed: bool = False


@service
def misdeal(*, hand: Hand, reason_code: str, reason: str = "", by: User) -> Voided:
    """Void the hand (004 rule 7, RULINGS §6): nothing is settled, and its collection fees go back
    to the players by a reversing ledger entry (key ``hand:<id>:fees:return``) unless the table
    keeps them (``Table.keep_fees_on_misdeal``). The button goes back (the floor's void_hand).

    ``reason_code`` is one of :class:`tables.choices.MisdealReason` (004's misdeals; ``other``
    needs ``reason``, the dealer's words, which any code may carry). Safe to retry: a void hand is
    returned as it is (``replayed``), nothing posted again. Raises NotYourTable,
    FloorValidationError (no or an unknown code, a code that isn't a misdeal of the hand's game:
    :func:`tables.games.misdeal_reasons_for`, docs/misdeals.md), HandAlreadySettled.

    The reason is checked first, against the hand's game (the one it was dealt as: at dealer's
    choice the game picked, which never changes, so it needs no lock): a reason the game doesn't
    have is refused before any row is locked or the ledger is read, so it writes nothing and holds
    up no other flow at the table. Only a hand the caller already holds as over (settled: refused
    as such whatever the reason; void: a retry, replayed) goes to the lock first.
    """
    game = hand.game
    checked = (
        floor.check_misdeal_reason(reason_code, reason, game=game)
        if hand.status in HandStatus.in_progress()
        else None
    )
    table, hand = locks.lock_hand(hand)
    if hand.game_id == game.pk:
        hand.game = game  # the floor's void checks it again: not read twice
    floor.check_runs_hands(table, by)
    if hand.status == HandStatus.VOID:
        return Voided(hand, replayed=True)
    if hand.status == HandStatus.SETTLED:
        raise HandAlreadySettled(f"Hand {hand.number} at table {table.number} is settled; it can't be void.")
    # Checked above unless the caller held the hand as over, and an over hand stays over (void or
    # settled, answered above): the second check is never reached in practice.
    code, text = checked or floor.check_misdeal_reason(reason_code, reason, game=game)
    collected = JournalTransaction.objects.filter(idempotency_key=fees_key(hand)).first()
    if collected is not None and not table.keep_fees_on_misdeal:
        ledger.reverse(
            transaction=collected,
            user=floor.acting_user(by),
            reason=f"Misdeal, table {table.number} hand {hand.number}: {text}",
            idempotency_key=fees_return_key(hand),
        )
    voided = floor.void_hand(hand=hand, reason_code=code, reason=text, by=by)
    HandResult.objects.filter(hand=hand).exclude(status=ReadingStatus.VOID).update(status=ReadingStatus.VOID)
    return Voided(voided)
