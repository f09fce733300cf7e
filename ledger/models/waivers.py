"""Fee waivers: a collection fee due under the schedule and not collected, with why."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from ledger.models.base import AppendOnlyModel


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
