"""The hand's money as the web calls it: the public services of :mod:`handflow.chips`,
:mod:`handflow.table_change`, :mod:`handflow.deal`, :mod:`handflow.showdown`,
:mod:`handflow.sweeps`, :mod:`handflow.settlement`, :mod:`handflow.misdeal` and the keys of
:mod:`handflow.keys`, in one place (as ``tables.services`` and ``ledger.services`` are for their
layers).

It defines nothing: each rule lives in the module named for it, and patching a name here patches
nothing the services call (patch it where it is defined).
"""

from __future__ import annotations

from handflow.chips import PlayerChips, buy_in, cash_out, rebuy, table_chips, table_rules
from handflow.deal import (
    DealPlan,
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
