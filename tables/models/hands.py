"""Hands, their allowed status moves (:data:`HAND_TRANSITIONS`), and the players dealt into each.

The statuses themselves are :class:`tables.choices.HandStatus` (the table asks for its hand in
progress by them, so they sit below both models).
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from poker.games import MAX_BOARDS
from tables.choices import HandStatus, MisdealReason
from tables.errors import IllegalTransition
from tables.models.games import Game
from tables.models.players import Player
from tables.models.schedules import CollectionSchedule
from tables.models.stakes import Stakes
from tables.models.tables import Seat, Table

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
                condition=Q(boards__isnull=True) | Q(boards__gte=1, boards__lte=MAX_BOARDS),
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
