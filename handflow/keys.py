"""The idempotency keys and digests of the hand's money.

The ledger's idempotency keys name the one posting each may make, so a retry or a second terminal
can never post it twice: ``hand:<id>:fees`` (the collection, :func:`handflow.deal.start_hand`),
``hand:<id>:fees:return`` (its return on a misdeal), ``hand:<id>:settle`` (the settlement) and
``seating:<id>:table-change`` (the chips a table change carries). Buy-ins, rebuys and cash-outs
post under the caller's key (the API sends ``req:<Idempotency-Key>``). A showdown entry is known by
the digest of its canonical JSON (:func:`digest_of`), the one the replay audit checks it with.
"""

from __future__ import annotations

import json
from typing import Any

from ledger.hashing import json_digest
from tables.models import Hand, Seating


def fees_key(hand: Hand) -> str:
    """The ledger idempotency key of a hand's collection."""
    return f"hand:{hand.pk}:fees"


def fees_return_key(hand: Hand) -> str:
    """The ledger idempotency key of returning a hand's collection on a misdeal."""
    return f"hand:{hand.pk}:fees:return"


def settle_key(hand: Hand) -> str:
    """The ledger idempotency key of a hand's settlement."""
    return f"hand:{hand.pk}:settle"


def canonical(value: Any) -> str:
    """The canonical JSON of ``value``: sorted keys, no whitespace, text as it is (the form a
    showdown entry is stored in)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest_of(value: Any) -> str:
    """sha256 of the canonical JSON of ``value`` (sorted keys, no whitespace)."""
    return json_digest(value)  # the same function the books check it with (backoffice.books)


def table_change_key(seating: Seating) -> str:
    """The ledger's key for the chips carried when ``seating`` ends in a table change: a seating
    ends once, so a retry of the same change can never post twice."""
    return f"seating:{seating.pk}:table-change"
