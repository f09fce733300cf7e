"""Plain steps of the waiting lists' tests: put a player on lists, open a seat, read a list as the
floor screen shows it, the record's events, time passing for a place."""

from __future__ import annotations

import datetime as dt
from typing import Any

from handflow import services as hand_flow
from tables.lists import services
from tables.lists.selectors import FloorState
from tables.models import Player, Seating, Table, WaitingList, WaitingListEntry, WaitingListEvent

NOW = dt.datetime(2026, 6, 1, 20, 0, tzinfo=dt.UTC)


def add(player: Player, *lists: WaitingList, by: Any = None, **kwargs: Any) -> list[WaitingListEntry]:
    return services.add_player(waiting_lists=list(lists), player=player, by=by, **kwargs)


def free_seat(table: Table, seat_number: int) -> None:
    """The player in ``seat_number`` cashes out and leaves: a seat opens."""
    seating = Seating.objects.active().select_related("player").get(table=table, seat__number=seat_number)
    hand_flow.cash_out(table=table, player=seating.player, by=None, idempotency_key=f"leave-{seating.pk}")


def order(waiting_list: WaitingList) -> list[str]:
    """The list as the floor screen shows it now."""
    return [row.player.name for row in FloorState.load().rows[waiting_list.pk]]


def events(**filters: Any) -> list[str]:
    return list(
        WaitingListEvent.objects.filter(**filters).order_by("at", "id").values_list("event", flat=True)
    )


def later(entry: WaitingListEntry, **fields: dt.timedelta) -> None:
    """Time passes for ``entry``: each named deadline is moved into the past by the given amount."""
    entry.refresh_from_db()
    WaitingListEntry.objects.filter(pk=entry.pk).update(
        **{name: getattr(entry, name) - delta for name, delta in fields.items()}
    )
