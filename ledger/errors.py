"""Errors raised by the ledger's services. Every one of them means nothing was written.

Each is a :class:`casino.core.errors.DomainError`: the API answers it with its ``status``
(``InvalidPosting`` 400; ``InsufficientChips``, ``IdempotencyConflict``, ``AlreadyReversed`` and
``NotReversible`` 409; a report record's refusal its own) and ``as_dict()`` (``web.common.errors``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from casino.core.errors import DomainError

if TYPE_CHECKING:
    from ledger.models import JournalTransaction


class LedgerError(DomainError):
    """Base class of the ledger's refusals. ``code`` is stable and machine-readable (for the API);
    the state of the ledger refuses it (409) unless a subclass says otherwise."""

    code = "ledger_error"
    status = 409


class InvalidPosting(LedgerError, ValueError):
    """The posting is malformed: fewer than two entries, a zero / non-integer amount, entries that
    don't sum to zero, an account of another table or hand, an unknown kind, an empty key... (400)"""

    code = "invalid_posting"
    status = 400


class InsufficientChips(LedgerError):
    """The posting would take a player's chips below zero."""

    code = "insufficient_chips"

    def __init__(
        self, *, account_id: int, player_id: int | None, table_id: int, balance: int, needed: int
    ) -> None:
        self.account_id = account_id
        self.player_id = player_id
        self.table_id = table_id
        self.balance = balance
        self.needed = needed
        super().__init__(
            f"player {player_id} has {balance} cents at table {table_id}; this posting needs {needed} cents"
        )


class IdempotencyConflict(LedgerError):
    """The idempotency key was already used for a different request."""

    code = "idempotency_conflict"

    def __init__(self, *, idempotency_key: str, existing: JournalTransaction) -> None:
        self.idempotency_key = idempotency_key
        self.existing = existing
        super().__init__(
            f"idempotency key {idempotency_key!r} was already used by transaction {existing.pk} "
            "for a different request"
        )


class NotReversible(LedgerError):
    """The transaction cannot be reversed (it is itself a reversal)."""

    code = "not_reversible"


class AlreadyReversed(LedgerError):
    """The transaction was already reversed (under another idempotency key)."""

    code = "already_reversed"

    def __init__(self, *, transaction_id: int, reversal: JournalTransaction) -> None:
        self.transaction_id = transaction_id
        self.reversal = reversal
        super().__init__(f"transaction {transaction_id} was already reversed by transaction {reversal.pk}")


# --- Report records (drop counts, sign-offs, waivers, shift closes, exports) -----------------------


class RecordError(LedgerError):
    """A report record was refused (nothing was written). ``code`` is stable; ``field`` names the
    input at fault when there is one; ``status`` is the HTTP status an API answers with."""

    code = "record_error"
    status = 400


class InvalidRecord(RecordError, ValueError):
    """The input is malformed or breaks a rule of the record (400)."""

    code = "invalid_record"
    status = 400


class RecordConflict(RecordError):
    """The request conflicts with the records as they stand (409): already counted, already signed
    off, superseded, a shift that has not ended..."""

    code = "record_conflict"
    status = 409


class RecordNotAllowed(RecordError):
    """The user may not make this record (403): e.g. signing off a count they entered."""

    code = "not_allowed"
    status = 403


class RecordNotFound(RecordError):
    """Something the request names does not exist (404): a table, hand or player, an export."""

    code = "not_found"
    status = 404
