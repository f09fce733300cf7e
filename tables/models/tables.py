"""Tables, their seats, and where each table's buttons and kill stand."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tables.choices import MAX_SEATS, MIN_PLAYERS, HandStatus
from tables.models.base import NaturalKeyManager, NaturalKeyModel
from tables.models.games import Game
from tables.models.schedules import CollectionSchedule
from tables.models.stakes import Stakes
from tables.validators import table_problems

if TYPE_CHECKING:
    from tables.models.hands import Hand


class TableStatus(models.TextChoices):
    OPEN = "open", "Open"
    CLOSED = "closed", "Closed"


def table_name(number: int) -> str:
    """How a page, an export or a record names a table for people: by its number, as the room does
    ("Table 7"), never by its database id (the ledger's chain keys and the API's ids are not
    numbers the room knows)."""
    return f"Table {number}"


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

    # Not columns: set by the floor overview (``web.floor.home``) on the open tables it shows, for
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
        return table_name(self.number)

    def natural_key(self) -> tuple[int]:
        return (self.number,)

    def clean(self) -> None:
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
