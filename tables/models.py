"""The floor model: games, stakes, collection schedules, tables, seats, players, hands.

Money is integer cents everywhere (``BigIntegerField``, fields ending in ``_cents``); never
floats. Every status or kind is a ``TextChoices``. State changes go through
:mod:`tables.services`; models only validate themselves and answer questions about their data.

House data (games, stakes, the collection schedules of seed 004) is loaded from
``tables/data/house_data.json`` by ``manage.py load_house_data``; each of those models has a
natural key (``slug`` or ``code``).

Collection schedules are versioned: rates hang off a :class:`CollectionScheduleVersion` that
takes effect from ``effective_from`` and is never rewritten once in force, so the fee of a hand
can be looked up "as in force at time T" (:meth:`CollectionSchedule.version_at`).
"""

from __future__ import annotations

import datetime
from typing import Any, ClassVar, TypeVar

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from casino.core.money import format_cents as format_cents
from casino.core.versions import in_force
from tables.choices import (
    BIG_BET_STRUCTURES as BIG_BET_STRUCTURES,
)
from tables.choices import (
    MAX_RATES_PER_TABLE as MAX_RATES_PER_TABLE,
)
from tables.choices import (
    MAX_SEATS as MAX_SEATS,
)
from tables.choices import (
    MIN_PLAYERS as MIN_PLAYERS,
)
from tables.choices import (
    POT_GAME_STRUCTURES as POT_GAME_STRUCTURES,
)
from tables.choices import (
    GameKind as GameKind,
)
from tables.choices import (
    KillType as KillType,
)
from tables.choices import (
    MisdealReason as MisdealReason,
)
from tables.choices import (
    Payer as Payer,
)
from tables.choices import (
    RateStructure as RateStructure,
)
from tables.choices import (
    Structure as Structure,
)

# --- Games ----------------------------------------------------------------------------------


class NaturalKeyModel(models.Model):
    """A model with a single natural-key field, named by ``natural_key_field`` (no fields, no table)."""

    natural_key_field: ClassVar[str]

    class Meta:
        abstract = True


_NK = TypeVar("_NK", bound=NaturalKeyModel)


class NaturalKeyManager(models.Manager[_NK]):
    """``get_by_natural_key`` on the model's single natural-key field (``natural_key_field``)."""

    def get_by_natural_key(self, key: str) -> _NK:
        return self.get(**{self.model.natural_key_field: key})


class Game(NaturalKeyModel):
    """An approved game (004). ``slug`` is the natural key the engine and the data file use."""

    natural_key_field: ClassVar[str] = "slug"

    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=20, choices=GameKind)
    # Button games (flop and draw games): the odd chip of a split goes clockwise from the button.
    is_button_game = models.BooleanField(default=False)
    # Stud games: the odd chip goes by card suit; no blinds rotate with a button.
    is_stud_game = models.BooleanField(default=False)
    # Dealer's choice: the button player picks the game of each hand; the hand records it.
    is_dealers_choice = models.BooleanField(default=False)
    seat_count = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(MIN_PLAYERS), MaxValueValidator(MAX_SEATS)],
        help_text="Most seats a table of this game has.",
    )
    max_hands = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(MIN_PLAYERS)],
        help_text="Most hands dealt per round (Chinese poker: 4); empty: every seated player.",
    )
    sort_order = models.PositiveSmallIntegerField(default=0)
    is_active = models.BooleanField(default=True)

    objects = NaturalKeyManager()

    class Meta:
        ordering = ("sort_order", "slug")
        constraints = (
            models.CheckConstraint(
                condition=~(Q(is_button_game=True) & Q(is_stud_game=True)),
                name="game_button_xor_stud",
                violation_error_message="A game is a button game or a stud game, not both.",
            ),
            models.CheckConstraint(
                condition=Q(max_hands__isnull=True) | Q(max_hands__lte=models.F("seat_count")),
                name="game_max_hands_le_seats",
                violation_error_message="A game can't deal more hands than it has seats.",
            ),
        )

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str]:
        return (self.slug,)

    @property
    def hands_per_round(self) -> int:
        """Most players dealt in per hand."""
        return self.max_hands or self.seat_count


# --- Stakes -----------------------------------------------------------------------------------


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
        from tables.validators import stakes_problems

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


# --- Collection schedules -------------------------------------------------------------------------


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
        from tables.validators import rate_problems

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


# --- Tables, seats, players -------------------------------------------------------------------------


class TableStatus(models.TextChoices):
    OPEN = "open", "Open"
    CLOSED = "closed", "Closed"


class Table(NaturalKeyModel):
    """A table on the floor. ``number`` is the natural key. Created with its seats by services."""

    natural_key_field: ClassVar[str] = "number"

    number = models.PositiveSmallIntegerField(unique=True, validators=[MinValueValidator(1)])
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="tables")
    stakes = models.ForeignKey(Stakes, on_delete=models.PROTECT, related_name="tables")
    seat_count = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(MIN_PLAYERS), MaxValueValidator(MAX_SEATS)]
    )
    chip_unit_cents = models.BigIntegerField(
        default=100, validators=[MinValueValidator(1)], help_text="The smallest chip in play, in cents."
    )
    collection_schedule = models.ForeignKey(
        CollectionSchedule, on_delete=models.PROTECT, related_name="tables"
    )
    status = models.CharField(max_length=10, choices=TableStatus, default=TableStatus.CLOSED)
    keep_fees_on_misdeal = models.BooleanField(
        default=False, help_text="Keep the collection fees of a voided hand instead of returning them."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    opened_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    # Not columns: set by the floor overview (``web.home_views``) on the open tables it shows, for
    # its template: the hands dealt and the fees collected this shift.
    hands_this_shift: int
    fees_this_shift_cents: int

    objects = NaturalKeyManager()

    class Meta:
        ordering = ("number",)
        permissions = (("manage_floor", "Can open and close tables and seat, move and unseat players"),)
        constraints = (
            models.CheckConstraint(condition=Q(chip_unit_cents__gt=0), name="table_chip_positive"),
            models.CheckConstraint(
                condition=Q(seat_count__gte=MIN_PLAYERS, seat_count__lte=MAX_SEATS),
                name="table_seat_count_range",
            ),
        )

    def __str__(self) -> str:
        return f"Table {self.number}"

    def natural_key(self) -> tuple[int]:
        return (self.number,)

    def clean(self) -> None:
        from tables.validators import table_problems

        if self.game_id is None or self.stakes_id is None or self.collection_schedule_id is None:
            return  # the form reports the missing field itself
        problems = table_problems(
            game=self.game,
            stakes=self.stakes,
            seat_count=self.seat_count,
            chip_unit_cents=self.chip_unit_cents,
            schedule=self.collection_schedule,
        )
        if problems:
            raise ValidationError(problems)

    @property
    def is_open(self) -> bool:
        return self.status == TableStatus.OPEN

    def hand_in_progress(self) -> Hand | None:
        return self.hands.filter(status__in=HandStatus.in_progress()).first()


class Seat(models.Model):
    """Seat ``number`` (1..table.seat_count, clockwise from the dealer's left) at a table."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(MAX_SEATS)])

    class Meta:
        ordering = ("table__number", "number")
        constraints = (
            models.UniqueConstraint(fields=("table", "number"), name="seat_number_unique_per_table"),
            models.CheckConstraint(condition=Q(number__gte=1), name="seat_number_positive"),
        )

    def __str__(self) -> str:
        return f"Table {self.table.number} seat {self.number}"


class Player(models.Model):
    """A player. ``member_number`` is optional, and unique when set (blank is stored as NULL)."""

    name = models.CharField(max_length=100)
    # NULL, not "", for "no member number": the unique constraint applies only to numbers set.
    member_number = models.CharField(max_length=20, null=True, blank=True, default=None)  # noqa: DJ001
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("name", "id")
        constraints = (
            models.UniqueConstraint(
                fields=("member_number",),
                condition=Q(member_number__isnull=False),
                name="player_member_number_unique",
                violation_error_message="Another player has this member number.",
            ),
        )

    def __str__(self) -> str:
        return f"{self.name} (#{self.member_number})" if self.member_number else self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        # "" would collide with every other blank member number under the unique constraint.
        if self.member_number is not None:
            self.member_number = self.member_number.strip() or None
        super().save(*args, **kwargs)


class SeatingQuerySet(models.QuerySet["Seating"]):
    def active(self) -> SeatingQuerySet:
        return self.filter(left_at__isnull=True)


class Seating(models.Model):
    """A player in a seat from ``seated_at`` until ``left_at`` (None while still seated).

    One player per seat at a time and one seat per player per table at a time: checked by the
    services and enforced by conditional unique constraints (the backstop against races).
    ``table`` repeats ``seat.table`` so the second constraint can be declared.
    """

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="seatings")
    seat = models.ForeignKey(Seat, on_delete=models.PROTECT, related_name="seatings")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seatings")
    seated_at = models.DateTimeField(default=timezone.now)
    left_at = models.DateTimeField(null=True, blank=True)
    seated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    left_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    objects = SeatingQuerySet.as_manager()

    class Meta:
        ordering = ("table__number", "seat__number", "-seated_at")
        constraints = (
            models.UniqueConstraint(
                fields=("seat",),
                condition=Q(left_at__isnull=True),
                name="seating_one_player_per_seat",
                violation_error_message="The seat is taken.",
            ),
            models.UniqueConstraint(
                fields=("table", "player"),
                condition=Q(left_at__isnull=True),
                name="seating_one_seat_per_player_per_table",
                violation_error_message="The player is already seated at this table.",
            ),
            models.CheckConstraint(
                condition=Q(left_at__isnull=True) | Q(left_at__gte=models.F("seated_at")),
                name="seating_left_after_seated",
            ),
        )

    def __str__(self) -> str:
        return f"{self.player} at {self.seat}"

    @property
    def is_active(self) -> bool:
        return self.left_at is None


class ButtonState(models.Model):
    """Where the buttons are at a table, and the kill state (RULINGS §2 and §3).

    ``button_seat`` is the dealer button; in Chinese poker it is also the action button (one
    position, the "button player"). ``sitting_out_seat`` is Chinese poker's fifth seated player,
    who sits out this round and rotates in with the button. ``streak_seat`` won the last
    ``streak_wins`` pots outright; ``kill_seat`` is set once that reaches two at a kill table,
    and the next hand is a kill hand at ``kill_multiplier_pct`` (150 half kill, 200 full kill).
    """

    table = models.OneToOneField(Table, on_delete=models.CASCADE, primary_key=True, related_name="buttons")
    button_seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    sitting_out_seat = models.ForeignKey(
        Seat, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    streak_seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    streak_wins = models.PositiveSmallIntegerField(default=0)
    kill_seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kill_multiplier_pct = models.PositiveSmallIntegerField(default=100)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "button state"

    def __str__(self) -> str:
        button = self.button_seat.number if self.button_seat else "-"
        return f"Table {self.table.number}: button at seat {button}"


# --- Dealers ---------------------------------------------------------------------------------------------


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

    # Not a column: True on the down clock_in returns when the dealer was already clocked in there.
    was_replayed: bool = False

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


# --- Hands ----------------------------------------------------------------------------------------------


class HandStatus(models.TextChoices):
    OPEN = "open", "Open"  # created, fees due; cards not yet dealt
    DEALT = "dealt", "Dealt"
    SHOWDOWN = "showdown", "Showdown"
    SETTLED = "settled", "Settled"
    VOID = "void", "Void"  # misdeal: nothing settled, fees returned unless the table keeps them

    @classmethod
    def in_progress(cls) -> list[str]:
        return [cls.OPEN, cls.DEALT, cls.SHOWDOWN]

    @classmethod
    def before_showdown(cls) -> list[str]:
        """A hand in these has no reading: the showdown that makes one moves it on for good."""
        return [cls.OPEN, cls.DEALT]


# The one place the allowed hand transitions are written down. A hand can be settled straight
# from "dealt" (everyone else folded, no showdown); a misdeal can be called until settlement
# (004 Chinese poker rule 9 calls one at the showdown).
HAND_TRANSITIONS: dict[str, frozenset[str]] = {
    HandStatus.OPEN: frozenset({HandStatus.DEALT, HandStatus.VOID}),
    HandStatus.DEALT: frozenset({HandStatus.SHOWDOWN, HandStatus.SETTLED, HandStatus.VOID}),
    HandStatus.SHOWDOWN: frozenset({HandStatus.SETTLED, HandStatus.VOID}),
    HandStatus.SETTLED: frozenset(),
    HandStatus.VOID: frozenset(),
}


class Hand(models.Model):
    """One hand at a table. ``number`` runs 1, 2, 3... per table.

    ``game`` is the game played (for dealer's choice, the one the button picked), ``stakes`` and
    ``collection_schedule`` the table's when the hand started (its fee is looked up in the
    schedule as in force at ``created_at``: :func:`tables.selectors.rate_for_hand`),
    ``button_seat`` the button (position 1 among the :class:`HandPlayer` rows).
    ``kill_seat``/``kill_multiplier_pct`` record a kill hand.
    ``previous_button_seat`` is where the button was before this hand, so a voided hand (a
    misdeal) puts it back and the redeal has the same button.
    ``joker``: the joker is in the deck (lowball dealt as the table's own game; 004 lowball rule
    1: none is added when lowball is played in dealer's choice).
    ``no_fee_reason``: why no fee was taken before the deal (the schedule's band charged nothing).
    ``misdeal_reason``: a void hand's code (:class:`MisdealReason`); ``void_reason`` the words (the
    code's label, or the dealer's text: ``other`` needs it). ``boards``: Taiwanese poker's boards
    agreed before the deal (1-3; the showdown must bring as many). ``dealer``/``dealer_shift``: who
    dealt it, in which down (:class:`DealerShift`); None only on hands from before 2026-11-25.
    A hand becomes ``dealt`` only through the deal that takes its fees
    (:func:`handflow.services.start_hand`): on PostgreSQL and SQLite a trigger refuses a dealt hand
    with neither its fee transaction nor this reason (ledger migration 0006).
    """

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="hands")
    number = models.PositiveIntegerField()
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="hands")
    stakes = models.ForeignKey(Stakes, on_delete=models.PROTECT, related_name="hands")
    collection_schedule = models.ForeignKey(
        CollectionSchedule, on_delete=models.PROTECT, related_name="hands"
    )
    status = models.CharField(max_length=10, choices=HandStatus, default=HandStatus.OPEN)
    button_seat = models.ForeignKey(Seat, on_delete=models.PROTECT, related_name="+")
    previous_button_seat = models.ForeignKey(
        Seat, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    kill_seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    kill_multiplier_pct = models.PositiveSmallIntegerField(default=100)
    outright_winner_seat = models.ForeignKey(
        Seat, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    result_recorded_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    dealt_at = models.DateTimeField(null=True, blank=True)
    dealt_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    showdown_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    settled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    voided_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    void_reason = models.TextField(blank=True)
    misdeal_reason = models.CharField(max_length=20, choices=MisdealReason, blank=True)
    joker = models.BooleanField(default=False)
    no_fee_reason = models.TextField(blank=True)
    boards = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Taiwanese poker: the number of boards agreed before the deal."
    )
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    dealer_shift = models.ForeignKey(
        "DealerShift", null=True, blank=True, on_delete=models.PROTECT, related_name="hands"
    )

    # Not a column: True on the hand a service returns for a request already carried out (e.g. a
    # second misdeal call for a hand that is already void).
    was_replayed: bool = False
    # Not columns: set by the hand flow on the hand it has just locked and written (start, showdown,
    # confirmation), so that the dealer's response is built without reading the players again: the
    # players dealt in by position (seat and player loaded), and each one's chips at the table as
    # the flow's transaction leaves them, by player id.
    dealt_players: list[HandPlayer] | None = None
    chips_after: dict[int, int] | None = None

    class Meta:
        ordering = ("table__number", "-number")
        permissions = (("run_hand", "Can start hands, move them through their statuses and void them"),)
        constraints = (
            models.UniqueConstraint(fields=("table", "number"), name="hand_number_unique_per_table"),
            models.UniqueConstraint(
                fields=("table",),
                condition=Q(status__in=["open", "dealt", "showdown"]),
                name="hand_one_in_progress_per_table",
                violation_error_message="A hand is already in progress at this table.",
            ),
            models.CheckConstraint(
                condition=~Q(status="void") | (Q(voided_at__isnull=False) & ~Q(void_reason="")),
                name="hand_void_has_time_and_reason",
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="hand_number_positive"),
            models.CheckConstraint(
                condition=Q(misdeal_reason="") | Q(misdeal_reason__in=MisdealReason.values),
                name="hand_misdeal_reason_valid",
            ),
            models.CheckConstraint(
                condition=Q(boards__isnull=True) | Q(boards__gte=1, boards__lte=3),
                name="hand_boards_one_to_three",
            ),
        )

    def __str__(self) -> str:
        return f"Table {self.table.number} hand {self.number}"

    @property
    def is_in_progress(self) -> bool:
        return self.status in HandStatus.in_progress()

    def can_transition(self, to: str) -> bool:
        return to in HAND_TRANSITIONS[self.status]

    def check_transition(self, to: str) -> None:
        """Raise :class:`tables.errors.IllegalTransition` unless ``status -> to`` is allowed."""
        from tables.errors import IllegalTransition

        if to not in HandStatus.values:
            raise IllegalTransition(f"{to!r} is not a hand status", field="status")
        if not self.can_transition(to):
            allowed = ", ".join(sorted(HAND_TRANSITIONS[self.status])) or "none (it is final)"
            raise IllegalTransition(
                f"Hand {self.number} at table {self.table.number} is {self.status}; it can't become {to}. "
                f"Allowed next statuses: {allowed}.",
                field="status",
            )


class HandPlayer(models.Model):
    """A player dealt into a hand: ``position`` 1 is the button, then clockwise (P1, P2, ...)."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="players")
    seat = models.ForeignKey(Seat, on_delete=models.PROTECT, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="hands")
    position = models.PositiveSmallIntegerField(validators=[MinValueValidator(1)])
    # Set by the hand's money flow (handflow.services.start_hand): the collection fee this player
    # paid before the deal, and the chips in play at the deal (after the fee), which is the
    # ``stack`` the engine caps Chinese and Taiwanese payments with. None only on hands started
    # before 2026-11-25 by the floor's fee-less start, which no longer exists.
    fee_cents = models.BigIntegerField(null=True, blank=True)
    stack_cents = models.BigIntegerField(null=True, blank=True)
    # Chinese poker: the clean sweep this player declared before the showdown (the engine's
    # ``declare`` name) and when the dealer recorded the declaration (handflow.declare_sweep).
    sweep_declared = models.CharField(max_length=30, blank=True)
    sweep_declared_at = models.DateTimeField(null=True, blank=True)

    # Not a column: True on the row declare_sweep returns when that declaration was on record.
    was_replayed: bool = False

    class Meta:
        ordering = ("hand", "position")
        constraints = (
            models.CheckConstraint(
                condition=(Q(fee_cents__isnull=True) | Q(fee_cents__gte=0))
                & (Q(stack_cents__isnull=True) | Q(stack_cents__gte=0)),
                name="handplayer_money_not_negative",
            ),
            models.UniqueConstraint(fields=("hand", "seat"), name="handplayer_seat_unique"),
            models.UniqueConstraint(fields=("hand", "player"), name="handplayer_player_unique"),
            models.UniqueConstraint(fields=("hand", "position"), name="handplayer_position_unique"),
        )

    def __str__(self) -> str:
        return f"{self.hand}: P{self.position} {self.player} (seat {self.seat.number})"

    @property
    def is_button(self) -> bool:
        return self.position == 1


# --- Configuration history --------------------------------------------------------------------------


class ConfigAction(models.TextChoices):
    CREATE = "create", "Created"
    UPDATE = "update", "Changed"
    OPEN = "open", "Opened"
    CLOSE = "close", "Closed"
    NEW_VERSION = "new_version", "New schedule version"
    DELETE = "delete", "Deleted"


class AppendOnlyQuerySet(models.QuerySet["ConfigChange"]):
    """Bulk update and delete are refused: history is append-only."""

    def update(self, **kwargs: Any) -> int:
        raise TypeError("ConfigChange rows are append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError("ConfigChange rows are append-only")


class ConfigChange(models.Model):
    """One change to the configuration (games, stakes, tables, schedules): who, when, what, why.

    Written by :mod:`tables.services` (and the admin) in the same transaction as the change;
    ``before``/``after`` are JSON snapshots (None for a creation/deletion). Append-only.
    """

    at = models.DateTimeField(default=timezone.now, db_index=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    by_username = models.CharField(max_length=150, blank=True, help_text="Kept as it was at the time.")
    action = models.CharField(max_length=20, choices=ConfigAction)
    content_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    object_id = models.CharField(max_length=64)
    object_repr = models.CharField(max_length=200)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    reason = models.TextField(blank=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ("-at", "-id")
        indexes = (models.Index(fields=("content_type", "object_id"), name="configchange_object_idx"),)

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.by_username or 'system'} {self.action} {self.object_repr}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError("ConfigChange rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("ConfigChange rows are append-only")


# --- The hand's money: chips bought and cashed, showdown readings, API requests ------------------------
#
# The money itself is in the ledger (``ledger`` app): every row below points at the journal
# transaction that moved it. These rows hold what the floor needs to apply its rules (one
# buy-in and one short rebuy per session, the reading the dealer confirmed) and to answer retries.


class ChipMovementKind(models.TextChoices):
    BUY_IN = "buy_in", "Buy-in"
    REBUY = "rebuy", "Rebuy"
    CASH_OUT = "cash_out", "Cash-out"


class ChipMovement(models.Model):
    """Chips a player bought (buy-in, rebuy) or cashed out at a table; the money is ``transaction``.

    ``seating`` is the player's session at the table (the seating at the time; None for a cash-out
    of a player who had already left the seat). A session has one buy-in (its first purchase) and at
    most one *short* rebuy (``is_short``: below the table's minimum buy-in; RRoP "one short buy",
    004 Chinese poker rule 1), both also enforced by conditional unique constraints.
    """

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="chip_movements")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="chip_movements")
    seating = models.ForeignKey(
        Seating, null=True, blank=True, on_delete=models.PROTECT, related_name="chip_movements"
    )
    kind = models.CharField(max_length=10, choices=ChipMovementKind)
    amount_cents = models.BigIntegerField()
    is_short = models.BooleanField(default=False)
    transaction = models.OneToOneField(
        "ledger.JournalTransaction", on_delete=models.PROTECT, related_name="chip_movement"
    )
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    # Not a column: True on the row a service returns for a retry of a request already made.
    was_replayed: bool = False

    class Meta:
        ordering = ("table__number", "created_at", "id")
        permissions = (
            ("sell_chips", "Can sell chips at a table (buy-ins and rebuys)"),
            ("cash_out_chips", "Can cash out a player's chips at a table"),
        )
        constraints = (
            models.CheckConstraint(condition=Q(amount_cents__gt=0), name="chipmovement_amount_positive"),
            models.CheckConstraint(
                condition=Q(is_short=False) | Q(kind=ChipMovementKind.REBUY),
                name="chipmovement_only_rebuys_are_short",
            ),
            models.UniqueConstraint(
                fields=("seating",),
                condition=Q(kind=ChipMovementKind.BUY_IN),
                name="chipmovement_one_buy_in_per_session",
                violation_error_message="The player already bought in this session.",
            ),
            models.UniqueConstraint(
                fields=("seating",),
                condition=Q(is_short=True),
                name="chipmovement_one_short_rebuy_per_session",
                violation_error_message="The player already made the session's short rebuy.",
            ),
        )

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {format_cents(self.amount_cents)} by {self.player} at {self.table}"


class ReadingStatus(models.TextChoices):
    """Where a hand's showdown reading stands."""

    PROPOSED = "proposed", "Read, waiting for the dealer to confirm"
    SETTLED = "settled", "Confirmed and settled"
    VOID = "void", "The hand was void (misdeal)"


class HandResult(models.Model):
    """The showdown of a hand: what the dealer entered, what the engine read, what gets posted.

    ``submitted`` is the dealer's input as entered; ``engine_input`` the SHOWDOWN_JSON object built
    from it and the hand (seats, button, chip, point, stacks from the ledger); ``engine_result`` the
    engine's answer; ``postings`` the ledger lines the settlement posts, in settlement order.
    A new submission before confirmation replaces the reading and bumps ``revision``; confirming
    posts ``postings`` as one ledger transaction (``settlement``; None when nothing moved).
    """

    hand = models.OneToOneField(Hand, on_delete=models.PROTECT, primary_key=True, related_name="result")
    status = models.CharField(max_length=10, choices=ReadingStatus, default=ReadingStatus.PROPOSED)
    revision = models.PositiveIntegerField(default=1)
    digest = models.CharField(max_length=64, help_text="sha256 of the canonical engine input.")
    submitted = models.JSONField()
    engine_input = models.JSONField()
    engine_result = models.JSONField()
    postings = models.JSONField()
    submitted_at = models.DateTimeField(default=timezone.now)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    settlement = models.OneToOneField(
        "ledger.JournalTransaction",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="hand_result",
    )
    outright_winner_seat_number = models.PositiveSmallIntegerField(null=True, blank=True)

    # Not a column: True on the row a service returns for a confirmation already made.
    was_replayed: bool = False

    class Meta:
        ordering = ("-submitted_at",)
        constraints = (
            models.CheckConstraint(condition=Q(revision__gte=1), name="handresult_revision_positive"),
            models.CheckConstraint(
                condition=~Q(status=ReadingStatus.SETTLED) | Q(confirmed_at__isnull=False),
                name="handresult_settled_is_confirmed",
            ),
        )

    def __str__(self) -> str:
        return f"{self.hand} reading r{self.revision} ({self.status})"


class IdempotentRequest(models.Model):
    """One API write made under a client's ``Idempotency-Key``, and the response it got.

    The row is inserted (claiming the key) in the same database transaction as the write, so a
    retry or a concurrent duplicate either finds the stored response or waits for the first to
    commit. ``request_digest`` (method, path, body) tells a retry from a conflicting reuse.
    Only successful responses are kept: a refused request leaves its key unused.
    """

    key = models.CharField(max_length=100, unique=True)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=300)
    request_digest = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField(null=True, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.method} {self.path} [{self.key}] -> {self.status_code}"
