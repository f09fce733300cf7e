"""The ledger's accounts: a player's chips at a table, a house collection, the cage, a hand's pot.

Sign convention: an entry's ``amount`` (integer cents) is what flows *into* its account; an
account's balance is the sum of its entries. A buy-in of 100.00 is ``player +10000, cage -10000``.
The sum of all balances is therefore always zero.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from ledger.shifts import Shift, ShiftCode


class AccountKind(models.TextChoices):
    PLAYER_CHIPS = "player_chips", "Player chips at a table"
    HOUSE_COLLECTION = "house_collection", "House collection (table and shift)"
    CAGE = "cage", "Cage (chips sold to / bought back from a table)"
    HAND_POT = "hand_pot", "Hand pot (clearing account of one hand)"


class Account(models.Model):
    """One account: a player's chips at a table, a house collection, the cage, a hand's pot.

    Identity is (kind, table, player, hand, shift); which of those are set depends on the kind and
    is checked by the database (``ledger_account_shape``). Each identity exists at most once
    (a partial unique constraint per kind), so ``get_or_create`` is safe under races.

    ``balance`` is a cache of the sum of the account's entries, updated only by the posting service
    while it holds this row's lock; ``verify_ledger`` recomputes it.
    """

    Kind = AccountKind

    kind = models.CharField(max_length=32, choices=Kind.choices)
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="ledger_accounts")
    player = models.ForeignKey(
        "tables.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_accounts"
    )
    hand = models.ForeignKey(
        "tables.Hand", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_accounts"
    )
    shift_date = models.DateField(null=True, blank=True, help_text="Business date of a house collection.")
    shift_code = models.CharField(max_length=8, choices=ShiftCode.choices, blank=True, default="")
    balance = models.BigIntegerField(default=0, help_text="Cached sum of entries, in cents.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pk"]
        constraints = [
            # Which identity columns each kind uses; also limits `kind` to the known values.
            models.CheckConstraint(
                name="ledger_account_shape",
                condition=(
                    Q(
                        kind=AccountKind.PLAYER_CHIPS,
                        player__isnull=False,
                        hand__isnull=True,
                        shift_date__isnull=True,
                        shift_code="",
                    )
                    | (
                        Q(
                            kind=AccountKind.HOUSE_COLLECTION,
                            player__isnull=True,
                            hand__isnull=True,
                            shift_date__isnull=False,
                            shift_code__in=ShiftCode.values,
                        )
                    )
                    | Q(
                        kind=AccountKind.CAGE,
                        player__isnull=True,
                        hand__isnull=True,
                        shift_date__isnull=True,
                        shift_code="",
                    )
                    | Q(
                        kind=AccountKind.HAND_POT,
                        player__isnull=True,
                        hand__isnull=False,
                        shift_date__isnull=True,
                        shift_code="",
                    )
                ),
            ),
            # "A player's chips never go below zero."
            models.CheckConstraint(
                name="ledger_account_player_chips_not_negative",
                condition=~Q(kind=AccountKind.PLAYER_CHIPS) | Q(balance__gte=0),
            ),
            # One account per identity. Partial indexes (not one index over nullable columns)
            # because NULLs are distinct in a unique index on both SQLite and PostgreSQL.
            models.UniqueConstraint(
                fields=["table", "player"],
                condition=Q(kind=AccountKind.PLAYER_CHIPS),
                name="ledger_account_unique_player_chips",
            ),
            models.UniqueConstraint(
                fields=["table", "shift_date", "shift_code"],
                condition=Q(kind=AccountKind.HOUSE_COLLECTION),
                name="ledger_account_unique_house_collection",
            ),
            models.UniqueConstraint(
                fields=["table"], condition=Q(kind=AccountKind.CAGE), name="ledger_account_unique_cage"
            ),
            models.UniqueConstraint(
                fields=["hand"], condition=Q(kind=AccountKind.HAND_POT), name="ledger_account_unique_hand_pot"
            ),
        ]

    def __str__(self) -> str:
        match self.kind:
            case self.Kind.PLAYER_CHIPS:
                return f"chips of player {self.player_id} at table {self.table_id}"
            case self.Kind.HOUSE_COLLECTION:
                return f"house collection of table {self.table_id}, shift {self.shift}"
            case self.Kind.CAGE:
                return f"cage for table {self.table_id}"
            case self.Kind.HAND_POT:
                return f"pot of hand {self.hand_id}"
        return f"account {self.pk}"

    @property
    def shift(self) -> Shift | None:
        """The shift key of a house-collection account, else ``None``."""
        if self.shift_date is None or not self.shift_code:
            return None
        return Shift(business_date=self.shift_date, code=ShiftCode(self.shift_code))
