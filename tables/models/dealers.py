"""Dealers' downs: who is clocked in at which table, from when until when."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tables.models.tables import Table


class DealerShift(models.Model):
    """A dealer's down at a table: from clock-in to clock-out.

    Only the dealer clocked in at a table (or a floor manager) runs its hands
    (:func:`tables.services.check_runs_hands`); each hand records its dealer and down. At most one
    open down per table and one per dealer (the database refuses a second). Clocking in elsewhere,
    or a floor manager reassigning the table, ends the open down (:func:`tables.services.clock_in`).
    """

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="dealer_shifts")
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    clocked_in_at = models.DateTimeField(default=timezone.now)
    clocked_in_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    clocked_out_at = models.DateTimeField(null=True, blank=True)
    clocked_out_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ("-clocked_in_at", "-pk")
        constraints = (
            models.UniqueConstraint(
                fields=("table",),
                condition=Q(clocked_out_at__isnull=True),
                name="dealershift_one_open_per_table",
                violation_error_message="A dealer is already clocked in at this table.",
            ),
            models.UniqueConstraint(
                fields=("dealer",),
                condition=Q(clocked_out_at__isnull=True),
                name="dealershift_one_open_per_dealer",
                violation_error_message="This dealer is already clocked in at a table.",
            ),
            models.CheckConstraint(
                condition=Q(clocked_out_at__isnull=True) | Q(clocked_out_at__gte=models.F("clocked_in_at")),
                name="dealershift_out_after_in",
            ),
        )

    def __str__(self) -> str:
        return f"{self.dealer} at table {self.table.number} from {self.clocked_in_at:%Y-%m-%d %H:%M}"

    @property
    def is_open(self) -> bool:
        return self.clocked_out_at is None
