"""Players, and their seatings: who sat in which seat, from when until when; and the merges of
two records of one person (:class:`PlayerMerge`).

One identity per player: a name is compared by its key (:func:`name_key`: accents, case, spacing,
punctuation and word order aside) and a phone by its digits (:func:`phone_digits`), so "Ana Ruiz",
"ana  ruiz" and "Ruiz, Ana" are one name to the floor's "same person?" question. A duplicate found
later is merged into the record that stays (the survivor): the merged row keeps every record it
has (seatings, chips, hands; the ledger's rows are never rewritten), is marked ``merged_into``, and
the floor's selectors read a player as the survivor with everyone merged into it.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tables.models.tables import Seat, Table


def name_key(name: str) -> str:
    """The name as the "same person?" check compares it: accents dropped, case folded, anything
    but letters and digits a space, the words sorted ("Ruiz, Ána" -> "ana ruiz")."""
    plain = unicodedata.normalize("NFKD", name or "")
    plain = "".join(c for c in plain if not unicodedata.combining(c)).casefold()
    words = "".join(c if c.isalnum() else " " for c in plain).split()
    return " ".join(sorted(words))[:100]


def phone_digits(phone: str) -> str:
    """The digits of a phone number as typed ("(530) 892-2282" -> "5308922282")."""
    return "".join(c for c in phone or "" if c.isascii() and c.isdigit())[:30]


class Player(models.Model):
    """A player. ``member_number`` is optional, and unique when set (blank is stored as NULL).

    ``name_key`` and ``phone_digits`` are kept by :meth:`save` for the search and the "same
    person?" check. ``merged_into`` is set when this record was found to be a duplicate and merged
    into another (:class:`PlayerMerge` is the record of the merge); a merged player is not chosen
    again, but keeps its history.
    """

    name = models.CharField(max_length=100)
    # NULL, not "", for "no member number": the unique constraint applies only to numbers set.
    member_number = models.CharField(max_length=20, null=True, blank=True, default=None)  # noqa: DJ001
    phone = models.CharField(max_length=30, blank=True, default="")
    name_key = models.CharField(max_length=100, blank=True, default="", editable=False, db_index=True)
    phone_digits = models.CharField(max_length=30, blank=True, default="", editable=False, db_index=True)
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_players"
    )
    # What the room's public board shows for the player (waiting lists): blank shows the first name
    # and the last name's initial (:attr:`board_name`); never the full name.
    board_alias = models.CharField(max_length=30, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("name", "id")
        permissions = (("merge_player", "Can merge two records of one player"),)
        constraints = (
            models.UniqueConstraint(
                fields=("member_number",),
                condition=Q(member_number__isnull=False),
                name="player_member_number_unique",
                violation_error_message="Another player has this member number.",
            ),
            models.CheckConstraint(
                condition=Q(merged_into__isnull=True) | ~Q(merged_into=models.F("id")),
                name="player_not_merged_into_itself",
            ),
        )

    def __str__(self) -> str:
        return f"{self.name} (#{self.member_number})" if self.member_number else self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        # "" would collide with every other blank member number under the unique constraint.
        if self.member_number is not None:
            self.member_number = self.member_number.strip() or None
        self.name_key = name_key(self.name)
        self.phone_digits = phone_digits(self.phone)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and {"name", "phone"} & set(update_fields):
            kwargs["update_fields"] = {*update_fields, "name_key", "phone_digits"}
        super().save(*args, **kwargs)

    @property
    def is_merged(self) -> bool:
        return self.merged_into_id is not None
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
    # A player sits at one table at a time; the floor may allow a second one, saying why (kept here).
    elsewhere_reason = models.TextField(
        blank=True,
        default="",
        help_text="Why the floor seated the player here while seated at another table.",
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


class PlayerMerge(models.Model):
    """The record of a merge: ``merged`` was found to be the same person as ``survivor``.

    Nothing of ``merged`` is rewritten (its seatings, chip movements, hands and ledger accounts stay
    its own); the row only gets ``merged_into``. ``merged_as`` keeps what the merged record said
    (name, member number, phone) at the time. Append-only.
    """

    survivor = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="merges_kept")
    merged = models.OneToOneField(Player, on_delete=models.PROTECT, related_name="merge")
    merged_as = models.JSONField(help_text="The merged record's name, member number and phone.")
    reason = models.TextField()
    at = models.DateTimeField(default=timezone.now)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    by_username = models.CharField(max_length=150, blank=True, help_text="Kept as it was at the time.")

    class Meta:
        ordering = ("-at", "-id")
        constraints = (
            models.CheckConstraint(condition=~Q(survivor=models.F("merged")), name="playermerge_two_players"),
        )

    def __str__(self) -> str:
        return f"{self.merged_as.get('name', self.merged_id)} merged into {self.survivor}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError("PlayerMerge rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("PlayerMerge rows are append-only")
