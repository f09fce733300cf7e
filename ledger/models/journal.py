"""The journal: transactions of two or more entries summing to zero, append-only, hash-chained.

Modelled on django-hordak: every movement of money is a ``JournalTransaction`` made of two or more
``Entry`` rows whose signed amounts sum to zero, and the database itself refuses what must never
happen (see ``docs/ledger.md`` for the full list of invariants and where each is enforced).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from django.conf import settings
from django.db import models
from django.db.models import Q

from ledger.models.accounts import Account
from poker.postings import PostingsKind


class TransactionKind(models.TextChoices):
    BUY_IN = "buy_in", "Buy-in"
    REBUY = "rebuy", "Rebuy"
    CASH_OUT = "cash_out", "Cash-out"
    FEE = "fee", "Collection fee"
    POT_AWARD = "pot_award", "Pot put-ins and awards"
    SETTLEMENT_PAYMENT = "settlement_payment", "Settlement payments"
    TABLE_TRANSFER = "table_transfer", "Chips moved between tables"
    REVERSAL = "reversal", "Reversal"


SETTLEMENT_KINDS: Final[Mapping[PostingsKind, TransactionKind]] = MappingProxyType(
    {PostingsKind.POT: TransactionKind.POT_AWARD, PostingsKind.PAYMENTS: TransactionKind.SETTLEMENT_PAYMENT}
)
"""The kind of the transaction that settles each kind of a reading's postings
(:class:`poker.postings.Postings`): a pot game's put-ins and awards are one ``pot_award``
(``ledger.services.award_pot``), Chinese and Taiwanese poker's payments one ``settlement_payment``
(``post_payments``). The audits compare a hand's settlement against it."""


class JournalTransaction(models.Model):
    """One posting: two or more entries summing to zero. Append-only (the database refuses
    UPDATE and DELETE); a mistake is undone by a REVERSAL that ``reverses`` it.

    ``chain``/``sequence``/``prev_hash``/``hash`` form a hash chain per table (``ROOM_CHAIN`` for
    postings without a table): ``hash`` is the HMAC-SHA256, under the secret key ``key_id`` (kept
    outside the database, ``ledger.keys``), of the canonical content, which includes ``prev_hash``,
    ``key_id`` and every entry, so altering any row breaks the chain and recomputing the chain needs
    the key (``verify_ledger``). Rows posted before keys existed have an empty ``key_id`` and a plain
    sha256 (content format 1).

    ``idempotency_key`` makes a posting exactly-once; ``request_digest`` is the sha256 of the
    canonical request, used to tell a retry (same content) from a conflict (different content).
    """

    Kind = TransactionKind

    kind = models.CharField(max_length=32, choices=Kind.choices)
    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, null=True, blank=True, related_name="journal_transactions"
    )
    hand = models.ForeignKey(
        "tables.Hand", on_delete=models.PROTECT, null=True, blank=True, related_name="journal_transactions"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="journal_transactions",
        help_text="Who posted it; empty for postings made by the system.",
    )
    created_at = models.DateTimeField()
    memo = models.TextField(blank=True, default="")
    idempotency_key = models.CharField(max_length=200, unique=True)
    request_digest = models.CharField(max_length=64)
    reverses = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="reversed_by"
    )
    chain = models.CharField(max_length=64)
    sequence = models.PositiveBigIntegerField()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)
    key_id = models.CharField(
        max_length=32,
        blank=True,
        default="",
        help_text="Id of the secret key the hash is an HMAC with (empty: a plain sha256 row of format 1).",
    )

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["chain", "sequence"], name="ledger_txn_unique_chain_sequence"),
            models.CheckConstraint(name="ledger_txn_sequence_positive", condition=Q(sequence__gte=1)),
            models.CheckConstraint(name="ledger_txn_idempotency_key_set", condition=~Q(idempotency_key="")),
            models.CheckConstraint(
                name="ledger_txn_kind_valid", condition=Q(kind__in=TransactionKind.values)
            ),
            # A reversal points at what it reverses, and nothing else does.
            models.CheckConstraint(
                name="ledger_txn_reversal_link",
                condition=Q(kind=TransactionKind.REVERSAL, reverses__isnull=False)
                | (~Q(kind=TransactionKind.REVERSAL) & Q(reverses__isnull=True)),
            ),
        ]
        indexes = [
            models.Index(fields=["table", "created_at"], name="ledger_txn_table_created"),
            # The journal report over all tables for a period (migration 0005).
            models.Index(fields=["created_at"], name="ledger_txn_created"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.idempotency_key})"


class Entry(models.Model):
    """One leg of a transaction: ``amount`` cents into ``account`` (negative: out of it).

    ``line`` keeps the order the entries were posted in (the hash covers them in that order).
    """

    transaction = models.ForeignKey(JournalTransaction, on_delete=models.PROTECT, related_name="entries")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    line = models.PositiveSmallIntegerField()
    amount = models.BigIntegerField()

    class Meta:
        ordering = ["transaction_id", "line"]
        verbose_name_plural = "entries"
        constraints = [
            models.CheckConstraint(name="ledger_entry_amount_not_zero", condition=~Q(amount=0)),
            models.UniqueConstraint(fields=["transaction", "line"], name="ledger_entry_unique_line"),
        ]

    def __str__(self) -> str:
        return f"{self.amount:+d} to account {self.account_id} (txn {self.transaction_id} line {self.line})"
