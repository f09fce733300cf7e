"""Stakes: a table's betting structure, limits, buy-in range, kill or point value, by ``code``."""

from __future__ import annotations

from typing import ClassVar

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from casino.core.money import format_cents
from tables.choices import BIG_BET_STRUCTURES, KillType, Structure
from tables.models.base import NaturalKeyManager, NaturalKeyModel
from tables.validators import stakes_problems


class Stakes(NaturalKeyModel):
    """The betting structure of a table: limits, buy-in range, kill, or the value of a point.

    * ``limit``: ``small_bet_cents``/``big_bet_cents``, optionally a second limit pair
      ``alt_small_bet_cents``/``alt_big_bet_cents`` (004's "$2-$4/$2-$8" form; its schedules
      print it "$2-$4, $2-$8"); ``kill`` none/half/full; an optional minimum buy-in.
    * ``pot_limit``/``no_limit``: ``buy_in_min_cents`` and ``buy_in_max_cents`` (None: no max);
      no kill (004: kills are played at every limit except pot limit and no limit).
    * ``points`` (Chinese and Taiwanese poker): ``point_cents``, the money value of a point.

    Hands keep a reference to their stakes, so stakes are never edited once used: make new ones.
    """

    natural_key_field: ClassVar[str] = "code"

    code = models.SlugField(max_length=40, unique=True)
    structure = models.CharField(max_length=20, choices=Structure)
    small_bet_cents = models.BigIntegerField(null=True, blank=True)
    big_bet_cents = models.BigIntegerField(null=True, blank=True)
    alt_small_bet_cents = models.BigIntegerField(null=True, blank=True)
    alt_big_bet_cents = models.BigIntegerField(null=True, blank=True)
    buy_in_min_cents = models.BigIntegerField(null=True, blank=True)
    buy_in_max_cents = models.BigIntegerField(null=True, blank=True, help_text="Empty: no max.")
    kill = models.CharField(max_length=10, choices=KillType, default=KillType.NONE)
    point_cents = models.BigIntegerField(null=True, blank=True)
    is_active = models.BooleanField(default=True)

    objects = NaturalKeyManager()

    class Meta:
        verbose_name_plural = "stakes"
        ordering = (
            "structure",
            "small_bet_cents",
            "buy_in_min_cents",
            "buy_in_max_cents",
            "point_cents",
            "code",
        )
        constraints = (
            models.CheckConstraint(
                condition=Q(kill=KillType.NONE) | Q(structure=Structure.LIMIT),
                name="stakes_kill_only_at_limit",
                violation_error_message="There is no kill at pot limit, no limit or points (004).",
            ),
            models.CheckConstraint(
                condition=(
                    (Q(small_bet_cents__isnull=True) | Q(small_bet_cents__gt=0))
                    & (Q(big_bet_cents__isnull=True) | Q(big_bet_cents__gt=0))
                    & (Q(alt_small_bet_cents__isnull=True) | Q(alt_small_bet_cents__gt=0))
                    & (Q(alt_big_bet_cents__isnull=True) | Q(alt_big_bet_cents__gt=0))
                    & (Q(buy_in_min_cents__isnull=True) | Q(buy_in_min_cents__gt=0))
                    & (Q(buy_in_max_cents__isnull=True) | Q(buy_in_max_cents__gt=0))
                    & (Q(point_cents__isnull=True) | Q(point_cents__gt=0))
                ),
                name="stakes_amounts_positive",
                violation_error_message="Amounts must be positive.",
            ),
        )

    def __str__(self) -> str:
        return self.label

    def natural_key(self) -> tuple[str]:
        return (self.code,)

    def clean(self) -> None:
        problems = stakes_problems(self)
        if problems:
            raise ValidationError(problems)

    @property
    def label(self) -> str:
        """A human label: ``$4-$8 limit, half kill``, ``$100-no max no limit``, ``$5 a point``."""
        if self.structure == Structure.LIMIT and self.small_bet_cents and self.big_bet_cents:
            text = f"{format_cents(self.small_bet_cents)}-{format_cents(self.big_bet_cents)}"
            if self.alt_small_bet_cents and self.alt_big_bet_cents:
                text += f"/{format_cents(self.alt_small_bet_cents)}-{format_cents(self.alt_big_bet_cents)}"
            text += " limit"
            if self.kill != KillType.NONE:
                text += f", {KillType(self.kill).label.lower()}"
            return text
        if self.structure in BIG_BET_STRUCTURES and self.buy_in_min_cents:
            high = format_cents(self.buy_in_max_cents) if self.buy_in_max_cents else "no max"
            return f"{format_cents(self.buy_in_min_cents)}-{high} {Structure(self.structure).label.lower()}"
        if self.structure == Structure.POINTS and self.point_cents:
            return f"{format_cents(self.point_cents)} a point"
        return self.code

    @property
    def kill_multiplier_pct(self) -> int:
        return KillType(self.kill).multiplier_pct
