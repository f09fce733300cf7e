"""The ledger: double-entry accounts, journal transactions and their entries.

Modelled on django-hordak: every movement of money is a ``JournalTransaction`` made of two or more
``Entry`` rows whose signed amounts sum to zero, and the database itself refuses what must never
happen (see ``docs/ledger.md`` for the full list of invariants and where each is enforced).

Sign convention: an entry's ``amount`` (integer cents) is what flows *into* its account; an
account's balance is the sum of its entries. A buy-in of 100.00 is ``player +10000, cage -10000``.
The sum of all balances is therefore always zero.

Write only through ``ledger.services``; read balances through ``ledger.selectors``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from ledger import keys as _keys  # noqa: F401  (registers the ledger keys' system checks at app loading)
from ledger.shifts import Shift, ShiftCode

GENESIS_HASH = "0" * 64
"""``prev_hash`` of the first transaction of every chain."""

ROOM_CHAIN = "room"
"""The chain of postings that belong to no single table (e.g. a player's table change)."""


def chain_for_table(table_id: int | None) -> str:
    """The hash-chain key of a table's postings; ``ROOM_CHAIN`` for postings with no table."""
    return ROOM_CHAIN if table_id is None else f"table:{table_id}"


class AccountKind(models.TextChoices):
    PLAYER_CHIPS = "player_chips", "Player chips at a table"
    HOUSE_COLLECTION = "house_collection", "House collection (table and shift)"
    CAGE = "cage", "Cage (chips sold to / bought back from a table)"
    HAND_POT = "hand_pot", "Hand pot (clearing account of one hand)"


class TransactionKind(models.TextChoices):
    BUY_IN = "buy_in", "Buy-in"
    REBUY = "rebuy", "Rebuy"
    CASH_OUT = "cash_out", "Cash-out"
    FEE = "fee", "Collection fee"
    POT_AWARD = "pot_award", "Pot put-ins and awards"
    SETTLEMENT_PAYMENT = "settlement_payment", "Settlement payments"
    TABLE_TRANSFER = "table_transfer", "Chips moved between tables"
    REVERSAL = "reversal", "Reversal"


class Account(models.Model):
    """One account: a player's chips at a table, a house collection, the cage, a hand's pot.

    Identity is (kind, table, player, hand, shift); which of those are set depends on the kind and
    is checked by the database (``ledger_account_shape``). Each identity exists at most once
    (a partial unique constraint per kind), so ``get_or_create`` is safe under races.

    ``balance`` is a cache of the sum of the account's entries, updated only by the posting service
    while it holds this row's lock; ``verify_ledger`` recomputes it.
    """

    Kind = AccountKind

    kind = models.CharField(max_length=32, choices=Kind.choices)
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="ledger_accounts")
    player = models.ForeignKey(
        "tables.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_accounts"
    )
    hand = models.ForeignKey(
        "tables.Hand", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_accounts"
    )
    shift_date = models.DateField(null=True, blank=True, help_text="Business date of a house collection.")
    shift_code = models.CharField(max_length=8, choices=ShiftCode.choices, blank=True, default="")
    balance = models.BigIntegerField(default=0, help_text="Cached sum of entries, in cents.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pk"]
        constraints = [
            # Which identity columns each kind uses; also limits `kind` to the known values.
            models.CheckConstraint(
                name="ledger_account_shape",
                condition=(
                    Q(
                        kind=AccountKind.PLAYER_CHIPS,
                        player__isnull=False,
                        hand__isnull=True,
                        shift_date__isnull=True,
                        shift_code="",
                    )
                    | (
                        Q(
                            kind=AccountKind.HOUSE_COLLECTION,
                            player__isnull=True,
                            hand__isnull=True,
                            shift_date__isnull=False,
                            shift_code__in=ShiftCode.values,
                        )
                    )
                    | Q(
                        kind=AccountKind.CAGE,
                        player__isnull=True,
                        hand__isnull=True,
                        shift_date__isnull=True,
                        shift_code="",
                    )
                    | Q(
                        kind=AccountKind.HAND_POT,
                        player__isnull=True,
                        hand__isnull=False,
                        shift_date__isnull=True,
                        shift_code="",
                    )
                ),
            ),
            # "A player's chips never go below zero."
            models.CheckConstraint(
                name="ledger_account_player_chips_not_negative",
                condition=~Q(kind=AccountKind.PLAYER_CHIPS) | Q(balance__gte=0),
            ),
            # One account per identity. Partial indexes (not one index over nullable columns)
            # because NULLs are distinct in a unique index on both SQLite and PostgreSQL.
            models.UniqueConstraint(
                fields=["table", "player"],
                condition=Q(kind=AccountKind.PLAYER_CHIPS),
                name="ledger_account_unique_player_chips",
            ),
            models.UniqueConstraint(
                fields=["table", "shift_date", "shift_code"],
                condition=Q(kind=AccountKind.HOUSE_COLLECTION),
                name="ledger_account_unique_house_collection",
            ),
            models.UniqueConstraint(
                fields=["table"], condition=Q(kind=AccountKind.CAGE), name="ledger_account_unique_cage"
            ),
            models.UniqueConstraint(
                fields=["hand"], condition=Q(kind=AccountKind.HAND_POT), name="ledger_account_unique_hand_pot"
            ),
        ]

    def __str__(self) -> str:
        match self.kind:
            case self.Kind.PLAYER_CHIPS:
                return f"chips of player {self.player_id} at table {self.table_id}"
            case self.Kind.HOUSE_COLLECTION:
                return f"house collection of table {self.table_id}, shift {self.shift}"
            case self.Kind.CAGE:
                return f"cage for table {self.table_id}"
            case self.Kind.HAND_POT:
                return f"pot of hand {self.hand_id}"
        return f"account {self.pk}"

    @property
    def shift(self) -> Shift | None:
        """The shift key of a house-collection account, else ``None``."""
        if self.shift_date is None or not self.shift_code:
            return None
        return Shift(business_date=self.shift_date, code=ShiftCode(self.shift_code))


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


class ChainHead(models.Model):
    """The last (sequence, hash) of one chain. Locked FOR UPDATE by every posting on that chain,
    which orders the chain; only that table's postings wait on it."""

    chain = models.CharField(max_length=64, unique=True)
    sequence = models.PositiveBigIntegerField(default=0)
    hash = models.CharField(max_length=64, default=GENESIS_HASH)

    class Meta:
        ordering = ["chain"]

    def __str__(self) -> str:
        return f"{self.chain} @ {self.sequence}"


# --- Reports, drop counts and the jobs behind them (docs/reports.md) -------------------------------
#
# Records below are append-only (the database refuses UPDATE and DELETE, migration 0004), except
# ReportExport, a background job's row whose status moves on but which is never deleted. Corrections
# are new records: a DropCount ``supersedes`` the one it corrects.


class AppendOnlyQuerySet[M: models.Model](models.QuerySet[M]):
    """Bulk UPDATE and DELETE are refused: the rows are records (the database refuses them too)."""

    def update(self, **kwargs: Any) -> int:
        raise TypeError(f"{self.model.__name__} rows are append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError(f"{self.model.__name__} rows are append-only")


class AppendOnlyModel(models.Model):
    """A record that is written once: ``save()`` of an existing row and ``delete()`` raise TypeError."""

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError(f"{type(self).__name__} rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError(f"{type(self).__name__} rows are append-only")


class FeeWaiver(AppendOnlyModel):
    """A collection fee due under the schedule that was not collected from ``player`` in ``hand``,
    and why. Written by ``backoffice.waivers.waive_fee``; at most one per player and hand; the
    collection report subtracts waivers from the shortfall it flags (docs/reports.md)."""

    hand = models.ForeignKey("tables.Hand", on_delete=models.PROTECT, related_name="fee_waivers")
    player = models.ForeignKey("tables.Player", on_delete=models.PROTECT, related_name="fee_waivers")
    amount_cents = models.BigIntegerField(help_text="Cents of the fee not collected.")
    reason = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.CheckConstraint(name="ledger_feewaiver_amount_positive", condition=Q(amount_cents__gt=0)),
            models.CheckConstraint(name="ledger_feewaiver_reason_set", condition=~Q(reason="")),
            models.UniqueConstraint(fields=["hand", "player"], name="ledger_feewaiver_one_per_player"),
        ]

    def __str__(self) -> str:
        return f"fee waiver of {self.amount_cents} for player {self.player_id} in hand {self.hand_id}"


class DropCount(AppendOnlyModel):
    """The drop counted for one table and shift by two counters (named, different).

    Append-only: a correction is a new record that ``supersedes`` the current one (with a
    ``correction_reason``); the *current* count of a table and shift is the one nothing supersedes.
    The first count of a table and shift is unique (``supersedes`` is NULL exactly once).
    """

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="drop_counts")
    shift_date = models.DateField()
    shift_code = models.CharField(max_length=8, choices=ShiftCode.choices)
    amount_cents = models.BigIntegerField(help_text="Cents counted in the drop box.")
    counter_one = models.CharField(max_length=100)
    counter_two = models.CharField(max_length=100)
    note = models.TextField(blank=True, default="")
    entered_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    entered_at = models.DateTimeField(default=timezone.now)
    supersedes = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="superseded_by"
    )
    correction_reason = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["pk"]
        permissions = [("sign_off_variance", "Can sign off a drop variance with an explanation")]
        constraints = [
            models.CheckConstraint(
                name="ledger_dropcount_amount_not_negative", condition=Q(amount_cents__gte=0)
            ),
            models.CheckConstraint(
                name="ledger_dropcount_two_counters",
                condition=~Q(counter_one="") & ~Q(counter_two="") & ~Q(counter_one=models.F("counter_two")),
            ),
            models.CheckConstraint(
                name="ledger_dropcount_shift_code_valid", condition=Q(shift_code__in=ShiftCode.values)
            ),
            models.CheckConstraint(
                name="ledger_dropcount_correction_has_reason",
                condition=Q(supersedes__isnull=True, correction_reason="")
                | (Q(supersedes__isnull=False) & ~Q(correction_reason="")),
            ),
            models.UniqueConstraint(
                fields=["table", "shift_date", "shift_code"],
                condition=Q(supersedes__isnull=True),
                name="ledger_dropcount_one_original",
            ),
        ]
        indexes = [models.Index(fields=["shift_date", "shift_code"], name="ledger_dropcount_shift")]

    def __str__(self) -> str:
        return f"drop count {self.pk}: table {self.table_id} {self.shift} {self.amount_cents}"

    @property
    def shift(self) -> Shift:
        return Shift(business_date=self.shift_date, code=ShiftCode(self.shift_code))


class VarianceSignOff(AppendOnlyModel):
    """A written explanation and sign-off of a drop count whose variance exceeded the threshold.

    One per drop count (a corrected count needs its own); ``signed_by`` is never the user who
    entered the count (``backoffice.drop_counts.sign_off_variance``). The figures are kept as they
    stood at the sign-off."""

    drop_count = models.OneToOneField(DropCount, on_delete=models.PROTECT, related_name="sign_off")
    explanation = models.TextField()
    recorded_cents = models.BigIntegerField(help_text="Fees the ledger recorded at the sign-off.")
    counted_cents = models.BigIntegerField()
    variance_cents = models.BigIntegerField(help_text="counted - recorded")
    threshold_bp = models.PositiveIntegerField(help_text="The threshold in force, in basis points.")
    signed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    signed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.CheckConstraint(name="ledger_signoff_explained", condition=~Q(explanation="")),
            models.CheckConstraint(
                name="ledger_signoff_variance_consistent",
                condition=Q(variance_cents=models.F("counted_cents") - models.F("recorded_cents")),
            ),
        ]

    def __str__(self) -> str:
        return f"sign-off of drop count {self.drop_count_id}"


class ShiftClose(AppendOnlyModel):
    """A closed shift: its collection report frozen as it stood at the close, with checksums.

    ``report`` is the report's JSON (``CollectionReport.as_dict()``), ``report_sha256`` the
    sha256 of its canonical data (filters and figures, not the time it was made); ``anchors`` the
    ledger's chain heads at the close, signed (``ledger.anchors``). The sealed record is the
    report's CSV export made at the close, with the signed anchor as two more tables:
    ``export_zip``, a zip of one CSV per table (the form every report downloads in), or, for a
    close made before ledger migration 0009, ``export_csv``, one CSV with a ``section`` row before
    each table (``export_zip`` is then null). ``export_sha256`` is the sha256 of the sealed file's
    bytes, whichever form it has (:meth:`sealed_export`). One per shift: closing again returns the
    first (``backoffice.closing.close_shift``)."""

    shift_date = models.DateField()
    shift_code = models.CharField(max_length=8, choices=ShiftCode.choices)
    closed_at = models.DateTimeField(default=timezone.now)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    report = models.JSONField()
    report_sha256 = models.CharField(max_length=64)
    export_csv = models.TextField(
        blank=True, help_text="The sealed CSV of a close made before the zip; else empty."
    )
    export_zip = models.BinaryField(
        null=True, blank=True, help_text="The sealed export: a zip of one CSV per table (null: export_csv)."
    )
    export_sha256 = models.CharField(max_length=64)
    software_version = models.CharField(max_length=100)
    last_transaction_id = models.BigIntegerField(
        null=True, blank=True, help_text="The ledger's last transaction when the shift was closed."
    )
    anchors = models.JSONField(
        default=dict, blank=True, help_text="Signed chain heads at the close (ledger.anchors)."
    )

    class Meta:
        ordering = ["-shift_date", "-shift_code", "-pk"]
        permissions = [("view_reports", "Can view the regulator reports and request their exports")]
        constraints = [
            models.UniqueConstraint(fields=["shift_date", "shift_code"], name="ledger_shiftclose_once"),
            models.CheckConstraint(
                name="ledger_shiftclose_shift_code_valid", condition=Q(shift_code__in=ShiftCode.values)
            ),
        ]

    def __str__(self) -> str:
        return f"close of shift {self.shift}"

    @property
    def shift(self) -> Shift:
        return Shift(business_date=self.shift_date, code=ShiftCode(self.shift_code))

    def sealed_export(self) -> tuple[bytes, str, str]:
        """The sealed record as ``(bytes, content type, file name)``: the zip of CSVs
        (``application/zip``, ``shift-close-2030-01-02_day.zip``), or a close's single CSV from
        before the zip (``text/csv``, ``....csv``). ``export_sha256`` is the sha256 of these bytes."""
        name = f"shift-close-{self.shift_date.isoformat()}_{self.shift_code}"
        if self.export_zip is not None:
            return bytes(self.export_zip), "application/zip", f"{name}.zip"
        return self.export_csv.encode(), "text/csv; charset=utf-8", f"{name}.csv"


class CheckSource(models.TextChoices):
    NIGHTLY = "nightly", "Nightly job"
    MANUAL = "manual", "Run by a user"


class IntegrityScope(models.TextChoices):
    LEDGER = "ledger", "Ledger and books"
    REPLAY = "replay", "Replay audit"


class IntegrityCheck(AppendOnlyModel):
    """One stored run of ``verify_ledger`` plus the database-guard check (the nightly job's result).

    ``ok`` is False when the ledger failed any check or a guard is missing or let an edit through;
    ``ledger.selectors.latest_integrity_failure()`` reads the latest row of each ``scope`` for the
    floor overview. ``anchors`` is the signed list of chain heads the check saw
    (``ledger.anchors``), published in its report so that a later check can compare."""

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    source = models.CharField(max_length=10, choices=CheckSource.choices, default=CheckSource.NIGHTLY)
    scope = models.CharField(max_length=10, choices=IntegrityScope.choices, default=IntegrityScope.LEDGER)
    triggered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    ok = models.BooleanField()
    transactions = models.BigIntegerField(default=0)
    entries = models.BigIntegerField(default=0)
    accounts = models.BigIntegerField(default=0)
    chains = models.BigIntegerField(default=0)
    problems = models.JSONField(default=list)
    guards = models.JSONField(default=list)
    anchors = models.JSONField(default=dict, blank=True, help_text="Signed chain heads the check saw.")
    software_version = models.CharField(max_length=100)

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [
            models.Index(fields=["-started_at"], name="ledger_integrity_started"),
            models.Index(fields=["scope", "-started_at"], name="ledger_integrity_scope"),
        ]

    def __str__(self) -> str:
        return (
            f"integrity check {self.pk} at {self.started_at:%Y-%m-%d %H:%M}: {'OK' if self.ok else 'FAILED'}"
        )


class ReportKind(models.TextChoices):
    COLLECTION = "collection", "Collection report"
    HAND_HISTORY = "hand_history", "Hand history"
    PLAYER_STATEMENT = "player_statement", "Player statement"
    JOURNAL = "journal", "Ledger journal"
    INTEGRITY = "integrity", "Integrity report"
    DROP_VARIANCE = "drop_variance", "Drop count variance"
    CONFIG_CHANGES = "config_changes", "Configuration change log"
    DEALER_DOWNS = "dealer_downs", "Dealers' downs"


class ExportFormat(models.TextChoices):
    CSV = "csv", "CSV"
    PDF = "pdf", "PDF"


class ExportStatus(models.TextChoices):
    PENDING = "pending", "Queued"
    RUNNING = "running", "Being built"
    DONE = "done", "Ready"
    FAILED = "failed", "Failed"
    EXPIRED = "expired", "Expired (file dropped)"


class ReportExport(models.Model):
    """A report export built in the background (``backoffice.tasks.build_export``): what was asked
    (``kind``, ``format``, ``params`` = the report's filters), by whom, and once ``done`` the file
    itself (``content``) with its sha256. Never deleted (the database refuses it): after
    ``settings.EXPORT_RETENTION_DAYS`` the file is dropped (``content`` null, ``expired``) and the
    row, with the file's sha256 and size, stays (``backoffice.exports.purge_expired_exports``)."""

    kind = models.CharField(max_length=20, choices=ReportKind.choices)
    format = models.CharField(max_length=4, choices=ExportFormat.choices)
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=ExportStatus.choices, default=ExportStatus.PENDING)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    requested_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    filename = models.CharField(max_length=200, blank=True, default="")
    content = models.BinaryField(null=True, blank=True)
    sha256 = models.CharField(max_length=64, blank=True, default="")
    size = models.BigIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    software_version = models.CharField(max_length=100, blank=True, default="")

    class Meta:
        ordering = ["-requested_at", "-pk"]
        constraints = [
            models.CheckConstraint(name="ledger_export_kind_valid", condition=Q(kind__in=ReportKind.values)),
            models.CheckConstraint(
                name="ledger_export_format_valid", condition=Q(format__in=ExportFormat.values)
            ),
            models.CheckConstraint(
                name="ledger_export_done_has_file",
                condition=~Q(status=ExportStatus.DONE) | (Q(content__isnull=False) & ~Q(sha256="")),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.format}) export {self.pk}: {self.status}"

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("report exports are kept; they are never deleted")


class AuthChangeAction(models.TextChoices):
    USER_CREATED = "user_created", "User created"
    USER_CHANGED = "user_changed", "User changed"
    GROUPS_ADDED = "groups_added", "Added to groups"
    GROUPS_REMOVED = "groups_removed", "Removed from groups"
    PERMISSIONS_ADDED = "permissions_added", "Permissions granted"
    PERMISSIONS_REMOVED = "permissions_removed", "Permissions withdrawn"
    GROUP_CREATED = "group_created", "Group created"


class AuthChange(AppendOnlyModel):
    """A change to users, groups or permissions, recorded by signals (``ledger.signals``) from
    wherever it was made (admin, shell, role sync). Who made it is not known to a signal; the
    configuration change log adds the admin's own log entries, which name the user."""

    at = models.DateTimeField(default=timezone.now, db_index=True)
    action = models.CharField(max_length=30, choices=AuthChangeAction.choices)
    subject_type = models.CharField(max_length=10, help_text="user or group")
    subject_id = models.BigIntegerField()
    subject_repr = models.CharField(max_length=200)
    detail = models.JSONField(default=dict)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.subject_repr}"


# --- The access log: every way in, on record (docs/security.md) ------------------------------------------


class AccessEventKind(models.TextChoices):
    LOGIN = "login", "Logged in"
    LOGIN_FAILED = "login_failed", "Login failed"
    LOCKED_OUT = "locked_out", "Locked out"
    LOGOUT = "logout", "Logged out"
    SESSION_EXPIRED = "session_expired", "Session ended after inactivity"
    PASSWORD_CHANGED = "password_changed", "Password set or changed"


class AccessEvent(AppendOnlyModel):
    """A login, a failed login, a lock-out, a logout, an idle session ended or a password set, with the
    client's address (``casino.core.client_address``: behind the trusted proxy, the client's own) and
    browser. Recorded by signals (``ledger.access_log``); append-only (migration 0010's triggers refuse
    UPDATE and DELETE, the app's database role may only INSERT and SELECT). Who it concerns is kept as
    ``username`` and ``user_id``, not a foreign key: the record outlives the user, and a failed login may
    name no user at all. Group and permission changes are ``AuthChange`` records; the access log page
    shows both."""

    at = models.DateTimeField(default=timezone.now, db_index=True)
    kind = models.CharField(max_length=20, choices=AccessEventKind.choices)
    username = models.CharField(max_length=150, blank=True, help_text="as typed, for a failed login")
    user_id = models.BigIntegerField(null=True, blank=True, help_text="the user's id, when there is one")
    address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=255, blank=True)
    path = models.CharField(max_length=255, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["username", "at"], name="ledger_access_user_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.kind} {self.username or '-'} from {self.address or '-'}"


# --- Verification checkpoints: how far each nightly check has verified (docs/retention.md) ---------------


class CheckpointKind(models.TextChoices):
    LEDGER = "ledger", "Journal rows (hash chains, double entry)"
    HANDS = "hands", "Hands against their postings and fees"
    REPLAY = "replay", "Replay audit of settled hands"


class CheckpointPart(models.TextChoices):
    SINCE = "since", "Rows since the last checkpoint"
    ROTATION = "rotation", "A seventh of history (rotating)"
    FULL = "full", "All rows"


class VerificationCheckpoint(AppendOnlyModel):
    """One verified id range of one kind of row: rows ``first_id..last_id`` were checked at ``at``
    and found ``ok`` (``problems`` counts what was not). For the journal, ``heads`` holds each
    chain's last ``[sequence, hash]`` within the rows verified so far, so the next incremental check
    starts from a verified hash (a row's hash covers the previous one). The nightly job verifies the
    rows after the last ``since`` or ``full`` checkpoint plus a rotating seventh of the older rows
    (``backoffice.reports.integrity.run_nightly_checks``). Append-only (migration 0011's triggers)."""

    kind = models.CharField(max_length=10, choices=CheckpointKind.choices)
    part = models.CharField(max_length=10, choices=CheckpointPart.choices)
    first_id = models.BigIntegerField(help_text="first row id of the range verified")
    last_id = models.BigIntegerField(help_text="last row id of the range verified")
    rows = models.BigIntegerField(default=0, help_text="rows found in the range")
    heads = models.JSONField(default=dict, blank=True, help_text="chain -> [sequence, hash] at the end")
    at = models.DateTimeField(default=timezone.now)
    seconds = models.FloatField(default=0.0)
    ok = models.BooleanField()
    problems = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["kind", "part", "-at"], name="ledger_checkpoint_kind")]

    def __str__(self) -> str:
        return f"{self.kind} {self.part} {self.first_id}..{self.last_id} at {self.at:%Y-%m-%d %H:%M}"
