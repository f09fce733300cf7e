"""The hand's money as the web calls it: the public services of :mod:`handflow.chips`,
:mod:`handflow.table_change`, :mod:`handflow.deal`, :mod:`handflow.showdown`,
:mod:`handflow.sweeps`, :mod:`handflow.settlement`, :mod:`handflow.misdeal`, the hand as it stands
(:mod:`handflow.hand_view`: :class:`HandView`, :func:`hand_view`) and the keys of
:mod:`handflow.keys`, in one place (as ``tables.services`` and ``ledger.services`` are for their
layers), with what they answer (:class:`Movement`, :class:`Dealt` and its :class:`DealtSeat` and
:class:`LeftOut`, :class:`DealPlan`, :class:`PlayerChips`, :class:`Proposed`, :class:`Declared`,
:class:`Settled`, :class:`Voided`), so a caller needs no other import path.

It defines nothing: each rule lives in the module named for it, and patching a name here patches
nothing the services call (patch it where it is defined).
"""

from __future__ import annotations

from handflow.chips import Movement, PlayerChips, buy_in, cash_out, rebuy, table_chips, table_rules
from handflow.deal import (
    DealPlan,
    Dealt,
    DealtSeat,
    LeftOut,
    fees_as_shown,
    hand_kill_blind,
    joker_in_deck,
    preview_fees,
    start_hand,
)
from handflow.hand_view import HandView, hand_view
from handflow.keys import digest_of, fees_key, fees_return_key
from handflow.misdeal import Voided, misdeal
from handflow.settlement import Settled, confirm_settlement
from handflow.showdown import Proposed, submit_showdown
from handflow.sweeps import Declared, declare_sweep
from handflow.table_change import move_player

__all__ = [
    "DealPlan",
    "Dealt",
    "DealtSeat",
    "Declared",
    "HandView",
    "LeftOut",
    "Movement",
    "PlayerChips",
    "Proposed",
    "Settled",
    "Voided",
    "buy_in",
    "cash_out",
    "confirm_settlement",
    "declare_sweep",
    "digest_of",
    "fees_as_shown",
    "fees_key",
    "fees_return_key",
    "hand_kill_blind",
    "hand_view",
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
