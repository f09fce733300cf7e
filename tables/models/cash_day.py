"""Cash per gaming day: the room's thresholds, and the identification recorded for a player.

Card clubs keep a log of each cash transaction over a threshold ($3,000 by default) and report a
player whose cash in, or out, passes $10,000 in one gaming day (the currency transaction report),
for which the player's identification is recorded. The amounts are the floor's chip movements
(:class:`tables.models.ChipMovement`: buy-ins and rebuys in, cash-outs out); the rules are
:mod:`tables.services.cash_day`, the day's report :mod:`backoffice.reports.cash_day`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tables.models.players import Player

#: The defaults of a room that never changed its settings.
DEFAULT_GAMING_DAY_START_HOUR = 6
DEFAULT_LOG_THRESHOLD_CENTS = 300_000
DEFAULT_REPORT_THRESHOLD_CENTS = 1_000_000


class CashDaySettings(models.Model):
    """The room's single row of cash-per-gaming-day settings (``pk`` 1; absent: the defaults).

    * ``gaming_day_start_hour``: the gaming day runs from this hour of the room's clock
      (``settings.TIME_ZONE``) to the same hour the next day;
    * ``log_threshold_cents``: each transaction over this is in the day's log;
    * ``report_threshold_cents``: a transaction that takes the player's day's total in (or out)
      over this is warned of first and needs the player's identification recorded.
    """

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    gaming_day_start_hour = models.PositiveSmallIntegerField(
        default=DEFAULT_GAMING_DAY_START_HOUR,
        validators=[MinValueValidator(0), MaxValueValidator(23)],
        help_text="The hour (0-23, room's clock) a gaming day starts.",
    )
    log_threshold_cents = models.BigIntegerField(
        default=DEFAULT_LOG_THRESHOLD_CENTS, help_text="Each transaction over this is logged."
    )
    report_threshold_cents = models.BigIntegerField(
        default=DEFAULT_REPORT_THRESHOLD_CENTS,
        help_text="A day's total in or out over this needs the player's identification.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "cash-per-gaming-day settings"
        verbose_name_plural = "cash-per-gaming-day settings"
        constraints = (
            models.CheckConstraint(condition=Q(id=1), name="cashdaysettings_single_row"),
            models.CheckConstraint(
                condition=Q(gaming_day_start_hour__gte=0, gaming_day_start_hour__lte=23),
                name="cashdaysettings_hour_range",
            ),
            models.CheckConstraint(
                condition=Q(log_threshold_cents__gt=0, report_threshold_cents__gt=0),
                name="cashdaysettings_thresholds_positive",
            ),
        )

    def __str__(self) -> str:
        return "Cash per gaming day"

    @classmethod
    def current(cls) -> CashDaySettings:
        """The room's settings: the stored row, else the defaults (unsaved)."""
        return cls.objects.filter(pk=1).first() or cls(pk=1)


class IdentificationKind(models.TextChoices):
    DRIVERS_LICENSE = "drivers_license", "Driver's license"
    STATE_ID = "state_id", "State ID card"
    PASSPORT = "passport", "Passport"
    MILITARY_ID = "military_id", "Military ID"
    OTHER = "other", "Other government ID"


class PlayerIdentification(models.Model):
    """The identification a player showed on a gaming day (for a transaction that took the day's
    total over the report threshold). Append-only: a correction is a new row."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="identifications")
    gaming_day = models.DateField(db_index=True)
    kind = models.CharField(max_length=20, choices=IdentificationKind)
    number = models.CharField(max_length=40)
    issued_by = models.CharField(max_length=60, help_text="The state or country that issued it.")
    expires_on = models.DateField(null=True, blank=True)
    note = models.TextField(blank=True, default="")
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ("-recorded_at", "-id")
        verbose_name = "player identification"

    def __str__(self) -> str:
        return f"{self.player}: {self.get_kind_display()} {self.number} ({self.gaming_day})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError("PlayerIdentification rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("PlayerIdentification rows are append-only")
