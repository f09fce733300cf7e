"""Moving a player: to another seat at the table, or to another table with every chip (a table
change, one ``TABLE_TRANSFER`` under :func:`handflow.keys.table_change_key`; docs/hand-flow.md).
"""

from __future__ import annotations

from casino.core.db import service
from casino.core.money import format_cents
from handflow.keys import table_change_key
from ledger import selectors as ledger_selectors
from ledger import services as ledger
from tables import services as floor
from tables.errors import FloorValidationError
from tables.models import Seating, Table
from tables.services import User


@service
def move_player(*, seating: Seating, to_seat_number: int, by: User, to_table: Table | None = None) -> Seating:
    """Move a seated player to another seat; to another table (a table change) with all their chips.

    Robert's Rules: a player changing tables takes every chip along (no chips leave the game in
    between, whatever the new table's buy-in range: it is not a purchase). The chips go over as one
    TABLE_TRANSFER (``seating:<id>:table-change``) in the same transaction as the seating rows, so
    the player never sits at one table with their chips on the other. Refused, changing nothing,
    while the player is dealt into a hand in progress (PlayerInHand), when the seat is taken or the
    table closed, or when the chips are not a whole number of the new table's chips
    (``chips_not_whole``: colour up or cash out first). Returns the new seating.
    """
    from_table, target_table = floor.lock_tables_for_move(seating, to_table)
    moved = floor.move_seating_locked(
        seating=seating,
        from_table=from_table,
        target_table=target_table,
        to_seat_number=to_seat_number,
        by=by,
    )
    if target_table.pk == from_table.pk:
        return moved
    player = moved.player
    chips = ledger_selectors.player_chips(table=from_table, player=player)
    if chips > 0:
        if chips % target_table.chip_unit_cents:
            raise FloorValidationError(
                f"{player}'s chips ({format_cents(chips)}) are not a whole number of table "
                f"{target_table.number}'s {format_cents(target_table.chip_unit_cents)} chips; colour up or "
                "cash out first.",
                code="chips_not_whole",
                field="to_table",
            )
        ledger.transfer_chips(
            player=player,
            from_table=from_table,
            to_table=target_table,
            amount=chips,
            user=floor.acting_user(by),
            idempotency_key=table_change_key(seating),
            memo=(
                f"Table change, table {from_table.number} seat {seating.seat.number} to table "
                f"{target_table.number} seat {to_seat_number}"
            ),
        )
    return moved
