"""The hand's money as the floor keeps it: chips bought and cashed out, showdown readings.

The money itself is in the ledger (``ledger`` app): every row here points at the journal
transaction that moved it. These rows hold what the floor needs to apply its rules (one buy-in
and one short rebuy per session, the reading the dealer confirmed) and to answer retries.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from casino.core.money import format_cents
from tables.models.hands import Hand
from tables.models.players import Player, Seating
from tables.models.tables import Table


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
