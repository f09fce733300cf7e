"""Drop counts: the cash two counters found in a table's drop box for a shift, corrections that
supersede them, and the signed-off explanation of a variance over the threshold."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from ledger.models.base import AppendOnlyModel
from ledger.shifts import Shift, ShiftCode


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
