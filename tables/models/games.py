"""The approved games (004), by ``slug``."""

from __future__ import annotations

from typing import ClassVar

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from tables.choices import MAX_SEATS, MIN_PLAYERS, GameKind
from tables.models.base import NaturalKeyManager, NaturalKeyModel


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
    # The games the button picks from at a choice game (004's Seven Card Stud Choice: stud, stud
    # hi-lo, razz); none listed: any approved pot game (004's Dealer's Choice).
    choice_of = models.ManyToManyField(
        "self",
        symmetrical=False,
        blank=True,
        related_name="chosen_in",
        help_text="A choice game: the games the button picks from (none: any approved pot game).",
    )
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

    def choice_label(self) -> str:
        """The games a choice game's button picks from, in words (one query)."""
        games = [game.name for game in self.choice_of.all()]
        return ", ".join(games) if games else "any approved pot game"

    @property
    def hands_per_round(self) -> int:
        """Most players dealt in per hand."""
        return self.max_hands or self.seat_count
