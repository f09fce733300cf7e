"""Players, and their seatings: who sat in which seat, from when until when."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tables.models.tables import Seat, Table


class Player(models.Model):
    """A player. ``member_number`` is optional, and unique when set (blank is stored as NULL)."""

    name = models.CharField(max_length=100)
    # NULL, not "", for "no member number": the unique constraint applies only to numbers set.
    member_number = models.CharField(max_length=20, null=True, blank=True, default=None)  # noqa: DJ001
    # What the room's public board shows for the player (waiting lists): blank shows the first name
    # and the last name's initial (:attr:`board_name`); never the full name.
    board_alias = models.CharField(max_length=30, blank=True, default="")
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

    @property
    def board_name(self) -> str:
        """The name the public board shows: the alias the player chose, else ``Ann S.`` (the first
        name and the last name's initial; a one-word name as it is)."""
        alias = self.board_alias.strip()
        if alias:
            return alias
        words = self.name.split()
        if not words:
            return "?"
        return words[0] if len(words) == 1 else f"{words[0]} {words[-1][0].upper()}."


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
