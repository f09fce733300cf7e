"""Floor services: every change to tables, seats, players, hands and configuration.

Conventions (HackSoft style):

* keyword-only arguments; ``by`` is the user acting (None for the system, e.g. a loader);
* each function runs in one ``transaction.atomic()`` and takes row locks (``select_for_update``
  on the table, or the hand) before it reads the state it decides on, so two concurrent calls
  serialise instead of racing; database constraints are the backstop;
* failures raise a :mod:`tables.errors` exception and change nothing;
* configuration changes (games, stakes, tables, schedules) and every change to a player append a
  :class:`tables.models.ConfigChange` in the same transaction.

Views, forms, serializers and the admin only translate input and output and call these.

One module per concept; this package re-exports the public names, so ``tables.services.X`` is the
name to call from outside the floor (the layers above never import one of its modules). The modules
import one another only downwards (``common`` and ``locks`` at the bottom): no cycle. The waiting
lists are a package of their own, with their own door (:mod:`tables.lists.services`).

The modules: docs/layers.md.
"""

from __future__ import annotations

from tables.services.cash_day import (
    CashCheck,
    DayTotals,
    check_cash,
    day_totals,
    gaming_day,
    gaming_day_bounds,
    identification_on,
    record_identification,
    require_identification,
    update_cash_day_settings,
)
from tables.services.common import User, acting_user
from tables.services.dealers import (
    ClockedIn,
    check_moves_chips,
    check_runs_hands,
    clock_in,
    clock_out,
    dealer_on_duty,
    may_run_any_table,
)
from tables.services.drafts import MAX_FIELD_CHARS, check_draft_entry, save_showdown_draft, showdown_draft
from tables.services.hands import (
    check_misdeal_reason,
    game_for_hand,
    move_hand,
    next_hand_number,
    record_pot_result_locked,
    start_locked,
    void_hand,
)
from tables.services.locks import lock_buttons, lock_table, lock_tables_for_move
from tables.services.players import (
    check_not_merged,
    create_player,
    delete_player,
    merge_players,
    update_player,
)
from tables.services.schedule_preview import (
    NO_RATE,
    FeeChange,
    RevisionPreview,
    TableFeeChanges,
    band_label,
    preview_revision,
    rate_changes,
)
from tables.services.schedules import (
    RATE_FIELDS,
    build_rates,
    check_effective_from,
    check_rates_against_tables,
    create_schedule,
    rename_schedule,
    revise_schedule,
    schedule_snapshot_at,
)
from tables.services.seating import check_one_table, move_seating_locked, seat_player, unseat_player
from tables.services.stakes import STAKES_FIELDS, create_stakes, stakes_with_kill
from tables.services.tables import close_table, configure_table, create_table, open_table

__all__ = [
    "MAX_FIELD_CHARS",
    "NO_RATE",
    "RATE_FIELDS",
    "STAKES_FIELDS",
    "CashCheck",
    "ClockedIn",
    "DayTotals",
    "FeeChange",
    "RevisionPreview",
    "TableFeeChanges",
    "User",
    "acting_user",
    "band_label",
    "build_rates",
    "check_cash",
    "check_draft_entry",
    "check_effective_from",
    "check_misdeal_reason",
    "check_moves_chips",
    "check_not_merged",
    "check_one_table",
    "check_rates_against_tables",
    "check_runs_hands",
    "clock_in",
    "clock_out",
    "close_table",
    "configure_table",
    "create_player",
    "create_schedule",
    "create_stakes",
    "create_table",
    "day_totals",
    "dealer_on_duty",
    "delete_player",
    "game_for_hand",
    "gaming_day",
    "gaming_day_bounds",
    "identification_on",
    "lock_buttons",
    "lock_table",
    "lock_tables_for_move",
    "may_run_any_table",
    "merge_players",
    "move_hand",
    "move_seating_locked",
    "next_hand_number",
    "open_table",
    "preview_revision",
    "rate_changes",
    "record_identification",
    "record_pot_result_locked",
    "rename_schedule",
    "require_identification",
    "revise_schedule",
    "save_showdown_draft",
    "schedule_snapshot_at",
    "seat_player",
    "showdown_draft",
    "stakes_with_kill",
    "start_locked",
    "unseat_player",
    "update_cash_day_settings",
    "update_player",
    "void_hand",
]
