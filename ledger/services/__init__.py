"""The ledger's write side: every posting goes through here (HackSoft-style services).

Contract shared by every service below:

* Keyword-only arguments; amounts are ``int`` cents (``bool``, ``float``, ``Decimal`` refused).
* One ``transaction.atomic()`` each: a service either posts everything or nothing. Any ``LedgerError``
  (see ``ledger.errors``) means nothing was written. Called inside a caller's ``atomic()`` it joins
  that transaction (as a savepoint), so a flow can post fees and update its own rows at once.
* What a posting returns: :class:`Posted`, the journal transaction and whether it was ``replayed``
  (``None`` where a service says nothing moved, nothing was posted).
* Exactly once: a call with an ``idempotency_key`` already used for the same request returns the
  first transaction (``Posted(transaction, replayed=True)``) and posts nothing; the same key with a
  different request raises ``IdempotencyConflict``. This holds under concurrency.
* Money integrity only: table rules (buy-in ranges, who may rebuy, when) belong to the callers.
* One lock order, the same in every posting (deadlock-free by construction): ``locks``.

Callers use the names below, as ``ledger.services.<name>`` (never one of its modules from
outside). The modules: docs/layers.md.
"""

from __future__ import annotations

from ledger.services.accounts import (
    cage_account,
    house_account,
    player_account,
    pot_account,
)
from ledger.services.chips import buy_in, cash_out, rebuy, transfer_chips
from ledger.services.hand_money import award_pot, collect_fees, post_payments
from ledger.services.posting import Posted, post
from ledger.services.reversal import reverse
from ledger.services.validation import MAX_AMOUNT, MAX_ENTRIES, EntryLine
from ledger.verification import LedgerReport, verify_ledger

__all__ = [
    "MAX_AMOUNT",
    "MAX_ENTRIES",
    "EntryLine",
    "LedgerReport",
    "Posted",
    "award_pot",
    "buy_in",
    "cage_account",
    "cash_out",
    "collect_fees",
    "house_account",
    "player_account",
    "post",
    "post_payments",
    "pot_account",
    "rebuy",
    "reverse",
    "transfer_chips",
    "verify_ledger",
]
