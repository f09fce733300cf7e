"""The waiting lists as the layers above call them: the public services of
:mod:`tables.lists.calls`, :mod:`tables.lists.setup` and :mod:`tables.lists.must_move`, and the
reads of :mod:`tables.lists.selectors`, in one place (as ``tables.services`` is for the rest of
the floor). The lists' models are named from :mod:`tables.models`, with the app's other models.

It defines nothing: each rule lives in the module named for it, and patching a name here patches
nothing the services call (patch it where it is defined).
"""

from __future__ import annotations

from tables.lists.calls import (
    add_player,
    call_player,
    expire_overdue,
    mark_arrived,
    move_on_list,
    open_table_for_list,
    pass_call,
    remove_from_list,
    seat_from_list,
)
from tables.lists.must_move import Mover, end_must_move, move_in_from_list, set_must_move
from tables.lists.selectors import (
    Candidate,
    DayReport,
    FloorState,
    Interest,
    ReportLine,
    Row,
    Skip,
    TableCalls,
    day_bounds,
    day_report,
    names_at_events,
)
from tables.lists.setup import (
    SETTINGS_FIELDS,
    close_list,
    create_list,
    set_board_alias,
    update_list_settings,
)

__all__ = [
    "SETTINGS_FIELDS",
    "Candidate",
    "DayReport",
    "FloorState",
    "Interest",
    "Mover",
    "ReportLine",
    "Row",
    "Skip",
    "TableCalls",
    "add_player",
    "call_player",
    "close_list",
    "create_list",
    "day_bounds",
    "day_report",
    "end_must_move",
    "expire_overdue",
    "mark_arrived",
    "move_in_from_list",
    "move_on_list",
    "names_at_events",
    "open_table_for_list",
    "pass_call",
    "remove_from_list",
    "seat_from_list",
    "set_board_alias",
    "set_must_move",
    "update_list_settings",
]
