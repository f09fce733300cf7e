"""The floor model: games, stakes, collection schedules, tables, seats, players, hands.

Money is integer cents everywhere (``BigIntegerField``, fields ending in ``_cents``); never
floats. Every status or kind is a ``TextChoices``. State changes go through
:mod:`tables.services`; models only validate themselves and answer questions about their data.

House data (games, stakes, the collection schedules of seed 004) is loaded from
``tables/data/house_data.json`` by ``manage.py load_house_data``; each of those models has a
natural key (``slug`` or ``code``).

Collection schedules are versioned: rates hang off a :class:`CollectionScheduleVersion` that
takes effect from ``effective_from`` and is never rewritten once in force, so the fee of a hand
can be looked up "as in force at time T" (:meth:`CollectionSchedule.version_at`).

One module per concept, all of the ``tables`` app (same labels, tables and migrations as when
they were one module); import the models from here, ``from tables.models import Table``. The
waiting lists' models live with the lists (:mod:`tables.lists.models`) and are imported here, as
Django loads the app's models from this package. The floor's choices and limits are not models:
they are imported from :mod:`tables.choices`.

The modules: docs/layers.md.
"""

from __future__ import annotations

from tables.lists.models import (
    EntryKind,
    EntrySource,
    EntryState,
    ListEvent,
    MissedCallPolicy,
    MustMove,
    WaitingList,
    WaitingListEntry,
    WaitingListEvent,
    WaitingListSettings,
)
from tables.models.base import NaturalKeyManager, NaturalKeyModel
from tables.models.cash_day import CashDaySettings, IdentificationKind, PlayerIdentification
from tables.models.dealers import DealerShift
from tables.models.drafts import ShowdownDraft
from tables.models.games import Game
from tables.models.hands import HAND_TRANSITIONS, Hand, HandPlayer
from tables.models.history import AppendOnlyQuerySet, ConfigAction, ConfigChange
from tables.models.money import ChipMovement, ChipMovementKind, HandResult, ReadingStatus
from tables.models.players import Player, PlayerMerge, Seating, SeatingQuerySet, name_key, phone_digits
from tables.models.schedules import CollectionRate, CollectionSchedule, CollectionScheduleVersion
from tables.models.stakes import Stakes
from tables.models.tables import ButtonState, Seat, Table, TableStatus, table_name

__all__ = [
    "HAND_TRANSITIONS",
    "AppendOnlyQuerySet",
    "ButtonState",
    "CashDaySettings",
    "ChipMovement",
    "ChipMovementKind",
    "CollectionRate",
    "CollectionSchedule",
    "CollectionScheduleVersion",
    "ConfigAction",
    "ConfigChange",
    "DealerShift",
    "EntryKind",
    "EntrySource",
    "EntryState",
    "Game",
    "Hand",
    "HandPlayer",
    "HandResult",
    "IdentificationKind",
    "ListEvent",
    "MissedCallPolicy",
    "MustMove",
    "NaturalKeyManager",
    "NaturalKeyModel",
    "Player",
    "PlayerIdentification",
    "PlayerMerge",
    "ReadingStatus",
    "Seat",
    "Seating",
    "SeatingQuerySet",
    "ShowdownDraft",
    "Stakes",
    "Table",
    "TableStatus",
    "WaitingList",
    "WaitingListEntry",
    "WaitingListEvent",
    "WaitingListSettings",
    "name_key",
    "phone_digits",
    "table_name",
]
