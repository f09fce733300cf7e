"""The old import path of the hand's money, kept while its callers move to the modules that hold
each name: :mod:`handflow.keys`, :mod:`handflow.chips`, :mod:`handflow.table_change`,
:mod:`handflow.deal`, :mod:`handflow.showdown`, :mod:`handflow.sweeps`,
:mod:`handflow.settlement`, :mod:`handflow.misdeal`.

It only re-exports the names that code outside :mod:`handflow` takes from here; it defines nothing,
so patching a name here patches nothing the services call (patch it where it is defined). New code
imports the defining module; this module goes once no caller imports it.
"""

from __future__ import annotations

from handflow.chips import PlayerChips, buy_in, cash_out, rebuy, table_chips, table_rules
from handflow.deal import (
    DealPlan,
    _hold_schedule,  # tests/web/test_hand_api_queries.py holds a schedule row as a deal does
    fees_as_shown,
    hand_kill_blind,
    joker_in_deck,
    preview_fees,
    start_hand,
)
from handflow.keys import digest_of, fees_key, fees_return_key
from handflow.misdeal import misdeal
from handflow.settlement import confirm_settlement
from handflow.showdown import submit_showdown
from handflow.sweeps import declare_sweep
from handflow.table_change import move_player

__all__ = [
    "DealPlan",
    "PlayerChips",
    "_hold_schedule",
    "buy_in",
    "cash_out",
    "confirm_settlement",
    "declare_sweep",
    "digest_of",
    "fees_as_shown",
    "fees_key",
    "fees_return_key",
    "hand_kill_blind",
    "joker_in_deck",
    "misdeal",
    "move_player",
    "preview_fees",
    "rebuy",
    "start_hand",
    "submit_showdown",
    "table_chips",
    "table_rules",
]
