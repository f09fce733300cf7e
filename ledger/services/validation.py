"""The checks a posting passes before it touches the database: amounts in integer cents within
bounds, the idempotency key, the entries' shape (at least two, non-zero, summing to zero, over two
accounts or more), the user, and the request digest a retry is matched by.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ledger.errors import InvalidPosting
from ledger.hashing import posting_digest
from ledger.models import Account

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser


MAX_AMOUNT = 10**15
"""Largest amount of one entry, in cents (10 trillion dollars): far below BIGINT's range, so no sum
of a posting's entries can overflow the database."""

MAX_ENTRIES = 1000
"""Most entries in one posting (a ten-handed settlement needs well under 100)."""

MAX_KEY_LENGTH = 200

EntryLine = tuple[Account, int]
"""One leg of a posting: (account, signed cents into the account)."""


def _cents(value: object, *, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidPosting(
            f"{what} must be an integer number of cents, not {type(value).__name__} {value!r}"
        )
    if abs(value) > MAX_AMOUNT:
        raise InvalidPosting(f"{what} {value} is beyond the largest amount the ledger accepts ({MAX_AMOUNT})")
    return int(value)


def positive_cents(value: object, *, what: str) -> int:
    """``value`` as whole cents above zero, or ``InvalidPosting`` naming ``what``."""
    amount = _cents(value, what=what)
    if amount <= 0:
        raise InvalidPosting(f"{what} must be positive, not {amount}")
    return amount


def not_negative_cents(value: object, *, what: str) -> int:
    """``value`` as whole cents, zero or more, or ``InvalidPosting`` naming ``what``."""
    amount = _cents(value, what=what)
    if amount < 0:
        raise InvalidPosting(f"{what} must not be negative, not {amount}")
    return amount


def validate_key(idempotency_key: object) -> str:
    """The idempotency key, a non-empty string of at most ``MAX_KEY_LENGTH`` characters, or
    ``InvalidPosting``."""
    if not isinstance(idempotency_key, str) or not idempotency_key.strip():
        raise InvalidPosting("an idempotency key (a non-empty string) is required")
    if len(idempotency_key) > MAX_KEY_LENGTH:
        raise InvalidPosting(f"idempotency key is longer than {MAX_KEY_LENGTH} characters")
    return idempotency_key


def validate_lines(entries: Sequence[EntryLine]) -> list[tuple[int, int]]:
    """Shape checks that need no database: returns ``[(account_id, amount), ...]`` in order."""
    if isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence):
        raise InvalidPosting("entries must be a sequence of (account, amount) pairs")
    if len(entries) < 2:
        raise InvalidPosting(f"a posting needs at least two entries, not {len(entries)}")
    if len(entries) > MAX_ENTRIES:
        raise InvalidPosting(f"a posting has at most {MAX_ENTRIES} entries, not {len(entries)}")
    lines: list[tuple[int, int]] = []
    for number, item in enumerate(entries, start=1):
        try:
            account, amount = item
        except (TypeError, ValueError):
            raise InvalidPosting(f"entry {number} is not an (account, amount) pair") from None
        if not isinstance(account, Account) or account.pk is None:
            raise InvalidPosting(f"entry {number}: {account!r} is not a saved ledger account")
        value = _cents(amount, what=f"entry {number} amount")
        if value == 0:
            raise InvalidPosting(f"entry {number} has a zero amount")
        lines.append((account.pk, value))
    total = sum(amount for _, amount in lines)
    if total != 0:
        raise InvalidPosting(f"entries sum to {total}, not zero")
    if len({account_id for account_id, _ in lines}) < 2:
        raise InvalidPosting("a posting must move money between at least two accounts")
    return lines


def user_id_of(user: AbstractBaseUser | None) -> int | None:
    """The posting user's id (None for a system posting); ``InvalidPosting`` for an unsaved user."""
    if user is None:
        return None
    if getattr(user, "pk", None) is None:
        raise InvalidPosting("user must be a saved user (or None for a system posting)")
    return int(user.pk)


def request_digest_of(
    *,
    kind: str,
    table_id: int | None,
    hand_id: int | None,
    reverses_id: int | None,
    memo: str,
    lines: Sequence[tuple[int, int]] | None,
    request: Mapping[str, Any] | None,
    input_digest: str = "",
) -> str:
    """The request digest (``ledger.hashing.posting_digest``, which the audit recomputes)."""
    return posting_digest(
        kind=kind,
        table_id=table_id,
        hand_id=hand_id,
        reverses_id=reverses_id,
        memo=memo,
        lines=lines,
        request=request,
        input_digest=input_digest,
    )


_HEX64 = frozenset("0123456789abcdef")


def validate_input_digest(input_digest: object) -> str:
    if not isinstance(input_digest, str) or (
        input_digest and (len(input_digest) != 64 or not _HEX64.issuperset(input_digest))
    ):
        raise InvalidPosting("input_digest must be empty or a sha256 in lowercase hex")
    return input_digest
