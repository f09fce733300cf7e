"""The floor's row locks, and the refusal while a hand is in progress.

A service that decides on a table's state locks the table's row first (:func:`lock_table`), then,
where it changes them, its buttons (:func:`lock_buttons`); a move locks both tables in primary-key
order (:func:`lock_tables_for_move`), so that two crossing moves can't deadlock. The money flow
(:mod:`handflow.services`) takes the same locks, in the same order, through these functions.
"""

from __future__ import annotations

from tables.choices import HandStatus
from tables.errors import (
    HandInProgress,
)
from tables.models import ButtonState, Hand, Seating, Table


def lock_table(table: Table | int) -> Table:
    """The table's row, locked until the transaction ends, with its game, stakes and schedule."""
    pk = table.pk if isinstance(table, Table) else table
    return (
        # of=("self",): only the table's row. A bare select_for_update() would also lock the joined
        # game, stakes and schedule rows, which every table of that game shares: every hand flow in
        # the room would queue on them (benchmarks/README.md, "Hand API").
        Table.objects.select_for_update(of=("self",))
        .select_related("game", "stakes", "collection_schedule")
        .get(pk=pk)
    )


def lock_buttons(table: Table) -> ButtonState:
    """The table's buttons row (made if missing), locked, with its button, streak and kill seats."""
    # The seats come with the row (the rotation reads their numbers); only the row is locked.
    buttons, _ = (
        ButtonState.objects.select_for_update(of=("self",))
        .select_related("button_seat", "streak_seat", "kill_seat")
        .get_or_create(table=table)
    )
    return buttons


def _hand_in_progress(table: Table) -> Hand | None:
    return Hand.objects.filter(table=table, status__in=HandStatus.in_progress()).first()


def refuse_if_hand_in_progress(table: Table, doing: str) -> None:
    """HandInProgress (``Can't {doing} table N``) while a hand at ``table`` is in progress."""
    hand = _hand_in_progress(table)
    if hand is not None:
        raise HandInProgress(
            f"Can't {doing} table {table.number}: hand {hand.number} is {hand.status}. "
            "Settle or void it first."
        )


def lock_tables_for_move(seating: Seating, to_table: Table | None) -> tuple[Table, Table]:
    """Lock the seating's table and ``to_table`` (if another) in primary-key order, so that two
    crossing moves can't deadlock; returns (from table, target table), both locked."""
    from_table_id = seating.table_id
    to_table_id = to_table.pk if to_table is not None else from_table_id
    locked = {t.pk: t for t in (lock_table(pk) for pk in sorted({from_table_id, to_table_id}))}
    return locked[from_table_id], locked[to_table_id]
