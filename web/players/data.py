"""What the player page and the player API show of one person: every record of the identity, their
chips at each table (the ledger's balances), the gaming day's buy-ins and cash-outs, the sessions
(seatings), the merges and the identifications.

Reads only, for the web's two interfaces (``web.players.views``, ``web.players.api``); each part is one query.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from ledger import selectors as ledger_selectors
from tables import services as floor
from tables.models import ChipMovement, Player, PlayerIdentification, PlayerMerge, Seating
from tables.selectors import identity_players, identity_q, survivor_of

#: Reading a player's record (this module's overview: identification numbers, the gaming day's
#: cash, the currency-transaction status) and the cash per gaming day: the floor, the cage and
#: auditors hold it (``tables.roles``), a dealer doesn't: a dealer names the players at the table,
#: nothing more.
RECORD_PERMISSION = "tables.view_playeridentification"

#: Most sessions the page and the API list (the newest first).
MAX_SESSIONS = 100


@dataclasses.dataclass(frozen=True, slots=True)
class TableChips:
    """Chips of one record of the player at one table (``seat_number`` None: not seated there)."""

    table_number: int
    player_id: int
    seat_number: int | None
    chips_cents: int


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerOverview:
    player: Player
    records: list[Player]
    chips: list[TableChips]
    totals: floor.DayTotals
    movements: list[ChipMovement]
    sessions: list[Seating]
    merges: list[PlayerMerge]
    identifications: list[PlayerIdentification]

    @property
    def chips_cents(self) -> int:
        return sum(row.chips_cents for row in self.chips)

    @property
    def seated(self) -> list[Seating]:
        return [s for s in self.sessions if s.left_at is None]


def player_overview(player: Player, *, day: dt.date | None = None) -> PlayerOverview:
    """Everything the floor reads of ``player`` (any record: the survivor is shown)."""
    player = survivor_of(player)
    records = list(identity_players(player).order_by("pk"))
    day = day or floor.gaming_day()
    start, end = floor.gaming_day_bounds(day)
    seated_at = {
        (s.table_id, s.player_id): s.seat.number
        for s in Seating.objects.active().filter(identity_q(player)).select_related("seat")
    }
    chips = [
        TableChips(
            table_number=number,
            player_id=player_id,
            seat_number=seated_at.get((table_id, player_id)),
            chips_cents=cents,
        )
        for number, table_id, player_id, cents in ledger_selectors.players_chips(
            player_ids=[r.pk for r in records]
        )
    ]
    return PlayerOverview(
        player=player,
        records=records,
        chips=chips,
        totals=floor.day_totals(player=player, day=day),
        movements=list(
            ChipMovement.objects.filter(identity_q(player), created_at__gte=start, created_at__lt=end)
            .select_related("table", "player", "created_by")
            .order_by("created_at", "id")
        ),
        sessions=list(
            Seating.objects.filter(identity_q(player))
            .select_related("table", "seat", "player")
            .order_by("-seated_at", "-id")[:MAX_SESSIONS]
        ),
        merges=list(
            PlayerMerge.objects.filter(survivor=player).select_related("merged").order_by("at", "id")
        ),
        identifications=list(
            PlayerIdentification.objects.filter(identity_q(player)).select_related("recorded_by")[:20]
        ),
    )
