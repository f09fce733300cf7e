"""Collection schedules, their versions and the rates of each version.

Versioned: rates hang off a :class:`CollectionScheduleVersion` that takes effect from
``effective_from`` and is never rewritten once in force, so the fee of a hand can be looked up
"as in force at time T" (:meth:`CollectionSchedule.version_at`).
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from casino.core.money import format_cents
from casino.core.versions import in_force
from tables.choices import BIG_BET_STRUCTURES, MAX_SEATS, Payer, RateStructure, Structure
from tables.models.base import NaturalKeyManager, NaturalKeyModel
from tables.validators import rate_problems

if TYPE_CHECKING:
    from tables.models.stakes import Stakes


class CollectionSchedule(NaturalKeyModel):
    """A named collection rate schedule: 004's A, B and C, and Chinese poker's options CP1-CP3.

    The rates live in versions; :meth:`version_at` gives the version in force at a time.
    """

    natural_key_field: ClassVar[str] = "code"

    code = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)

    objects = NaturalKeyManager()

    class Meta:
        ordering = ("code",)

    def __str__(self) -> str:
        return f"{self.code}: {self.name}"

    def natural_key(self) -> tuple[str]:
        return (self.code,)

    def version_at(self, at: datetime.datetime | None = None) -> CollectionScheduleVersion | None:
        """The version in force at ``at`` (default now): the latest with ``effective_from <= at``."""
        return in_force(self.versions.all(), at or timezone.now()).first()

    def versions_from(self, at: datetime.datetime | None = None) -> list[CollectionScheduleVersion]:
        """The version in force at ``at`` (default now) and every later one, oldest first: what a
        table on this schedule will be charged under from ``at`` on."""
        at = at or timezone.now()
        current = self.version_at(at)
        later = self.versions.filter(effective_from__gt=at).order_by("effective_from")
        return ([current] if current else []) + list(later)

    def rates_at(self, at: datetime.datetime | None = None) -> list[CollectionRate]:
        version = self.version_at(at)
        return list(version.rates.all()) if version else []


class CollectionScheduleVersion(models.Model):
    """One version of a schedule's rates, in force from ``effective_from`` until the next version.

    Append-only: a change to a schedule is a new version effective from a stated time (never
    in the past), so fees already collected keep pointing at the rates that applied.
    """

    schedule = models.ForeignKey(CollectionSchedule, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    effective_from = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField()

    class Meta:
        ordering = ("schedule", "number")
        constraints = (
            models.UniqueConstraint(fields=("schedule", "number"), name="schedule_version_number_unique"),
            models.UniqueConstraint(
                fields=("schedule", "effective_from"), name="schedule_version_from_unique"
            ),
        )

    def __str__(self) -> str:
        return f"{self.schedule.code} v{self.number} (from {self.effective_from:%Y-%m-%d %H:%M})"

    @property
    def is_in_force_or_past(self) -> bool:
        return self.effective_from <= timezone.now()


class CollectionRate(models.Model):
    """One row of a schedule version: which stakes and player counts it covers, and the fee.

    * ``limit`` rows name the betting limits (the ``*_bet_cents`` fields, as the stakes do);
    * ``nl_pl`` rows a buy-in range (``buy_in_max_cents`` None: no max), for pot limit and no
      limit alike;
    * ``points`` rows a range of point values (004's Chinese poker "table limit $1 - $100").

    ``players_min``..``players_max`` is the band of players dealt in. ``payer`` says who pays:
    ``button`` pays ``fee_cents``; ``each_player`` pays ``fee_cents`` each; ``button_and_others``:
    the button pays ``fee_cents`` and each other player ``others_fee_cents``.
    """

    version = models.ForeignKey(CollectionScheduleVersion, on_delete=models.PROTECT, related_name="rates")
    structure = models.CharField(max_length=10, choices=RateStructure)
    small_bet_cents = models.BigIntegerField(null=True, blank=True)
    big_bet_cents = models.BigIntegerField(null=True, blank=True)
    alt_small_bet_cents = models.BigIntegerField(null=True, blank=True)
    alt_big_bet_cents = models.BigIntegerField(null=True, blank=True)
    buy_in_min_cents = models.BigIntegerField(null=True, blank=True)
    buy_in_max_cents = models.BigIntegerField(null=True, blank=True)
    point_min_cents = models.BigIntegerField(null=True, blank=True)
    point_max_cents = models.BigIntegerField(null=True, blank=True)
    players_min = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(MAX_SEATS)]
    )
    players_max = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(MAX_SEATS)]
    )
    payer = models.CharField(max_length=20, choices=Payer, default=Payer.BUTTON)
    fee_cents = models.BigIntegerField(validators=[MinValueValidator(0)])
    others_fee_cents = models.BigIntegerField(null=True, blank=True, validators=[MinValueValidator(0)])

    class Meta:
        ordering = ("version", "id")
        constraints = (
            models.CheckConstraint(
                condition=Q(players_min__lte=models.F("players_max")) & Q(players_min__gte=1),
                name="rate_players_band",
                violation_error_message="The players band must run from at least 1 up to players_max.",
            ),
            models.CheckConstraint(
                condition=Q(fee_cents__gte=0)
                & (Q(others_fee_cents__isnull=True) | Q(others_fee_cents__gte=0)),
                name="rate_fee_not_negative",
                violation_error_message="Fees can't be negative.",
            ),
            models.CheckConstraint(
                condition=Q(payer=Payer.BUTTON_AND_OTHERS, others_fee_cents__isnull=False)
                | (~Q(payer=Payer.BUTTON_AND_OTHERS) & Q(others_fee_cents__isnull=True)),
                name="rate_others_fee_iff_button_and_others",
                violation_error_message="others_fee_cents is set exactly when the payer is button_and_others",
            ),
        )

    def __str__(self) -> str:
        return f"{self.limits_label} {self.players_min}-{self.players_max} players: {self.fee_label}"

    def clean(self) -> None:
        problems = rate_problems(self)
        if problems:
            raise ValidationError(problems)

    @property
    def limits_label(self) -> str:
        """The rate's stakes as 004 prints them: ``$2-$4, $2-$8``, ``$20-no max``, ``$1 - $100``."""
        if self.structure == RateStructure.LIMIT and self.small_bet_cents and self.big_bet_cents:
            text = f"{format_cents(self.small_bet_cents)}-{format_cents(self.big_bet_cents)}"
            if self.alt_small_bet_cents and self.alt_big_bet_cents:
                text += f", {format_cents(self.alt_small_bet_cents)}-{format_cents(self.alt_big_bet_cents)}"
            return text
        if self.structure == RateStructure.BIG_BET and self.buy_in_min_cents:
            high = format_cents(self.buy_in_max_cents) if self.buy_in_max_cents else "no max"
            return f"{format_cents(self.buy_in_min_cents)}-{high}"
        if self.structure == RateStructure.POINTS and self.point_min_cents and self.point_max_cents:
            return f"{format_cents(self.point_min_cents)} - {format_cents(self.point_max_cents)}"
        return "?"

    @property
    def fee_label(self) -> str:
        if self.payer == Payer.BUTTON_AND_OTHERS and self.others_fee_cents is not None:
            return f"button {format_cents(self.fee_cents)}, others {format_cents(self.others_fee_cents)}"
        if self.payer == Payer.EACH_PLAYER:
            return f"{format_cents(self.fee_cents)} each"
        return f"{format_cents(self.fee_cents)} from the button"

    def matches_stakes(self, stakes: Stakes) -> bool:
        """Whether this row covers ``stakes`` (kill and structure nuances included)."""
        if self.structure == RateStructure.LIMIT:
            return stakes.structure == Structure.LIMIT and (
                self.small_bet_cents,
                self.big_bet_cents,
                self.alt_small_bet_cents,
                self.alt_big_bet_cents,
            ) == (
                stakes.small_bet_cents,
                stakes.big_bet_cents,
                stakes.alt_small_bet_cents,
                stakes.alt_big_bet_cents,
            )
        if self.structure == RateStructure.BIG_BET:
            return stakes.structure in BIG_BET_STRUCTURES and (
                self.buy_in_min_cents,
                self.buy_in_max_cents,
            ) == (
                stakes.buy_in_min_cents,
                stakes.buy_in_max_cents,
            )
        if self.structure == RateStructure.POINTS:
            return (
                stakes.structure == Structure.POINTS
                and stakes.point_cents is not None
                and self.point_min_cents is not None
                and self.point_max_cents is not None
                and self.point_min_cents <= stakes.point_cents <= self.point_max_cents
            )
        return False

    def covers_players(self, players: int) -> bool:
        return self.players_min <= players <= self.players_max

    def fees_by_position(self, players: int) -> list[int]:
        """The fee each position pays (index 0 is position 1, the button), in cents."""
        if players < 1:
            return []
        if self.payer == Payer.EACH_PLAYER:
            return [self.fee_cents] * players
        if self.payer == Payer.BUTTON_AND_OTHERS:
            return [self.fee_cents] + [self.others_fee_cents or 0] * (players - 1)
        return [self.fee_cents] + [0] * (players - 1)
